"""The parsing chain inside a run: tool_calling modes, the text format's prompt, error
observations that show the expected format, and max_parse_retries."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from reactgraph import ReActAgent
from reactgraph.config import AgentConfig
from reactgraph.testing import ScriptedChatModel
from reactgraph.tool_calling._binding import bind_call
from reactgraph.tool_calling.reading import ReadContext
from reactgraph.tools import ToolRegistry
from reactgraph.tools.specs import tool_specs

from .parsing_corpus import TextOnlyModel


def run(model, tools, question="Where is Paris?", **options):
    options.setdefault("summary_every", 0)
    return ReActAgent(model, tools, checkpointer=None, allow_clarification=False, **options).run(question)


def test_auto_uses_the_text_format_for_a_model_without_tool_calling(math_tools, log):
    model = TextOnlyModel(responses=["Thought: look it up\nAction: lookup[paris]", "Thought: done\nFinal Answer: France"])
    result = run(model, math_tools)
    assert result.termination_reason.value == "success" and result.final_answer == "France"
    assert log.calls == [("lookup", {"key": "paris"})]
    first, second = model.calls
    assert first["tools"] == [] and second["tools"] == []  # nothing bound
    assert first["stop"] == ["\nObservation:"]  # the model's turn ends before it writes an observation itself
    system = first["messages"][0]
    assert isinstance(system, SystemMessage)
    assert "lookup[<key>]: Look a key up in a fixed table." in system.content and "add[<a>, <b>]" in system.content
    assert "Action: tool_name[input]" in system.content and "Final Answer:" in system.content
    # the step comes back as text, not as tool messages
    tail = second["messages"][-2:]
    assert [type(m) for m in tail] == [AIMessage, HumanMessage]
    assert tail[0].content == "Thought: look it up\nAction: lookup[paris]"
    assert tail[1].content == (
        "Observation: France\n\n"  # the newest observation ends with a reminder to answer (no budget runs low)
        "If the observations answer the question, reply with Thought and Final Answer; otherwise take the next step."
    )
    assert not any(isinstance(m, ToolMessage) for m in second["messages"])


def test_text_mode_with_several_inputs_and_custom_tags(math_tools, log):
    model = TextOnlyModel(
        responses=['Why: sum\nDo: add[{"a": 2, "b": 3}]', "Why: known\nSo: 5"],
    )
    result = run(model, math_tools, "What is 2 + 3?", thought_tag="Why", action_tag="Do", observation_tag="Saw", final_answer_tag="So")
    assert log.calls == [("add", {"a": 2, "b": 3})] and result.final_answer == "5"
    assert model.calls[1]["messages"][-2].content == 'Why: sum\nDo: add[{"a": 2, "b": 3}]'
    assert model.calls[1]["messages"][-1].content.startswith("Saw: 5\n\n")
    assert "reply with Why and So" in model.calls[1]["messages"][-1].content  # the reminder uses the tags


def test_text_mode_can_be_forced_on_a_tool_calling_model(math_tools, log):
    model = ScriptedChatModel(responses=["Thought: x\nAction: lookup[rome]", "Final Answer: Italy"])
    result = run(model, math_tools, "Where is Rome?", tool_calling="text")
    assert model.calls[0]["tools"] == [] and log.calls == [("lookup", {"key": "rome"})]
    assert result.final_answer == "Italy"


def test_native_mode_on_a_model_without_tool_calling_fails_clearly(math_tools):
    result = run(TextOnlyModel(responses=["unused"]), math_tools, tool_calling="native")
    assert result.termination_reason.value == "failure"
    assert "NotImplementedError" in result.termination_detail and "no tool calling" in result.termination_detail


def test_tool_call_written_in_content_runs_in_native_mode(math_tools, log):
    model = ScriptedChatModel(
        responses=['<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>', "It is 5."]
    )
    result = run(model, math_tools, "What is 2 + 3?")
    assert model.calls[0]["tools"] == ["add", "multiply", "lookup"]
    assert log.calls == [("add", {"a": 2, "b": 3})] and result.final_answer == "It is 5."


def test_malformed_output_becomes_an_error_observation_and_the_model_recovers(math_tools, log):
    model = TextOnlyModel(
        responses=["Thought: look\nAction: lookup[paris", "Thought: fixed\nAction: lookup[paris]", "Final Answer: France"]
    )
    result = run(model, math_tools)
    assert result.final_answer == "France" and log.calls == [("lookup", {"key": "paris"})]
    bad = result.trace.steps[0].observations[0]
    assert (bad.status, bad.error_kind) == ("error", "malformed_output")
    assert "no closing ']'" in bad.content
    shown = model.calls[1]["messages"][-1].content  # the newest observation, then the expected format
    assert shown.startswith("Observation: Error (malformed_output)") and "Action: tool_name[input]" in shown
    assert "Action: tool_name[input]" not in model.calls[2]["messages"][-1].content  # not once the reply was read
    assert [e["error_kind"] for e in result.error_history] == ["malformed_output"]


def test_max_parse_retries_ends_the_run_with_failure(math_tools, log):
    replies = ["Thought: a\nAction: lookup[paris", '{"name": "lookup", "arguments": {"key": ', "", "Final Answer: not found yet"]
    model = TextOnlyModel(responses=replies)
    result = run(model, math_tools, max_parse_retries=3)
    assert result.termination_reason.value == "failure" and log.calls == []
    assert "3 unreadable model replies in a row (max_parse_retries=3)" in result.termination_detail
    assert "empty" in result.termination_detail  # the last problem is named
    # the first two became error observations; the third ended the run, with the partial-answer call
    assert [s.kind for s in result.trace.steps] == ["tools", "tools", "final"]
    assert [c.purpose for c in result.trace.steps[-1].calls] == ["think", "partial_answer"]
    # then one tool-less call for an honest partial answer, read in the run's format
    assert model.position == 4 and model.calls[3]["messages"][-1].content.startswith("You must stop now")
    assert (result.final_answer, result.partial) == ("not found yet", True)


def test_a_readable_reply_resets_the_parse_failure_count(math_tools, log):
    bad = "Thought: hmm\nAction: lookup"
    model = TextOnlyModel(
        responses=[bad, "Thought: ok\nAction: lookup[rome]", "Thought: again\nAction: search[x]", bad, "Final Answer: Italy"]
    )
    result = run(model, math_tools, "Where is Rome?", max_parse_retries=3)
    assert result.termination_reason.value == "success" and result.final_answer == "Italy"
    kinds = [s.observations[0].error_kind for s in result.trace.steps if s.kind == "tools"]
    assert kinds == ["invalid_parameters", None, "tool_not_found", "invalid_parameters"]
    assert "lookup needs key" in result.trace.steps[0].observations[0].content


def test_unknown_tool_in_text_lists_the_tools(math_tools):
    model = TextOnlyModel(responses=["Thought: x\nAction: reflect[how to improve]", "Final Answer: France"])
    step = run(model, math_tools).trace.steps[0]
    assert step.observations[0].error_kind == "tool_not_found"
    assert "there is no tool 'reflect'; the tools are: add, multiply, lookup" in step.observations[0].content


def test_the_ask_user_rule_is_in_the_prompt_only_when_the_tool_is(math_tools):
    for allowed in (True, False):
        model = TextOnlyModel(responses=["Thought: known\nFinal Answer: 4"])
        ReActAgent(model, math_tools, checkpointer=None, allow_clarification=allowed).run("2+2?")
        assert ("call ask_user" in model.calls[0]["messages"][0].content) is allowed


def test_an_unreadable_action_is_shown_back_as_the_model_wrote_it(math_tools, log):
    """Not as a placeholder the model would copy: the next prompt and the trace keep the line it wrote."""
    model = TextOnlyModel(responses=["Thought: look\nAction: lookup the key paris", "Thought: done\nFinal Answer: France"])
    result = run(model, math_tools)
    assert log.calls == [] and result.final_answer == "France"
    step = result.trace.steps[0]
    assert step.actions[0].args == {"written": "lookup the key paris"} and step.observations[0].error_kind == "malformed_output"
    assert model.calls[1]["messages"][-2].content == "Thought: look\nAction: lookup the key paris"
    assert "Thought: look\nAction: lookup the key paris\nObservation: Error (malformed_output)" in result.trace.scratchpad()


def test_in_the_text_format_each_prompt_starts_as_the_previous_one_did(math_tools, log):
    """The budget line, shown once a limit runs low, sits after the newest observations, so a local
    server can reuse the prompt prefix."""
    model = TextOnlyModel(
        responses=["Thought: a\nAction: lookup[paris]", "Thought: b\nAction: lookup[rome]", "Thought: c\nFinal Answer: ok"]
    )
    run(model, math_tools, max_iterations=3)
    first, second, third = (call["messages"] for call in model.calls)
    assert first[1].content == second[1].content == third[1].content == "Question: Where is Paris?"
    assert not any("Budget" in m.content for m in first)  # 3 of 3 turns left: nothing runs low yet
    assert [m.content for m in third[:3]] == [m.content for m in second[:3]]  # system, question, first reply
    assert "Budget left: 2 of 3 tool turns." in second[-1].content
    assert "Budget left: 1 of 3 tool turns." in third[-1].content and "Budget" not in third[-3].content


def test_the_budget_line_shows_only_the_limits_that_run_low(math_tools, log):
    from reactgraph.graph._scratchpad import status_text

    cfg = AgentConfig(max_iterations=10, token_budget=1000, timeout_seconds=100)
    state = {"token_usage": {"total_tokens": 500}, "started_at": 0.0}
    assert status_text(state, cfg, now=10.0, iteration=1) == ""
    assert status_text(state, cfg, now=80.0, iteration=9) == "Budget left: 2 of 10 tool turns, 20s of 100s."
    state["token_usage"]["total_tokens"] = 900
    assert status_text(state, cfg, now=10.0, iteration=1) == "Budget left: 100 of 1000 tokens."


def test_two_calls_on_one_action_line_both_run_and_come_back_on_one_line(math_tools, log):
    model = TextOnlyModel(responses=["Thought: both\nAction: lookup[paris], lookup[rome]", "Thought: done\nFinal Answer: ok"])
    result = run(model, math_tools, "Where are Paris and Rome?")
    assert sorted(log.calls, key=str) == [("lookup", {"key": "paris"}), ("lookup", {"key": "rome"})]
    assert [a.args for a in result.trace.steps[0].actions] == [{"key": "paris"}, {"key": "rome"}]
    assert model.calls[1]["messages"][-2].content == "Thought: both\nAction: lookup[paris], lookup[rome]"


def test_a_model_with_its_own_stop_sequences_keeps_them(math_tools, log):
    """ChatOllama refuses stop sequences given twice: the text format adds none to a model that has some."""

    class WithStop(TextOnlyModel):
        stop: list[str] | None = None

    model = WithStop(responses=["Thought: t\nFinal Answer: 4"], stop=["\nEND"])
    run(model, math_tools)
    assert model.calls[0]["stop"] is None  # not ["\nObservation:"]


def test_a_thought_that_gives_up_without_a_final_answer_ends_the_run_as_a_give_up(math_tools, log):
    """Not an unreadable reply sent back three times: the model said it cannot do it."""
    model = TextOnlyModel(responses=["Thought: No tool here tells the weather, so I cannot complete the task."])
    result = run(model, math_tools)
    assert result.termination_reason.value == "failure" and model.position == 1
    assert result.final_answer == "No tool here tells the weather, so I cannot complete the task."


def test_a_bare_give_up_in_the_instructions_words_is_asked_for_its_reason(math_tools, log):
    """The instructions ask for the give-up *and why*: their words alone are sent back once; with a reason they end the run."""
    model = TextOnlyModel(
        responses=[
            "Thought: no tool tells the weather.\nFinal Answer: I cannot complete the task.",
            "Thought: still none.\nFinal Answer: No tool here tells the weather, so I cannot complete the task.",
        ]
    )
    result = run(model, math_tools)
    assert result.trace.steps[0].observations[0].error_kind == "non_answer"
    assert result.termination_reason.value == "failure" and model.position == 2
    assert result.final_answer == "No tool here tells the weather, so I cannot complete the task."


def test_action_none_is_told_how_to_answer(math_tools, log):
    model = TextOnlyModel(responses=["Thought: I know it\nAction: None", "Thought: known\nFinal Answer: France"])
    result = run(model, math_tools)
    refused = result.trace.steps[0].observations[0]
    assert refused.error_kind == "malformed_output"
    assert "names no tool to call (to give the answer, use Final Answer: instead of Action:)" in refused.content
    assert result.final_answer == "France"


def test_the_text_formats_tool_list_writes_each_input_as_a_placeholder():
    """Listed as ``calculator[expression]``, the local model wrote ``calculator[expression]{"num1": 397.8, ...}`` for
    "Now double that number." (chat-follow-up); given ``calculator[<expression>]``, it wrote ``calculator[397.8 * 2]``."""
    model = TextOnlyModel(responses=["Thought: t\nFinal Answer: 4"])
    run(model, ToolRegistry.with_builtins(["calculator", "percent_of"]))
    system = str(model.calls[0]["messages"][0].content)
    assert "- calculator[<expression>]: Evaluate" in system and "- percent_of[<percent>, <value>]: " in system
    assert "calculator[expression]" not in system


def test_a_call_that_misses_the_one_input_is_told_how_to_write_it_with_the_tools_example():
    """The local model's reply for "Now double that number." (chat-follow-up): the calculator's signature, then JSON
    arguments it does not take. The error says the brackets hold the input itself, with the tool's own example."""
    written = 'Thought: double it\nAction: calculator[expression]{"operation": "*", "num1": 397.8, "num2": 2}'
    model = TextOnlyModel(responses=[written, "Thought: t\nAction: calculator[397.8 * 2]", "Thought: t\nFinal Answer: 795.6"])
    result = run(model, ToolRegistry.with_builtins(["calculator"]), "What is 397.8 doubled?")
    first, second = (s.observations[0] for s in result.trace.steps[:2])
    assert first.error_kind == "invalid_parameters"
    assert first.content.endswith("calculator[<expression>] is how the tool list names its input; write the input itself in "
                                  "the brackets, with nothing after them, e.g. Action: calculator[sqrt(16) + 2**3].")
    assert (second.content, result.final_answer) == ("795.6", "795.6")


def test_json_arguments_without_the_one_input_show_the_tools_example():
    ctx = ReadContext(tools=tool_specs(t.tool for t in ToolRegistry.with_builtins(["calculator"]).list()))
    rejected = bind_call("calculator", {"operation": "*", "num1": 397.8, "num2": 2}, ctx)
    assert rejected["rejection"].endswith('its one input, whole, as in {"expression": "sqrt(16) + 2**3"}.')
