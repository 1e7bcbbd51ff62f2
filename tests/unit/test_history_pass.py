"""``history()`` in one forward pass (issue 30): each checkpoint read once, and the states it gives the same as
LangGraph's own rebuild of each checkpoint."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import AgentConfig, ReActAgent
from reactgraph.persistence.reading import thread_config
from reactgraph.testing import ScriptedChatModel, tool_calls


class CountingSaver(SqliteSaver):
    """SqliteSaver counting what is read: ``list`` calls, the checkpoints they yield, single-checkpoint reads
    and delta-channel walks."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.reset()

    def reset(self) -> None:
        self.lists = self.listed = self.tuples = self.walks = 0

    def list(self, config: Any, **options: Any) -> Iterator[Any]:
        self.lists += 1
        for item in super().list(config, **options):
            self.listed += 1
            yield item

    def get_tuple(self, config: Any) -> Any:
        self.tuples += 1
        return super().get_tuple(config)

    def get_delta_channel_history(self, *, config: Any, channels: Any) -> Any:
        self.walks += 1
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
    assert (saver.lists, saver.listed, saver.tuples, saver.walks) == (1, checkpoints, 0, 0)
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


def test_history_of_an_unknown_thread_raises(saver):
    from reactgraph.persistence.base import RunNotFoundError

    with pytest.raises(RunNotFoundError):
        agent_on(saver, 1).history("nobody")
