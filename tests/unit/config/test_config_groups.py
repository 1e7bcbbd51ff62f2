"""AgentConfig in groups: the grouped form is the documented one; the flat names of 0.1 still work (as keywords,
run overrides, a served run's context, ``--set`` and attribute reads), a renamed one warning once with its new
name; an unknown name, in either form, is an error that says what was meant."""

from __future__ import annotations

import warnings

import pytest

from reactgraph import ReActAgent, build_graph
from reactgraph.commands.evaluate import parse_overrides
from reactgraph.config import (
    FLAT,
    GROUPS,
    RENAMED,
    AgentConfig,
    ConfigError,
    Limits,
    ModelSettings,
    ToolExecution,
    make_config,
)
from reactgraph.evaluation.building import task_config
from reactgraph.evaluation.suite import Task
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolRegistry


def test_the_grouped_flat_dotted_and_dict_forms_give_the_same_config():
    grouped = AgentConfig(
        limits=Limits(max_iterations=6, token_budget=900),
        tool_execution=ToolExecution(max_parallel_tools=2),
        model_settings=ModelSettings(temperature=0.2),
    )
    flat = AgentConfig(max_iterations=6, token_budget=900, max_parallel_tools=2, temperature=0.2)
    dotted = AgentConfig(**{"limits.max_iterations": 6, "limits.token_budget": 900, "tool_execution.max_parallel_tools": 2,
                            "model_settings.temperature": 0.2})
    dicts = AgentConfig(limits={"max_iterations": 6, "token_budget": 900}, tool_execution={"max_parallel_tools": 2},
                        model_settings={"temperature": 0.2})
    mixed = AgentConfig(limits=Limits(max_iterations=6), token_budget=900, max_parallel_tools=2, temperature=0.2)
    assert grouped == flat == dotted == dicts == mixed
    assert grouped.limits.max_iterations == 6 and grouped.tool_execution.max_parallel_tools == 2
    # what was set is the same too: a run that sets these overrides the same options of the agent's
    assert flat.set_values() == grouped.set_values() == {
        "limits": {"max_iterations": 6, "token_budget": 900}, "tool_execution": {"max_parallel_tools": 2},
        "model_settings": {"temperature": 0.2},
    }


def test_the_agent_takes_either_form_and_a_flat_read_gives_the_grouped_value():
    model = ScriptedChatModel(responses=["4"])
    flat = ReActAgent(model, [], checkpointer=None, max_iterations=6, summary_every=0)
    grouped = ReActAgent(model, [], checkpointer=None, limits=Limits(max_iterations=6), prompt={"summary_every": 0})
    assert flat.config == grouped.config
    assert grouped.config.max_iterations == grouped.config.limits.max_iterations == 6  # a 0.1 read still works


def test_every_flat_name_has_a_place_in_a_group():
    for name, path in FLAT.items():
        group, option = path.split(".")
        assert option in GROUPS[group].model_fields, name
        assert name not in AgentConfig.model_fields  # a flat name is never also an option at the top
    assert RENAMED == {
        "partial_answer_timeout": "limits.partial_answer_timeout_seconds",
        "tool_timeout": "tool_execution.timeout_seconds",
        "initial_delay": "tool_execution.initial_delay_seconds",
        "max_delay": "tool_execution.max_delay_seconds",
        "tool_isolation": "tool_execution.isolation",
        "tool_limits": "tool_execution.resource_limits",
        "num_ctx": "model_settings.ollama_num_ctx",
        "keep_alive": "model_settings.ollama_keep_alive",
        "model_retries": "model_settings.max_retries",
        "model_retry_delay": "model_settings.initial_delay_seconds",
        "model_retry_max_delay": "model_settings.max_delay_seconds",
    }


def test_a_renamed_name_warns_once_naming_the_new_one_at_the_callers_line_and_works():
    with pytest.warns(DeprecationWarning) as caught:
        config = AgentConfig(tool_timeout=7, model_retries=0)
    assert sorted(str(w.message) for w in caught) == [
        "reactgraph option 'model_retries' is now 'model_settings.max_retries'",
        "reactgraph option 'tool_timeout' is now 'tool_execution.timeout_seconds'",
    ]
    assert {w.filename for w in caught} == {__file__}  # the user's line, not reactgraph's or pydantic's
    assert config == AgentConfig(tool_execution={"timeout_seconds": 7}, model_settings={"max_retries": 0})
    with pytest.warns(DeprecationWarning, match="'num_ctx' is now 'model_settings.ollama_num_ctx'") as read:
        assert config.num_ctx == 8192
    assert len(read) == 1


def test_a_flat_name_that_kept_its_name_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config = AgentConfig(max_iterations=4, approve_tools=["pay"])
        assert (config.max_iterations, config.approve_tools) == (4, ("pay",))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_iteratons": 3}, r"unknown option 'max_iteratons' \(did you mean 'max_iterations'\?\)"),
        ({"tool_timout": 3}, r"unknown option 'tool_timout' \(did you mean 'tool_execution.timeout_seconds'\?\)"),
        ({"limits": {"max_iteratons": 3}}, r"limits: unknown option 'max_iteratons' \(did you mean 'max_iterations'\?\)"),
        ({"limits.max_iteratons": 3}, r"limits: unknown option 'max_iteratons' \(did you mean 'max_iterations'\?\)"),
        ({"limits": {"tool_timeout": 3}}, r"unknown option 'tool_timeout' of limits \(it is 'tool_execution.timeout_seconds'\)"),
        ({"limts": {"max_iterations": 3}}, r"unknown option 'limts' \(did you mean 'limits'\?\)"),
        ({"max_iterations": 3, "limits": {"max_iterations": 4}}, r"limits.max_iterations is given twice"),
        ({"limits": {"max_iterations": 0}}, r"limits.max_iterations: Input should be greater than or equal to 1 \(got 0\)"),
        ({"max_iterations": 0}, r"limits.max_iterations: Input should be greater than or equal to 1 \(got 0\)"),
        ({"checks": {"failure_phrases": [" "]}}, r"checks.failure_phrases: Value error, must not contain blank phrases"),
    ],
)
def test_an_unknown_name_or_a_bad_value_in_either_form_is_a_clear_error(options, message):
    with pytest.raises(ConfigError, match=message):
        make_config(**options)


def test_a_run_that_sets_one_option_of_a_group_keeps_the_agents_others():
    agent = AgentConfig(limits={"max_iterations": 3, "token_budget": 500}, tool_execution={"isolation": "process"})
    run = make_config(limits={"token_budget": 100}, tool_execution={"isolation": "none", "max_retries": 0})
    merged = agent.merge(run)
    assert (merged.limits.max_iterations, merged.limits.token_budget) == (3, 100)
    assert merged.tool_execution.isolation == "process"  # containment: a run cannot loosen it
    assert merged.tool_execution.max_retries == 0
    assert agent.override(token_budget=50).limits == Limits(max_iterations=3, token_budget=50)


def test_set_takes_a_dotted_name_and_a_tasks_own_config_wins_over_it_in_either_form():
    overrides = parse_overrides(["limits.max_iterations=6", "tool_calling=text", "tool_execution.max_retries=0"])
    config = make_config(**overrides)
    assert (config.limits.max_iterations, config.tool_calling, config.tool_execution.max_retries) == (6, "text", 0)
    task = Task(id="t", category="arithmetic", question="q", config={"max_iterations": 3})
    assert task_config(task, overrides).limits.max_iterations == 3  # the task's flat name over --set's dotted one
    assert task_config(task, overrides).tool_execution.max_retries == 0


def test_the_served_context_schema_names_the_groups_and_the_flat_names():
    """The LangGraph server keeps only the context keys its schema names: both forms must be there."""
    properties = build_graph(ScriptedChatModel(responses=["4"]), ToolRegistry()).get_context_jsonschema()["properties"]
    assert {"model", "tool_calling", "limits", "tool_execution", "model_settings"} <= set(properties)
    assert {"max_iterations", "tool_timeout", "num_ctx"} <= set(properties)
    assert properties["tool_timeout"]["deprecated"] is True and "deprecated" not in properties["max_iterations"]
    assert properties["max_iterations"]["description"].startswith("The flat form of limits.max_iterations")


@pytest.mark.parametrize("context", [{"limits": {"max_iterations": 2}}, {"max_iterations": 2}, {"limits.max_iterations": 2}])
def test_the_graph_takes_its_limits_from_a_grouped_or_flat_context(context):
    looping = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "1+1"})], repeat_last=True)
    graph = build_graph(looping, ToolRegistry.with_builtins(["calculator"]))
    out = graph.invoke({"query": "Add forever."}, context=context | {"early_stopping": "force"})
    assert (out["termination"]["reason"], out["termination"]["limit"]) == ("max_iterations", 2)


def test_the_served_factory_refuses_a_misspelt_grouped_option():
    from reactgraph.server import check_context, served_tools

    assert check_context({"limits": {"max_iterations": 4}}, served_tools()).limits.max_iterations == 4
    with pytest.raises(ConfigError, match=r"limits: unknown option 'max_iteratons' \(did you mean 'max_iterations'\?\)"):
        check_context({"limits": {"max_iteratons": 4}}, served_tools())


def test_a_queued_run_takes_a_group_as_json_and_still_refuses_a_callable():
    from reactgraph.queue import QueueConfigError
    from reactgraph.queue._submitting import checked_options

    assert checked_options({"limits": Limits(max_iterations=3), "summary_every": 0})["overrides"] == {
        "limits": {"max_iterations": 3}, "summary_every": 0,
    }
    with pytest.raises(QueueConfigError, match="run options must be JSON values"):
        checked_options({"termination_callback": lambda step: False})
