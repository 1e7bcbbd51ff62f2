"""Tools that return a LangGraph ``Command`` and ``return_direct`` tools, as ``create_agent`` runs them on the same
script: the update merged (the ToolMessage as the call's result), ``goto=END`` ending the run, LangChain's
``TodoListMiddleware`` keeping its todos; what reactgraph's loop cannot do refused with the call's error."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentState, TodoListMiddleware
from langchain.tools import InjectedState, InjectedToolCallId, ToolRuntime, tool
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END
from langgraph.types import Command
from typing_extensions import TypedDict

from reactgraph import ReActAgent, TerminationReason
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from tests.unit.create_agent_peer import create_agent_run, final_text, observations, reactgraph_run, tool_results


class Prefs(TypedDict):
    unit: NotRequired[str]


class PrefsState(AgentState):
    unit: NotRequired[str]


@tool
def set_unit(unit: str, runtime: ToolRuntime) -> Command:
    """Set the user's preferred unit."""
    return Command(update={"unit": unit, "messages": [ToolMessage(f"unit set to {unit}", tool_call_id=runtime.tool_call_id)]})


@tool
def get_unit(unit: Annotated[str, InjectedState("unit")]) -> str:
    """The user's preferred unit."""
    return f"the unit is {unit}"


@tool(return_direct=True)
def lookup_answer(key: str) -> str:
    """The answer for a key, given to the user as it is."""
    return f"the answer for {key} is 42"


@tool
def finish(call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Finish the run."""
    return Command(goto=END, update={"messages": [ToolMessage("finished by the tool", tool_call_id=call_id)]})


def test_a_command_s_update_is_merged_as_in_create_agent():
    script = [tool_call("set_unit", {"unit": "celsius"}), tool_call("get_unit", {}), "done"]
    question = "Set my unit to celsius."
    state, _ = create_agent_run(script, [set_unit, get_unit], question, state_schema=PrefsState)
    result, _, agent = reactgraph_run(script, [set_unit, get_unit], question, agent_options={"state_schema": Prefs}, thread_id="t")
    assert observations(result) == tool_results(state) == ["unit set to celsius", "the unit is celsius"]
    assert state["unit"] == agent.graph.get_state({"configurable": {"thread_id": "t"}}).values["unit"] == "celsius"


def test_a_command_to_an_unknown_field_is_the_call_s_error():
    model = ScriptedChatModel(responses=[tool_call("set_unit", {"unit": "k"}), "Final Answer: done"])
    result = ReActAgent(model, [set_unit], checkpointer=None).run("Set my unit to k.")
    text = observations(result)[0]
    assert "'unit', which is no field of the agent's state" in text and "state_schema" in text


def test_a_command_to_reactgraph_s_own_fields_is_refused():
    @tool
    def meddle(runtime: ToolRuntime) -> Command:
        """Meddle."""
        return Command(update={"final_answer": "x", "messages": [ToolMessage("ok", tool_call_id=runtime.tool_call_id)]})

    model = ScriptedChatModel(responses=[tool_call("meddle", {}), "Final Answer: done"])
    result = ReActAgent(model, [meddle], checkpointer=None).run("go")
    assert "'final_answer', one of reactgraph's own" in observations(result)[0] and result.final_answer == "done"


def test_a_command_without_the_call_s_answer_is_refused():
    @tool
    def silent() -> Command:
        """Say nothing."""
        return Command(update={"messages": []})

    model = ScriptedChatModel(responses=[tool_call("silent", {}), "Final Answer: done"])
    result = ReActAgent(model, [silent], checkpointer=None).run("go")
    assert "no ToolMessage for the call" in observations(result)[0]


def test_a_goto_elsewhere_names_the_handoff():
    @tool
    def away(runtime: ToolRuntime) -> Command:
        """Go away."""
        return Command(goto="billing_agent", update={"messages": [ToolMessage("x", tool_call_id=runtime.tool_call_id)]})

    model = ScriptedChatModel(responses=[tool_call("away", {}), "Final Answer: done"])
    result = ReActAgent(model, [away], checkpointer=None).run("go")
    assert "'billing_agent', which is no node" in observations(result)[0] and "handoff_to" in observations(result)[0]


def test_goto_end_ends_the_run_with_the_result():
    """create_agent runs the tools node's own edge back to the model beside the goto (its model is asked again);
    reactgraph honours the END: the run ends with the tool's answer."""
    script = [tool_call("finish", {}), "asked again"]
    state, peer = create_agent_run(script, [finish])
    result, model, _ = reactgraph_run(script, [finish])
    assert final_text(state) == "asked again" and peer.position == 2
    assert result.final_answer == "finished by the tool" and model.position == 1
    assert result.termination_reason is TerminationReason.SUCCESS and "finish (Command(goto=END))" in result.termination_detail


def test_return_direct_ends_the_run_with_the_result_as_in_create_agent():
    script = [tool_call("lookup_answer", {"key": "life"}), "the model is not asked again"]
    state, peer = create_agent_run(script, [lookup_answer], "What is the answer for life?")
    result, model, _ = reactgraph_run(script, [lookup_answer], "What is the answer for life?")
    assert final_text(state) == result.final_answer == "the answer for life is 42"
    assert peer.position == model.position == 1  # neither asked the model again
    assert result.termination_reason is TerminationReason.SUCCESS
    assert result.termination_detail == "the tool's result is the answer: lookup_answer (return_direct)"
    assert result.trace.steps[-1].observations[0].tool == "lookup_answer"


def test_return_direct_beside_another_call_goes_on_as_in_create_agent():
    @tool
    def other() -> str:
        """Something else."""
        return "other"

    script = [tool_calls([("lookup_answer", {"key": "a"}), ("other", {})]), "both seen"]
    state, _ = create_agent_run(script, [lookup_answer, other])
    result, _, _ = reactgraph_run(script, [lookup_answer, other])
    assert final_text(state) == result.final_answer == "both seen"


def test_a_failed_return_direct_call_goes_back_to_the_model():
    @tool(return_direct=True)
    def broken(key: str) -> str:
        """Broken."""
        raise ValueError("no such key")

    model = ScriptedChatModel(responses=[tool_call("broken", {"key": "a"}), "Final Answer: could not"])
    result = ReActAgent(model, [broken], checkpointer=None).run("go")
    assert result.final_answer == "could not" and model.position == 2


def test_todo_list_middleware_keeps_its_todos_as_in_create_agent():
    todos: list[dict[str, Any]] = [{"content": "look it up", "status": "in_progress"}, {"content": "answer", "status": "pending"}]
    script = [tool_call("write_todos", {"todos": todos}, thought="Plan first."), "Final Answer: done"]
    question = "Look it up, then answer: what is the capital of Peru?"
    state, peer = create_agent_run(script, [], question, middleware=[TodoListMiddleware()])
    result, model, agent = reactgraph_run(script, [], question, agent_options={"middleware": [TodoListMiddleware()]}, thread_id="todo")
    assert observations(result) == tool_results(state) == [f"Updated todo list to {todos}"]
    assert agent.graph.get_state({"configurable": {"thread_id": "todo"}}).values["todos"] == state["todos"] == todos
    assert "write_todos" in model.calls[0]["tools"]
    system = model.calls[0]["messages"][0]
    assert "## `write_todos`" in system.text and "## `write_todos`" in peer.calls[0]["messages"][0].text


def test_todo_list_middleware_refuses_parallel_writes_as_in_create_agent():
    script = [AIMessage("", tool_calls=[
        {"name": "write_todos", "args": {"todos": [{"content": "a", "status": "pending"}]}, "id": "w1", "type": "tool_call"},
        {"name": "write_todos", "args": {"todos": [{"content": "b", "status": "pending"}]}, "id": "w2", "type": "tool_call"},
    ]), "Final Answer: done"]
    state, _ = create_agent_run(script, [], middleware=[TodoListMiddleware()])
    result, _, _ = reactgraph_run(script, [], agent_options={"middleware": [TodoListMiddleware()]})
    assert len(tool_results(state)) == len(observations(result)) == 2
    assert all("never be called multiple times" in t for t in tool_results(state))
    assert all("never be called multiple times" in t for t in observations(result))
    assert "todos" not in state
