"""tool_calling="auto": a native start, the switch to text when the model writes its calls as text,
the agent remembering it, and each turn's format in the trace."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, SystemMessage
from langchain_openai.chat_models.base import _convert_message_to_dict

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call

WRITTEN_CALL = 'I will look it up.\n<tool_call>\n{"name": "lookup", "arguments": {"key": "paris"}}\n</tool_call>'


def agent_for(model, tools, **options):
    options.setdefault("summary_every", 0)
    return ReActAgent(model, tools, checkpointer=None, allow_clarification=False, **options)


def test_a_call_written_as_text_moves_the_run_to_the_text_format(math_tools, log):
    model = ScriptedChatModel(responses=[WRITTEN_CALL, "Thought: found it\nAction: lookup[rome]", "Thought: done\nFinal Answer: France"])
    result = agent_for(model, math_tools).run("Where is Paris, and Rome?")
    assert result.final_answer == "France" and log.calls == [("lookup", {"key": "paris"}), ("lookup", {"key": "rome"})]
    first, second, third = model.calls
    assert first["tools"] == ["add", "multiply", "lookup"]  # native first: the tools are bound
    assert second["tools"] == [] and second["stop"] == ["\nObservation:"]  # then the text format
    assert "Action: tool_name[input]" in second["messages"][0].content
    # the native turn is shown back in the text format, the invented rest of the reply dropped
    assert second["messages"][-2].content == "Thought: I will look it up.\nAction: lookup[paris]"
    assert [s.format for s in result.trace.steps] == ["native", "text", "text"]  # the final turn too
    assert result.trace.steps[0].written == WRITTEN_CALL and result.trace.steps[1].written is not None


def test_the_agent_remembers_the_text_format_for_the_model(math_tools, log):
    model = ScriptedChatModel(
        responses=[WRITTEN_CALL, "Thought: done\nFinal Answer: France", "Thought: known\nFinal Answer: Italy"]
    )
    agent = agent_for(model, math_tools)
    agent.run("Where is Paris?")
    result = agent.run("Where is Rome?")
    assert model.calls[2]["tools"] == [] and isinstance(model.calls[2]["messages"][0], SystemMessage)
    assert "Action: tool_name[input]" in model.calls[2]["messages"][0].content  # the second run starts in text
    assert result.final_answer == "Italy"
    fresh = ScriptedChatModel(responses=["Italy"])
    agent_for(fresh, math_tools).run("Where is Rome?")  # another agent learnt nothing
    assert fresh.calls[0]["tools"] == ["add", "multiply", "lookup"]


def test_a_model_that_calls_natively_stays_native(math_tools, log):
    model = ScriptedChatModel(
        responses=[
            tool_call("lookup", {"key": "paris"}, thought="Look it up."),
            tool_call("lookup", {"key": "rome"}, thought="And Rome."),
            "France and Italy",
            tool_call("add", {"a": 1, "b": 2}),
            "3",
        ]
    )
    agent = agent_for(model, math_tools)
    first = agent.run("Where are Paris and Rome?")
    second = agent.run("1+2?")
    assert [c["tools"] for c in model.calls] == [["add", "multiply", "lookup"]] * 5
    assert [s.format for s in first.trace.steps + second.trace.steps] == ["native"] * 5
    assert all(s.written is None for s in first.trace.steps)
    assert (first.final_answer, second.final_answer) == ("France and Italy", "3")


def test_fixed_formats_never_switch(math_tools, log):
    model = ScriptedChatModel(responses=[WRITTEN_CALL, "France"])
    result = agent_for(model, math_tools, tool_calling="native").run("Where is Paris?")
    assert [c["tools"] for c in model.calls] == [["add", "multiply", "lookup"]] * 2
    assert [s.format for s in result.trace.steps] == ["native"] * 2 and result.final_answer == "France"


def test_a_recovered_call_is_shown_back_with_the_models_own_text(math_tools, log):
    """Never an empty or null content beside the calls (llama.cpp's server rejects a null with HTTP 500)."""
    model = ScriptedChatModel(responses=['{"name": "lookup", "arguments": {"key": "paris"}}', "France"])
    agent_for(model, math_tools, tool_calling="native").run("Where is Paris?")
    shown = next(m for m in model.calls[1]["messages"] if isinstance(m, AIMessage))
    assert shown.content == '{"name": "lookup", "arguments": {"key": "paris"}}'
    assert [(c["name"], c["args"]) for c in shown.tool_calls] == [("lookup", {"key": "paris"})]
    sent = _convert_message_to_dict(shown)  # what an OpenAI-compatible client sends for it
    assert sent["content"] == '{"name": "lookup", "arguments": {"key": "paris"}}' and sent["tool_calls"]


@pytest.mark.parametrize("tool_calling", ["native", "json"])
def test_a_result_the_model_invents_after_its_call_is_not_shown_back(math_tools, log, tool_calling):
    """Seen on Qwen2.5-Coder-1.5B: the call as JSON, then "The result ... is 700932." (wrong); shown
    back beside the real result 7006652, the model answered with its own invention."""
    call = '{"name": "multiply", "arguments": {"a": 1234, "b": 5678}}'
    model = ScriptedChatModel(responses=[f"I will multiply.\n\n{call}\n\nThe result is 700932.", "7006652"])
    result = agent_for(model, math_tools, tool_calling=tool_calling).run("1234 * 5678?")
    shown = next(m for m in model.calls[1]["messages"] if isinstance(m, AIMessage))
    assert shown.content == f"I will multiply.\n\n{call}" and "700932" not in shown.content
    assert "700932" in result.trace.steps[0].written  # the trace keeps what the model wrote


def test_the_json_format_describes_tools_as_schemas_and_shows_the_reply_back(math_tools, log):
    model = ScriptedChatModel(responses=['{"name": "add", "arguments": {"a": 2, "b": 3}}', "5"])
    result = agent_for(model, math_tools, tool_calling="json").run("2+3?")
    assert log.calls == [("add", {"a": 2, "b": 3})] and result.final_answer == "5"
    system = model.calls[0]["messages"][0].content
    assert '{"name": "add", "description": "Add two integers.", "arguments": {"a": "integer", "b": "integer"}}' in system
    assert model.calls[0]["tools"] == [] and model.calls[0]["stop"] == ["\nObservation:"]
    assert [m.content for m in model.calls[1]["messages"][-2:]][0] == '{"name": "add", "arguments": {"a": 2, "b": 3}}'
    assert model.calls[1]["messages"][-1].content.startswith("Observation: 5")


def test_after_a_switch_the_newest_unreadable_reply_is_followed_by_the_text_formats_hint(math_tools, log):
    """A rejection is shown with the expected format of the turn that comes next, not of the turn
    that wrote it; a call of a tool that is not offered is shown as the call it was, never as a placeholder."""
    model = ScriptedChatModel(responses=['{"name": "count", "arguments": {"text": "x"}}', "Thought: done\nFinal Answer: 1"])
    agent_for(model, math_tools).run("How many?")
    shown = model.calls[1]["messages"]
    assert shown[-1].content.startswith("Observation: Error (tool_not_found): there is no tool 'count'")
    assert "Action: tool_name[input]" in shown[-1].content and "tool-calling interface" not in shown[-1].content
    assert "(none)" not in shown[-2].content and shown[-2].content == "Action: count[x]"


def test_a_reply_that_announces_a_call_without_making_it_is_not_the_answer(math_tools, log):
    model = ScriptedChatModel(
        responses=[
            "To answer this, I will use the lookup function with the key paris.",
            tool_call("lookup", {"key": "paris"}),
            "Paris is in France.",
        ]
    )
    result = agent_for(model, math_tools).run("Where is Paris?")
    assert result.final_answer == "Paris is in France." and log.calls == [("lookup", {"key": "paris"})]
    refused = result.trace.steps[0].observations[0]
    assert refused.error_kind == "non_answer" and "says it will call a tool" in refused.content


def test_a_give_up_that_says_what_it_would_call_is_a_give_up(math_tools, log):
    model = ScriptedChatModel(responses=["I cannot complete the task: we need to use a weather tool, and there is none."])
    result = agent_for(model, math_tools).run("Weather in Oslo?")
    assert result.termination_reason.value == "failure" and model.position == 1
