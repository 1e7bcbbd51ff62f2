"""``history()`` in one forward pass (issue 30): each checkpoint read once, and the states it gives the same as
LangGraph's own rebuild of each checkpoint."""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from reactgraph import AgentConfig, ReActAgent
from reactgraph.graph.conversation import LastHumans, last_human, turn_of
from reactgraph.persistence._replay import DeferredSnapshot, LoadedThread, deferring_snapshots
from reactgraph.persistence.reading import thread_config
from reactgraph.state import append_batches
from reactgraph.testing import ScriptedChatModel, tool_calls


class CountingSaver(SqliteSaver):
    """SqliteSaver counting what is read: ``list`` calls, the checkpoints they yield, single-checkpoint reads
    and delta-channel walks (in ``counts``, which a shallow clone of the saver shares)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.counts: Counter[str] = Counter()

    def reset(self) -> None:
        self.counts.clear()

    @property
    def reads(self) -> tuple[int, int, int, int]:
        return self.counts["lists"], self.counts["listed"], self.counts["tuples"], self.counts["walks"]

    def list(self, config: Any, **options: Any) -> Iterator[Any]:
        self.counts["lists"] += 1
        for item in super().list(config, **options):
            self.counts["listed"] += 1
            yield item

    def get_tuple(self, config: Any) -> Any:
        self.counts["tuples"] += 1
        return super().get_tuple(config)

    def get_delta_channel_history(self, *, config: Any, channels: Any) -> Any:
        self.counts["walks"] += 1
        return super().get_delta_channel_history(config=config, channels=channels)


def looker(iterations: int) -> ScriptedChatModel:
    """Two lookups in parallel per iteration, ``iterations`` times, then an answer (and so again for each turn)."""
    turns = iter(range(1, 10_000))

    def reply(messages: list[Any]) -> Any:
        if "running notes" in messages[0].text:  # the summary's prompt
            return "Notes: looked up entries."
        n = next(turns)
        if n % (iterations + 1) == 0:
            return "Done."
        return tool_calls([("lookup", {"n": n}), ("lookup", {"n": -n})], thought=f"Look up {n}.")

    return ScriptedChatModel(responses=[reply], repeat_last=True)


def lookup(n: int) -> str:
    """Look up entry n."""
    return f"entry {n}"


@pytest.fixture
def saver(tmp_path) -> Iterator[CountingSaver]:
    conn = sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False)
    yield CountingSaver(conn)
    conn.close()


def agent_on(saver: CountingSaver, iterations: int) -> ReActAgent:
    config = AgentConfig(max_iterations=iterations + 1, stall_threshold=100, allow_clarification=False, summary_every=2)
    return ReActAgent(looker(iterations), [lookup], config, checkpointer=saver)


@pytest.mark.parametrize("iterations", [3, 12])
def test_history_reads_each_checkpoint_once(saver, iterations):
    agent = agent_on(saver, iterations)
    agent.run("Look them up.", thread_id="t")
    checkpoints = len(list(saver.list({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})))
    saver.reset()
    entries = agent.history("t")
    assert saver.reads == (1, checkpoints, 0, 0)
    assert len(entries) == checkpoints  # one branch: every checkpoint is an entry


def test_history_states_are_langgraphs_own(saver):
    """Parallel writes, summaries, a second turn and a fork: every entry's values are what ``get_state`` rebuilds
    for that checkpoint through the saver's own delta-channel walk."""
    agent = agent_on(saver, 4)
    agent.run("Look them up.", thread_id="t")
    agent.run("And again?", thread_id="t")
    agent.fork("t", turn=2, iteration=2)
    entries = agent.history("t")
    assert {e.turn for e in entries} == {1, 2}
    assert len({len(e.values.get("messages") or []) for e in entries}) > 10
    for entry in entries:
        assert entry.values == agent.graph.get_state(thread_config("t", entry.checkpoint_id)).values, entry.step
        assert entry.turn == turn_of(entry.values, entry.next), entry.step  # LastHumans gives what a full scan does


def test_last_humans_follows_the_chat_as_last_human_scans_it():
    question, again = HumanMessage("Look it up.", id="q1"), HumanMessage("And again?", id="q2")
    steps = [AIMessage("", id=f"a{i}") for i in range(4)]
    chats = [
        [question],
        [question, steps[0]],
        [question, steps[0], steps[1]],
        [question, steps[0], steps[1]],  # an equal list, not the same one
        [question, steps[0], steps[1], again],
        [question, steps[0], steps[1], again, steps[2]],
        [question, steps[0], steps[2]],  # not an extension (a message replaced): scanned whole
        [question, steps[0], steps[2], HumanMessage("  ", id="blank")],  # no text: not a question
        [steps[3]],
        [],
    ]
    humans = LastHumans()
    for chat in chats:
        assert humans({"messages": chat}) is last_human({"messages": chat}), chat


def test_history_of_an_unknown_thread_raises(saver):
    from reactgraph.persistence.base import RunNotFoundError

    with pytest.raises(RunNotFoundError):
        agent_on(saver, 1).history("nobody")


class Counted(TypedDict):
    items: Annotated[list, DeltaChannel(append_batches, snapshot_frequency=3)]
    n: int


def counting_graph(saver: SqliteSaver) -> Any:
    """A step appending ``n`` to a delta channel that stores its whole value every 3 updates, to n = 12."""
    builder = StateGraph(Counted)
    builder.add_node("step", lambda state: {"items": [state["n"]], "n": state["n"] + 1})
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda state: "step" if state["n"] < 12 else END)
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_snapshots_are_decoded_only_where_the_parent_cannot_stand_in(saver, monkeypatch, durability):
    """Periodic snapshots are built from the parent's value and writes, not decoded; those of a fork
    (``update_state`` at an earlier checkpoint, a run from a checkpoint that has children) and, with
    ``durability="exit"`` (no writes between its checkpoints), all of them are decoded; every state equals
    ``get_state``'s through the saver's own walk."""
    graph, config = counting_graph(saver), {"configurable": {"thread_id": "t"}}
    decoded: list[int] = []
    monkeypatch.setattr(DeferredSnapshot, "decoded", lambda self, real=DeferredSnapshot.decoded: decoded.append(1) or real(self))

    def replayed_as_langgraph_does() -> int:
        """The thread's snapshots left encoded; each state compared with ``get_state``'s."""
        decoded.clear()
        loaded = LoadedThread.read(saver, "t", graph.channels)
        states = list(graph.copy({"checkpointer": loaded}).get_state_history(config))
        assert len(states) == len(list(saver.list(config)))
        for state in states:
            assert state.values == graph.get_state(state.config).values, state.metadata
        return len(loaded._deferred)

    graph.invoke({"n": 0, "items": []}, config, durability=durability)
    graph.invoke({"n": 6}, config, durability=durability)  # a second run on the thread, from its input
    snapshots = replayed_as_langgraph_does()
    assert len(decoded) == (snapshots if durability == "exit" else 0)  # exit: no writes between its checkpoints
    first = list(graph.get_state_history(config))
    graph.invoke(None, graph.update_state(first[min(6, len(first) - 1)].config, {"items": [100]}, as_node="step"))
    graph.invoke(None, first[-min(4, len(first))].config, durability=durability)
    snapshots = replayed_as_langgraph_does()
    assert 0 < len(decoded) == snapshots if durability == "exit" else 1 < len(decoded) < snapshots


def python_lines(call: Any) -> tuple[int, Any]:
    """The Python lines ``call()`` runs (``sys.settrace``'s line events, in comprehensions too), with its result:
    the Python-level work, the same on any machine."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "line"
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = call()
    finally:
        sys.settrace(previous)
    return count, result


def test_history_work_per_checkpoint_does_not_grow_with_the_run(tmp_path):
    """The Python lines history() runs per checkpoint stay the same from 8 to 60 iterations (the chat past its
    first snapshot): no step of it walks the chat, the trace or the checkpoints before. Before branch
    issue-30-history: 3,139 and 3,520 (+12%: the chat's merge, the scan for its last question, the snapshots'
    decoding); after: 3,073 and 3,056."""
    per_checkpoint = []
    for iterations in (8, 60):
        conn = sqlite3.connect(tmp_path / f"runs-{iterations}.sqlite", check_same_thread=False)
        agent = agent_on(CountingSaver(conn), iterations)
        agent.run("Look them up.", thread_id="t")
        agent.history("t")
        lines, entries = python_lines(lambda agent=agent: agent.history("t"))
        per_checkpoint.append(lines / len(entries))
        conn.close()
    assert per_checkpoint[1] <= 1.03 * per_checkpoint[0], per_checkpoint


class OtherSerde:
    """A serde that is not LangGraph's JsonPlusSerializer (it delegates to one)."""

    def __init__(self) -> None:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        self.inner = JsonPlusSerializer()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return self.inner.dumps_typed(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self.inner.loads_typed(data)


def test_a_saver_with_another_serde_is_read_with_it(tmp_path):
    """Its snapshots are decoded as it decodes them, and the states are still ``get_state``'s."""
    conn = sqlite3.connect(tmp_path / "other.sqlite", check_same_thread=False)
    other = SqliteSaver(conn, serde=OtherSerde())
    graph, config = counting_graph(other), {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 0, "items": []}, config)
    assert deferring_snapshots(other) is other
    loaded = LoadedThread.read(other, "t", graph.channels)
    assert not loaded._deferred
    for state in graph.copy({"checkpointer": loaded}).get_state_history(config):
        assert state.values == graph.get_state(state.config).values
    conn.close()


@pytest.mark.parametrize("collecting", [True, False])
def test_history_reads_with_the_collector_paused_and_leaves_it_as_it_was(collecting, monkeypatch, tmp_path):
    import gc

    from reactgraph.persistence import _replay as replay

    seen: list[bool] = []
    read = replay.LoadedThread.read
    monkeypatch.setattr(replay.LoadedThread, "read", classmethod(lambda cls, *a: seen.append(gc.isenabled()) or read(*a)))
    agent = ReActAgent(looker(2), [lookup], checkpointer=tmp_path / "runs.sqlite")
    agent.run("Look two up.", thread_id="t")
    (gc.enable if collecting else gc.disable)()
    try:
        assert len(agent.history("t")) > 5
        assert seen == [False] and gc.isenabled() is collecting
    finally:
        gc.enable()


def test_overlapping_reads_leave_the_collector_as_the_first_found_it():
    import gc

    from reactgraph.persistence._replay import collector_paused

    assert gc.isenabled()
    first, second = collector_paused(), collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first read ends while the second goes on: still off
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()
