"""The loop: parallel calls, summaries, prompts, config precedence, the Python API."""

from __future__ import annotations

import asyncio
import threading

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from reactgraph import AgentConfig, ConfigError, ModelUnavailableError, ReActAgent, ReActResult, ReActStep, build_graph
from reactgraph import TerminationReason as R
from reactgraph.state import tool_stats
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls


def test_parallel_calls_in_one_turn_run_concurrently_and_keep_call_order(log):
    barrier = threading.Barrier(2, timeout=5)
    order: list[str] = []

    def left(x: int) -> str:
        """Waits for right to start too."""
        order.append("left-start")
        barrier.wait()  # fails with BrokenBarrierError unless both run at once
        order.append("left-end")
        return f"L{x}"

    def right(x: int) -> str:
        """Waits for left to start too."""
        order.append("right-start")
        barrier.wait()
        order.append("right-end")
        return f"R{x}"

    model = ScriptedChatModel(responses=[tool_calls([("left", {"x": 1}), ("right", {"x": 2})], thought="Both."), "L1 R2"])
    result = ReActAgent(model=model, tools=[left, right]).run("Run left on 1 and right on 2, both.")
    step = result.trace.steps[0]
    assert [o.content for o in step.observations] == ["L1", "R2"]  # call order, whatever finished first
    assert [a.tool for a in step.actions] == ["left", "right"]
    assert set(order[:2]) == {"left-start", "right-start"}  # both started before either ended
    assert result.final_answer == "L1 R2"


def test_max_parallel_tools_one_runs_calls_in_order():
    order: list[str] = []

    def work(name: str) -> str:
        """Records start and end."""
        order.extend([f"{name}-start", f"{name}-end"])
        return name

    calls = tool_calls([("work", {"name": "a"}), ("work", {"name": "b"}), ("work", {"name": "c"})])
    model = ScriptedChatModel(responses=[calls, "abc"])
    ReActAgent(model=model, tools=[work], max_parallel_tools=1).run("Work on a, b and c.")
    assert order == ["a-start", "a-end", "b-start", "b-end", "c-start", "c-end"]


# 7 iterations: a summary is due after iterations 1..6 (every=1), 3 and 6 (every=3), 4 (every=4);
# none after the 7th, where max_iterations stops the run first (stop rules come before summary).
@pytest.mark.parametrize(("every", "expected_summaries"), [(1, 6), (3, 2), (0, 0), (4, 1)])
def test_summary_cadence(math_tools, every, expected_summaries):
    turns = iter(range(100))

    def reply(messages):
        if "running notes" in messages[-1].content:
            return "notes"
        return tool_call("add", {"a": next(turns), "b": 1})

    model = ScriptedChatModel(responses=[reply] * 20)
    result = ReActAgent(model=model, tools=math_tools, max_iterations=7, summary_every=every, early_stopping="force").run("add")
    summaries = [c for c in model.calls if "running notes" in c["messages"][-1].content]
    assert len(summaries) == expected_summaries
    assert result.summary == ("notes" if expected_summaries else "")


def test_summary_is_shown_to_think_as_conversation_so_far(math_tools):
    def reply(messages):
        if "running notes" in messages[-1].content:
            return "NOTES: found 2 and 3"
        return tool_call("add", {"a": 1, "b": 1})

    model = ScriptedChatModel(responses=[reply] * 5 + ["done"])
    ReActAgent(model=model, tools=math_tools, summary_every=2, max_iterations=10).run("q")
    think_after_summary = model.calls[3]  # think, think, summarize, think
    head = think_after_summary["messages"][1].content
    assert "Conversation so far" in head and "NOTES: found 2 and 3" in head


def test_prompt_holds_only_recent_steps(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": i, "b": 0}) for i in range(8)] + ["done"])
    question = "Add 0 to each of 0, 1, 2, 3, 4, 5, 6 and 7."
    ReActAgent(model=model, tools=math_tools, keep_recent_steps=2, summary_every=0, max_iterations=20).run(question)
    last = model.calls[-1]["messages"]
    tool_results = [m.content for m in last if isinstance(m, ToolMessage)]
    assert tool_results == ["6", "7"]  # only the last 2 steps, verbatim
    sizes = [sum(len(str(m.content)) for m in c["messages"]) for c in model.calls[2:]]
    assert max(sizes) - min(sizes) < 40  # bounded: no growth once the window is full


def test_long_observation_truncated_with_marker():
    def big(n: int) -> str:
        """Returns a long text."""
        return "HEAD" + "x" * n + "TAIL"

    model = ScriptedChatModel(responses=[tool_call("big", {"n": 5000}), "ok"])
    result = ReActAgent(model=model, tools=[big], max_observation_tokens=100).run("Get a text of 5000 characters.")
    obs = result.trace.steps[0].observations[0]
    assert obs.truncated and obs.content.startswith("HEAD") and obs.content.endswith("TAIL")
    assert "characters truncated" in obs.content and len(obs.content) < 500


def test_unknown_tool_and_bad_arguments_become_error_observations(math_tools, log):
    model = ScriptedChatModel(
        responses=[tool_calls([("nope", {}), ("add", {"a": "one", "b": 2}), ("add", {"a": 1, "b": 2})]), "3"]
    )
    result = ReActAgent(model=model, tools=math_tools).run("What is 1 + 2?")
    kinds = [o.error_kind for o in result.trace.steps[0].observations]
    assert kinds == ["tool_not_found", "invalid_parameters", None]
    assert "there is no tool 'nope'; the tools are: add, multiply, lookup" in result.trace.steps[0].observations[0].content
    assert log.calls == [("add", {"a": 1, "b": 2})]
    assert [e["tool"] for e in result.error_history] == ["nope", "add"]


def test_malformed_native_call_is_an_error_observation(math_tools):
    bad = AIMessage(content="", invalid_tool_calls=[{"name": "add", "args": "{a: 1,", "id": "c1", "error": "bad json", "type": "invalid_tool_call"}])
    model = ScriptedChatModel(responses=[bad, "fine"])
    result = ReActAgent(model=model, tools=math_tools).run("q")
    obs = result.trace.steps[0].observations[0]
    assert obs.error_kind == "invalid_parameters" and "could not be read" in obs.content
    assert result.final_answer == "fine"


def test_empty_reply_asks_for_a_tool_call_or_answer(math_tools):
    model = ScriptedChatModel(responses=["", "answer"])
    result = ReActAgent(model=model, tools=math_tools).run("q")
    assert result.trace.steps[0].observations[0].content.startswith("Your reply was empty")
    assert result.final_answer == "answer"


@pytest.mark.parametrize("thought", ["", "I will use the tool.", "Let me call the add tool", "ok"])
def test_require_thought_rejects_calls_without_reasoning(math_tools, log, thought):
    model = ScriptedChatModel(
        responses=[tool_call("add", {"a": 1, "b": 1}, thought=thought), tool_call("add", {"a": 1, "b": 1}, thought="Adding gives the total asked."), "2"]
    )
    result = ReActAgent(model=model, tools=math_tools, require_thought=True).run("q")
    first, second, final = result.trace.steps
    assert final.kind == "final" and first.observations[0].error_kind == "missing_thought" and second.observations[0].status == "ok"
    assert log.calls == [("add", {"a": 1, "b": 1})]


def test_token_usage_estimated_when_model_reports_none(math_tools):
    model = ScriptedChatModel(responses=["four"], report_usage=False)
    result = ReActAgent(model=model, tools=math_tools).run("2+2?")
    assert result.token_usage.estimated and result.token_usage.output_tokens == 1
    assert result.token_usage.input_tokens > 0


def test_token_usage_reported_is_summed(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 1}), "2"])
    result = ReActAgent(model=model, tools=math_tools).run("1+1?")
    per_call = [c for c in model.calls]
    assert len(per_call) == 2 and not result.token_usage.estimated
    assert result.token_usage.total_tokens == result.token_usage.input_tokens + result.token_usage.output_tokens > 0


# -- config -------------------------------------------------------------------------------


def test_config_precedence_run_over_agent_over_default(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": i}) for i in range(20)], repeat_last=True)
    agent = ReActAgent(model=model, tools=math_tools, max_iterations=4, summary_every=0, early_stopping="force")
    assert AgentConfig().max_iterations == 10  # the default
    assert agent.run("q").trace.total_iterations == 4  # agent over default
    assert agent.run("q", max_iterations=2).trace.total_iterations == 2  # run over agent
    assert agent.run("q").trace.total_iterations == 4  # the override did not stick


def test_runtime_context_overrides_only_the_fields_it_sets(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": i, "b": 1}) for i in range(10)])
    graph = build_graph(model, math_tools, AgentConfig(max_iterations=5, summary_every=0, early_stopping="force"))
    out = graph.invoke({"query": "q"}, context={"max_iterations": 2})
    assert out["termination"]["reason"] == "max_iterations" and out["termination"]["limit"] == 2
    assert len(out["steps"]) == 2
    out = graph.invoke({"query": "q"})
    assert out["termination"]["limit"] == 5  # agent config, as no context was given


def test_output_mode_simple_returns_the_answer(math_tools):
    agent = ReActAgent(model=ScriptedChatModel(responses=["42", "43"]), tools=math_tools, output_mode="simple")
    assert agent.run("q") == "42"
    assert isinstance(agent.run("q", output_mode="structured"), ReActResult)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"max_iterations": 0}, "max_iterations"),
        ({"token_budget": -5}, "token_budget"),
        ({"timeout_seconds": 0}, "timeout_seconds"),
        ({"stall_threshold": 1}, "stall_threshold"),
        ({"summary_every": -1}, "summary_every"),
        ({"early_stopping": "maybe"}, "early_stopping"),
        ({"output_mode": "xml"}, "output_mode"),
        ({"max_iterations": "ten"}, "max_iterations"),
        ({"max_iteration": 3}, "max_iteration"),  # a typo is an error, not ignored
        ({"failure_phrases": ("ok", " ")}, "failure_phrases"),
    ],
)
def test_bad_config_values_are_clear_errors(values, field):
    with pytest.raises(ConfigError, match=field):
        ReActAgent(model=ScriptedChatModel(), **values)
    agent = ReActAgent(model=ScriptedChatModel(responses=["x"]))
    with pytest.raises(ConfigError, match=field):
        agent.run("q", **values)


def test_bad_context_in_graph_invoke_is_reported():
    graph = build_graph(ScriptedChatModel(responses=["x"]))
    with pytest.raises(ValueError, match="max_iterations"):
        graph.invoke({"query": "q"}, context={"max_iterations": 0})


# -- API ----------------------------------------------------------------------------------


def test_stream_yields_each_step_then_the_result(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 1}), tool_call("multiply", {"a": 2, "b": 3}), "6"])
    items = list(ReActAgent(model=model, tools=math_tools).stream("q"))
    assert [type(i) for i in items] == [ReActStep, ReActStep, ReActStep, ReActResult]  # two turns with tools, the final one
    assert [i.actions[0].tool for i in items[:2]] == ["add", "multiply"]
    assert items[-1].final_answer == "6"


def test_arun_and_astream(math_tools, log):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 2, "b": 2}), "4", tool_call("add", {"a": 3, "b": 3}), "6"])
    agent = ReActAgent(model=model, tools=math_tools)

    async def go():
        first = await agent.arun("2+2")
        items = [i async for i in agent.astream("3+3")]
        return first, items

    first, items = asyncio.run(go())
    assert first.final_answer == "4" and items[-1].final_answer == "6" and isinstance(items[0], ReActStep)
    assert log.calls == [("add", {"a": 2, "b": 2}), ("add", {"a": 3, "b": 3})]


def test_trace_and_scratchpad(math_tools):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Find the country."), "France"])
    agent = ReActAgent(model=model, tools=math_tools)
    result = agent.run("Where is Paris?")
    assert agent.get_trace().model_dump() == result.trace.model_dump()
    assert agent.get_trace(result.thread_id).steps[0].actions[0].args == {"key": "paris"}
    assert agent.get_current_scratchpad() == (
        "Thought: Find the country.\nAction: lookup[paris]\nObservation: France\nFinal Answer: France"
    )


def test_second_question_on_same_thread_starts_a_fresh_run(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 1}), "2", "second answer"])
    agent = ReActAgent(model=model, tools=math_tools)
    first = agent.run("first", thread_id="t")
    second = agent.run("second", thread_id="t")
    assert first.final_answer == "2" and len(first.trace.steps) == 2
    assert second.question == "second" and second.final_answer == "second answer"
    assert [s.kind for s in second.trace.steps] == ["final"] and second.trace.total_iterations == 1
    assert second.token_usage.total_tokens < first.token_usage.total_tokens


def test_chat_messages_input(math_tools):
    graph = build_graph(ScriptedChatModel(responses=["Paris is in France."]), math_tools)
    out = graph.invoke({"messages": [{"role": "user", "content": "Where is Paris?"}]})
    assert out["final_answer"] == "Paris is in France."
    assert out["messages"][-1].content == "Paris is in France." and out["messages"][-1].type == "ai"


def test_unreachable_ollama_is_a_clear_error(monkeypatch, math_tools):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # discard port: nothing answers
    agent = ReActAgent(tools=math_tools)
    assert agent.config.model == "ollama:qwen2.5:7b"
    with pytest.raises(ModelUnavailableError, match=r"Ollama is not reachable at http://127.0.0.1:9.*ollama serve"):
        agent.run("q")


def test_model_by_name_gets_the_runs_settings():
    from reactgraph.graph.deps import NodeDeps
    from reactgraph.tools.registry import ToolRegistry

    named = {"model": "ollama:qwen2.5:7b"}  # a model named: no default to find on the machine
    deps = NodeDeps(config=AgentConfig(**named), registry=ToolRegistry())
    small = deps.chat_model(AgentConfig(model_settings={"ollama_num_ctx": 2048, "temperature": 0.5}, **named))
    assert (small.num_ctx, small.temperature) == (2048, 0.5)
    assert deps.chat_model(AgentConfig(model_settings={"ollama_num_ctx": 2048, "temperature": 0.5}, **named)) is small  # made once per settings
    assert deps.chat_model(AgentConfig(**named)).num_ctx == AgentConfig().model_settings.ollama_num_ctx


def test_unreachable_primary_with_fallbacks_is_a_failure_stop_naming_both(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    agent = ReActAgent(model="ollama:first", model_settings={"fallback_models": ("ollama:second",), "max_retries": 0})
    result = agent.run("q")  # no preflight error: the fallbacks get their chance
    assert result.termination_reason is R.FAILURE
    assert "first" in result.termination_detail and "second" in result.termination_detail


def test_stall_signals_keep_a_digest_not_the_observations(math_tools):
    def big(n: int) -> str:
        """Returns a long text."""
        return "y" * n

    model = ScriptedChatModel(responses=[tool_call("big", {"n": 2000}), "ok"])
    agent = ReActAgent(model=model, tools=[big])
    result = agent.run("q")
    stall = tool_stats(agent.graph.get_state({"configurable": {"thread_id": result.thread_id}}).values)["stall"]
    assert len(stall["observation_key"]) == 16 and "observation_text" not in stall  # the text only for a stall stop's detail
