"""What a run stores of a tool result (issue 45, measured with 2 KB results): the chat's ToolMessage and the trace's
observation hold it, a finished turn's record leaves it to the chat, and the chat and the trace are stored whole
(a DeltaChannel's snapshot) at a doubling cadence, so the bytes stored per turn stay flat however long the run."""

from __future__ import annotations

import sqlite3
from typing import Annotated

from langchain_core.messages import ToolMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from reactgraph import AgentConfig, ReActAgent
from reactgraph.graph.conversation import chat_results, turn_record, turn_text, with_results
from reactgraph.state import DoublingDeltaChannel, append_batches
from reactgraph.testing import ScriptedChatModel, tool_call

MARK = "q7-ledger-"  # the start of every result: counted in the stored bytes


def ledger(n: int) -> str:
    """Read page n of the ledger (2,000 characters)."""
    head = f"{MARK}{n}: "
    return head + "x" * (2000 - len(head))


def two_turns(saver) -> ReActAgent:
    replies = [tool_call("ledger", {"n": n}, thought="Read on.") for n in range(5)]
    model = ScriptedChatModel(responses=[*replies, "Five pages read.", tool_call("ledger", {"n": 9}), "Page 9 read."])
    cfg = AgentConfig(max_iterations=8, stall_threshold=100, allow_clarification=False, summary_every=0)
    agent = ReActAgent(model, [ledger], cfg, checkpointer=saver)
    agent.run("Read five pages: 0, 1, 2, 3 and 4.", thread_id="t")
    agent.run("Now page 9.", thread_id="t")
    return agent


def test_a_finished_turns_record_leaves_its_tool_results_to_the_chat():
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    agent = two_turns(SqliteSaver(conn))
    stored = {channel: sum(value.count(MARK.encode()) for (value,) in conn.execute(
        "SELECT value FROM writes WHERE channel = ?", (channel,))) for channel in ("messages", "steps", "turns")}
    assert stored == {"messages": 6, "steps": 6, "turns": 0}  # 6 results: the chat's and the trace's copies only
    (first, second) = agent.conversation("t")
    observations = [o for step in first.trace.steps for o in step.observations]
    assert [o.content for o in observations] == [ledger(n) for n in range(5)]  # read back from the chat
    assert second.trace.steps[0].observations[0].content == ledger(9)
    values = agent.graph.get_state({"configurable": {"thread_id": "t"}}).values
    record = values["turns"][0]
    assert f"ledger returned: {MARK}0: " in turn_text(record, AgentConfig(), chat_results(values["messages"]))  # what a fold is given
    assert with_results(record, {})["steps"][0]["observations"][0]["content"] == ""  # a result the chat lost since


def test_a_result_the_trace_holds_otherwise_stays_in_the_turns_record():
    step = {"iteration": 1, "observations": [{"call_id": "a", "content": "cut, with a note"}, {"call_id": "b", "content": "as said"}]}
    chat = [ToolMessage("cut", tool_call_id="a"), ToolMessage("as said", tool_call_id="b")]
    record = turn_record({"messages": chat, "steps": [step], "question": "q"}, 1)
    assert record["steps"][0]["observations"] == [{"call_id": "a", "content": "cut, with a note"}, {"call_id": "b"}]
    assert with_results(record, chat_results(chat))["steps"] == [step]


def snapshots(channel: DeltaChannel, updates: int) -> list[int]:
    """The sizes of the snapshots LangGraph stores of a list channel written once per step, ``updates`` steps."""

    State = TypedDict("State", {"items": Annotated[list, channel], "n": int})  # noqa: UP013 — the channel is local
    graph = StateGraph(State)
    graph.add_node("add", lambda s: {"items": [len(s["items"])], "n": s["n"] + 1})
    graph.add_edge(START, "add")
    graph.add_conditional_edges("add", lambda s: END if s["n"] >= updates else "add")
    saver = InMemorySaver()
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": updates + 10}
    app.invoke({"items": [], "n": 0}, config)
    assert app.get_state(config).values["items"] == list(range(updates))  # the value is whole either way
    values = [c.checkpoint["channel_values"].get("items") for c in saver.list(config)]
    return sorted(len(v.value) for v in values if isinstance(v, _DeltaSnapshot))


def test_the_chat_and_the_trace_are_stored_whole_at_a_doubling_cadence():
    assert snapshots(DeltaChannel(append_batches, snapshot_frequency=4), 40) == [3, 7, 11, 15, 19, 23, 27, 31, 35, 39]
    doubling = snapshots(DoublingDeltaChannel(append_batches, snapshot_frequency=4), 40)
    assert doubling == [3, 7, 13, 25]  # the writes since a snapshot outnumber its items: about 2n items in all, not n²/8
    assert snapshots(DoublingDeltaChannel(append_batches, snapshot_frequency=50), 40) == []  # none before the floor
    channel = DoublingDeltaChannel(append_batches, list, snapshot_frequency=10)
    channel.update([list(range(30))])
    assert (channel.snapshot_frequency, channel.copy().snapshot_frequency) == (15, 15)
    assert channel.from_checkpoint(None).snapshot_frequency == 10  # a channel made anew starts at the floor
