"""Isolated tools that fight back (issue 27, items 5-8): a daemon that leaves the worker's tree and session, a
tool that raises its own limit, one that signals the agent or deletes its checkpoints, one that reads the
agent's secrets. Where the machine gives the workers no namespaces, the attacks the README says are not stopped
there are skipped, saying so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reactgraph import ReActAgent
from reactgraph.config import AgentConfig, ResourceLimits
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolPolicy, ToolRegistry
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation import WORKERS
from tests.adversarial import hostile_tools as hostile
from tests.unit.test_isolation import action, alive, recorded

WAIT = 20.0  # seconds: a bound on a wait, not an assertion on timing
ROOT = Path(__file__).resolve().parents[2]


def isolated(*functions, **policy) -> ToolRegistry:
    registry = ToolRegistry()
    for function in functions:
        registry.register(function, policy=ToolPolicy(isolation="process", **policy))
    return registry


def sandbox() -> str:
    """How this machine contains tool workers: 'namespaces' or 'session'."""
    worker = WORKERS.acquire()
    WORKERS.release(worker, True)
    return worker.sandbox


@pytest.fixture
def namespaces():
    if (mode := sandbox()) != "namespaces":
        pytest.skip(f"tool workers run in a {mode} here (no namespaces): the README says this attack is not stopped")


def test_a_double_forked_daemon_in_its_own_session_does_not_outlive_the_call(tmp_path):
    """Item 5: the tool clears the subreaper flag and double-forks into a new session."""
    pids = tmp_path / "pids"
    outcome = execute(action("daemonize", pids=str(pids)), isolated(hostile.daemonize), AgentConfig())
    assert outcome["status"] == "ok", outcome["content"]
    [daemon] = recorded(pids)
    deadline = time.monotonic() + WAIT
    while alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.02)
    if sandbox() == "session":
        pytest.skip("without namespaces a process that leaves the worker's session escapes (README)")
    assert not alive(daemon)


@pytest.fixture
def session_only():
    """Workers without namespaces, as on a machine that has none: the fallback, where the session is the bound."""
    WORKERS.close()
    WORKERS.namespaces = False
    yield
    WORKERS.namespaces = True
    WORKERS.close()


def test_without_namespaces_a_double_forked_orphan_in_the_session_is_killed(tmp_path, session_only):
    """Item 5, the fallback: the tool clears the subreaper flag and double-forks; its orphan leaves the worker's tree
    but not its session, which the kill covers."""
    pids = tmp_path / "pids"
    outcome = execute(action("orphan", pids=str(pids)), isolated(hostile.orphan), AgentConfig())
    assert outcome["status"] == "ok", outcome["content"]
    assert sandbox() == "session"
    [orphaned] = recorded(pids)
    deadline = time.monotonic() + WAIT
    while alive(orphaned) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(orphaned)


def test_without_namespaces_the_environment_is_still_only_the_allowed_one(monkeypatch, session_only):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak")
    outcome = execute(action("read_environment"), isolated(hostile.read_environment), AgentConfig())
    own, start_up = outcome["content"].split("\n")[:2]
    assert "sk-do-not-leak" not in own and "PATH" in own
    assert start_up.strip("\x00") == ""  # the start-up copy is wiped too


def test_a_tool_cannot_raise_its_own_memory_limit(namespaces):
    """Item 6: the limit was soft only; the tool raised it and held 400 MB under a 50 MB limit."""
    registry = ToolRegistry()
    registry.register(hostile.raise_limit_and_hog, policy=ToolPolicy(limits=ResourceLimits(memory_mb=50)))
    outcome = execute(action("raise_limit_and_hog", megabytes=400), registry, AgentConfig())
    assert outcome["error_kind"] == "resource_limit", outcome["content"]
    assert "memory_mb=50" in outcome["content"]


def test_a_tool_cannot_signal_the_agent(namespaces):
    """Item 7: the tool sent SIGTERM to the agent."""
    hits: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: hits.append(signum))
    try:
        outcome = execute(action("signal_agent", agent_pid=os.getpid()), isolated(hostile.signal_agent), AgentConfig())
        time.sleep(0.1)  # a signal sent would have arrived by now
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert hits == []
    assert outcome["content"].startswith("refused"), outcome["content"]


def test_a_tool_cannot_delete_the_agents_checkpoints(tmp_path, namespaces):
    """Item 7: the tool opened the agent's SQLite file and deleted the checkpoint rows."""
    db = tmp_path / "runs.sqlite"
    model = ScriptedChatModel(responses=["First answer.", tool_call("vandalize", {"db": str(db)}), "Done."])
    agent = ReActAgent(model=model, tools=isolated(hostile.vandalize), checkpointer=db, summary_every=0)
    with agent:
        assert agent.run("First?", thread_id="first").final_answer == "First answer."
        second = agent.run("Vandalize.", thread_id="second")
        observation = second.trace.steps[0].observations[0]
        assert observation.status == "error" and "readonly" in observation.content.replace("-", "").lower(), observation.content
        assert agent.get_result("first").final_answer == "First answer."  # the earlier run is intact


SECRETS_PROBE = """
import sys
from reactgraph.config import AgentConfig
from reactgraph.tools.execution import execute
from tests.adversarial.test_isolation import action, isolated, sandbox
from tests.adversarial import hostile_tools as hostile
outcome = execute(action("read_environment"), isolated(hostile.read_environment), AgentConfig())
print(sandbox())
print(outcome["content"])
"""


def test_a_tool_sees_none_of_the_agents_secrets():
    """Item 8: the tool saw the agent's whole environment, API keys included (the agent, and so its fork server,
    started with the key in its environment)."""
    env = dict(os.environ, OPENAI_API_KEY="sk-do-not-leak")
    probe = subprocess.run([sys.executable, "-c", SECRETS_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    mode, seen = probe.stdout.split("\n", 1)
    assert "PATH" in seen  # the allow-list's variables reach it
    if mode == "session":  # without namespaces, other processes' /proc/<pid>/environ stay readable (README)
        seen = "\n".join(seen.split("\n")[:2])  # its own environment and its start-up copy
    assert "sk-do-not-leak" not in seen
