"""The thread's chat ``messages``: each turn's tool calls and results as AI and Tool messages, so chat
views (Studio, Agent Chat UI) show the run; their ids survive the checkpoint's replay."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from reactgraph import ReActAgent, build_graph
from reactgraph import TerminationReason as R
from reactgraph.config import AgentConfig
from reactgraph.state import add_message_batches
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls


def long_text(n: int) -> str:
    """Return n characters of text."""
    return "y" * n


def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def test_a_run_puts_its_calls_and_results_in_the_chat(math_tools, tmp_path):
    two = tool_calls([("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4})], thought="First the two products.")
    script = [two, tool_call("add", {"a": 42, "b": 8}, thought="Now the sum."), "6*7 + 2*4 = 50."]
    graph = build_graph(ScriptedChatModel(responses=script), math_tools)
    out = graph.invoke({"messages": [{"role": "user", "content": "What is 6*7 + 2*4?"}]})
    chat = out["messages"]
    assert [type(m) for m in chat] == [HumanMessage, AIMessage, ToolMessage, ToolMessage, AIMessage, ToolMessage, AIMessage]
    first, second = chat[1], chat[4]
    assert first.content == "First the two products."
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4})]
    assert {m.tool_call_id for m in chat[2:4]} == {c["id"] for c in first.tool_calls}  # each call answered
    assert sorted(m.content for m in chat[2:4]) == ["42", "8"]
    assert second.content == "Now the sum." and chat[5].tool_call_id == second.tool_calls[0]["id"]
    assert chat[5].content == "50" and chat[5].name == "add" and chat[5].status == "success"
    assert chat[-1].content == "6*7 + 2*4 = 50." and not chat[-1].tool_calls


def test_a_failed_call_is_an_error_tool_message_and_long_results_are_cut():
    script = [tool_calls([("divide", {"a": 1, "b": 0}), ("long_text", {"n": 50_000})]), "Done."]
    graph = build_graph(ScriptedChatModel(responses=script), [divide, long_text], AgentConfig(max_observation_tokens=100))
    chat = graph.invoke({"query": "Try both: divide 1 by 0, and get 50000 characters of text."})["messages"]
    failed, long = sorted((m for m in chat if isinstance(m, ToolMessage)), key=lambda m: m.name)
    assert failed.name == "divide" and failed.status == "error" and "ZeroDivisionError" in failed.content
    assert long.status == "success" and len(long.content) < 600 and "characters truncated" in long.content


def test_a_reply_that_is_not_a_call_adds_no_message_and_a_query_is_the_human_message(math_tools):
    """A question sent as ``query`` goes into the chat as the human message (a chat view shows what was
    asked); an unreadable reply adds nothing."""
    graph = build_graph(ScriptedChatModel(responses=["", "42"]), math_tools, AgentConfig(answer_checks=0))  # an empty reply is sent back
    out = graph.invoke({"query": "What is 6*7?"})
    assert [(m.type, m.content) for m in out["messages"]] == [("human", "What is 6*7?"), ("ai", "42")]


def test_message_ids_survive_a_reload_and_a_paused_run_resumes(math_tools, tmp_path):
    """The channel is rebuilt from its writes: a question sent without an id keeps the id it was
    given, so a new process resumes the paused run instead of starting it again."""
    db = tmp_path / "runs.sqlite"
    model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which city?"}), "Rome is in Italy."])
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as agent:
        agent.graph.invoke({"messages": [{"role": "user", "content": "Where is the city?"}]}, {"configurable": {"thread_id": "t"}})
        ids = [m.id for m in agent.graph.get_state({"configurable": {"thread_id": "t"}}).values["messages"]]
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as again:
        assert [m.id for m in again.graph.get_state({"configurable": {"thread_id": "t"}}).values["messages"]] == ids
        done = again.resume("t", "Rome")
    assert done.termination_reason is R.SUCCESS and done.question == "Where is the city?"
    assert done.trace.total_iterations == 2 and model.calls[-1]["messages"]  # the same run went on


def test_the_reducer_is_batching_invariant_and_keeps_explicit_ids():
    a, b = {"role": "user", "content": "one"}, AIMessage("two", id="mine")
    c = HumanMessage("three")
    one_by_one = add_message_batches(add_message_batches([], [[a]]), [[b], [c]])
    at_once = add_message_batches([], [[a], [b], [c]])
    assert [(m.id, m.content) for m in one_by_one] == [(m.id, m.content) for m in at_once]
    assert one_by_one[1].id == "mine" and all(m.id for m in one_by_one)
    assert add_message_batches(one_by_one, [[AIMessage("replaced", id="mine")]])[1].content == "replaced"


def test_merged_is_add_messages():
    """``merged`` builds the appended list itself only where ``add_messages`` would append; every case gives the
    same messages as ``add_messages``, in a new list."""
    from langchain_core.messages import AIMessageChunk, RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages

    from reactgraph.state import merged

    chat = [HumanMessage("q", id="q"), AIMessage("a", id="a"), ToolMessage("r", tool_call_id="c", id="t")]
    cases = [
        [AIMessage("new", id="n1"), ToolMessage("new", tool_call_id="c", id="n2")],  # appended
        [],
        [AIMessage("replaced", id="a")],  # an id the chat has
        [AIMessage("twice", id="n"), AIMessage("again", id="n")],  # one id twice
        [RemoveMessage(id="t")],
        [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="f")],
        [AIMessageChunk("chunk", id="k")],
    ]
    for incoming in cases:
        expected = add_messages(list(chat), list(incoming))
        got = merged(chat, incoming)
        assert got == expected and got is not chat, incoming
    assert [m.id for m in chat] == ["q", "a", "t"]  # not changed
    with pytest.raises(ValueError):
        merged(chat, [RemoveMessage(id="nowhere")])
    unnamed = [HumanMessage("no id yet")]  # add_messages gives it an id: not appended as it is
    assert merged(unnamed, [AIMessage("x", id="x")])[0].id is not None
    state = [HumanMessage("q", id="q")]
    assert add_message_batches(state, []) == state and add_message_batches(state, []) is not state


def test_a_chat_merged_built_has_its_ids_kept_and_one_changed_in_place_is_read_again(monkeypatch):
    """Each write onto a chat ``merged`` built reads the ids of the incoming messages only (a history replays a write
    per step: gathering the whole chat's each time made the read quadratic); a chat changed in place since is read
    whole again, so an id it now has is still replaced, as ``add_messages`` does."""
    from langgraph.graph.message import add_messages

    import reactgraph.state._reducers as state_module

    read: list[str] = []
    monkeypatch.setattr(state_module, "_ID", lambda m: read.append(m.id) or m.id)
    chat = [HumanMessage(f"m{i}", id=f"m{i}") for i in range(100)]
    first = state_module.merged(chat, [AIMessage("a", id="a")])
    assert len(read) == 101  # the chat's, once
    read.clear()
    second = state_module.merged(first, [AIMessage("b", id="b")])
    assert read == ["b"] and [m.id for m in second][-3:] == ["m99", "a", "b"]
    second[-1] = AIMessage("now m5", id="m5")  # changed in place: its kept ids are stale
    read.clear()
    incoming = [AIMessage("replaces m5", id="m5")]
    assert state_module.merged(second, incoming) == add_messages(list(second), incoming) and len(read) == 103
