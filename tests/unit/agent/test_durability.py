"""``durability`` (LangGraph's own) as an AgentConfig option: when a run's checkpoints are written, counted in the
SQLite file."""

from __future__ import annotations

import sqlite3

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import AgentConfig, ReActAgent, TerminationReason
from reactgraph.config import ConfigError
from reactgraph.testing import ScriptedChatModel, tool_call


def three_lookups() -> ScriptedChatModel:
    return ScriptedChatModel(responses=[tool_call("lookup", {"n": n}) for n in range(3)] + ["The entries are 0, 1 and 2."], repeat_last=True)


def lookup(n: int) -> str:
    """Look up entry n."""
    return f"entry {n}"


def checkpoints(conn: sqlite3.Connection, thread: str) -> int:
    return conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread,)).fetchone()[0]


def run(conn: sqlite3.Connection, thread: str, agent_options: dict, run_options: dict) -> int:
    config = AgentConfig(allow_clarification=False)
    agent = ReActAgent(three_lookups(), [lookup], config, checkpointer=SqliteSaver(conn), **agent_options)
    assert agent.run("Look them up.", thread_id=thread, **run_options).termination_reason == TerminationReason.SUCCESS
    return checkpoints(conn, thread)


def test_sync_is_the_default_and_writes_every_step():
    assert AgentConfig().durability == "sync"


def test_each_mode_writes_as_langgraph_says(conn):
    every_step = run(conn, "sync", {}, {})
    assert run(conn, "async", {"durability": "async"}, {}) == every_step  # the same checkpoints, written later
    assert run(conn, "exit", {"durability": "exit"}, {}) < every_step / 4  # the input's and the end's
    assert run(conn, "run-exit", {}, {"durability": "exit"}) < every_step / 4  # a run's option over the agent's


def test_an_unknown_mode_is_a_config_error():
    with pytest.raises(ConfigError, match="durability"):
        AgentConfig(allow_clarification=False).override(durability="never")
