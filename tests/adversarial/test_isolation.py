"""Isolated tools that fight back (issue 27, items 5-8): a daemon that leaves the worker's tree and session, a
tool that raises its own limit, one that signals the agent or deletes its checkpoints, one that reads the
agent's secrets; and (issue 42, items 1-3) one that makes a journal beside the databases, one that leaves a thread
behind, one that patches the worker's modules for the next agent. Where the machine gives the workers no
namespaces, the attacks docs/tools.md says are not stopped there are skipped, saying so."""

from __future__ import annotations

import json
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
from tests.unit.tools.isolation import isolated_tools as tools
from tests.unit.tools.isolation.test_isolation import action, alive, ended, recorded

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
        pytest.skip(f"tool workers run in a {mode} here (no namespaces): docs/tools.md says this attack is not stopped")


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
        pytest.skip("without namespaces a process that leaves the worker's session escapes (docs/tools.md)")
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
    """Item 7: the tool opened the agent's SQLite file and deleted the checkpoint rows. (The file is not there for the
    tool since issue 42, nor can it be made: the directory is read-only for it.)"""
    db = tmp_path / "runs.sqlite"
    model = ScriptedChatModel(responses=["First answer.", tool_call("vandalize", {"db": str(db)}), "Done."])
    agent = ReActAgent(model=model, tools=isolated(hostile.vandalize), checkpointer=db, summary_every=0)
    with agent:
        assert agent.run("First?", thread_id="first").final_answer == "First answer."
        second = agent.run(f"Vandalize {db}.", thread_id="second")
        observation = second.trace.steps[0].observations[0]
        assert observation.status == "error" and "unable to open database file" in observation.content, observation.content
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
    if mode == "session":  # without namespaces, other processes' /proc/<pid>/environ stay readable (docs/tools.md)
        seen = "\n".join(seen.split("\n")[:2])  # its own environment and its start-up copy
    assert "sk-do-not-leak" not in seen


# -- issue 42: the attacks of the second round ---------------------------------------------------------------------


def test_a_tool_finds_no_database_to_read_or_to_make_a_journal_beside(tmp_path, namespaces):
    """Item 1: the tool read the databases' paths in /proc/self/mountinfo and made ``checkpoints.sqlite-journal``
    beside the checkpoints (a path never mounted read-only): every write then failed with "database is locked", and
    once the agent's process exited the file was "malformed" and `reactgraph runs` refused it. The playbook's too."""
    home = tmp_path / ".reactgraph"
    databases = [str(home / "checkpoints.sqlite"), str(home / "playbook.sqlite")]
    script = f"""
import sys
from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.adversarial import hostile_tools as hostile
from tests.adversarial.test_isolation import isolated
model = ScriptedChatModel(responses=[
    "First answer.", tool_call("tamper_beside", {{"databases": {databases!r}}}), "Tampered.", "Third answer.",
])
with ReActAgent(model=model, tools=isolated(hostile.tamper_beside), checkpointer={databases[0]!r}, playbook=True,
                summary_every=0) as agent:
    agent.run("First?", thread_id="first")
    print(agent.run("Tamper with the checkpoints.", thread_id="second").trace.steps[0].observations[0].content)
    print("THIRD", agent.run("Third?", thread_id="third").final_answer)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = done.stdout
    assert "mountinfo names them: []" in seen  # not even their names
    for db in databases:
        assert f"read {db}: refused (No such file or directory)" in seen
        assert f"journal {db}-journal: refused (Read-only file system)" in seen
        assert not Path(f"{db}-journal").exists()
    assert "THIRD Third answer." in seen  # the agent went on, its database unlocked
    runs = subprocess.run([sys.executable, "-m", "reactgraph.cli", "runs", "--json", "--db", databases[0]],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert runs.returncode == 0, runs.stderr
    assert sorted(run["thread_id"] for run in json.loads(runs.stdout)) == ["first", "second", "third"]


def test_a_thread_a_tool_started_ends_with_its_call(tmp_path):
    """Item 2: a thread the tool started wrote a file 1.5 s after the call returned: the worker was reused, and the
    thread ran on in it. Each call runs in a process of its own now, which ends with the call, threads and all."""
    written = tmp_path / "written"
    registry = isolated(hostile.lingering_thread, tools.served_by)
    outcome = execute(action("lingering_thread", path=str(written), after=1.5), registry, AgentConfig())
    assert outcome["status"] == "ok", outcome["content"]
    call = outcome["content"].rsplit(" ", 1)[1]
    assert ended(call)  # its process has ended, and the thread with it
    time.sleep(3.0)  # twice the thread's wait: a bound, not a timing assertion
    assert not written.exists()
    after = execute(action("served_by", label="next"), registry, AgentConfig())  # the worker serves on
    assert after["status"] == "ok" and after["content"].startswith("next: pid ")


def test_a_tool_that_patches_the_workers_modules_forges_nothing_for_the_next_call_or_another_agent():
    """Item 3: agent A's tool patched the shared worker's module; agent B's price then said 'FORGED 2.8'. A call
    changes nothing its worker keeps, and a worker serves one agent's tools only."""

    def agent(*tools_of_it, responses):
        return ReActAgent(model=ScriptedChatModel(responses=responses), tools=isolated(*tools_of_it), checkpointer=None,
                          summary_every=0)

    forger = agent(hostile.forge_prices, hostile.price, tools.served_by, responses=[
        tool_call("forge_prices", {"item": "tea"}), tool_call("price", {"item": "tea"}),
        tool_call("served_by", {"label": "a"}), "done",
    ])
    victim = agent(hostile.price, tools.served_by, responses=[
        tool_call("price", {"item": "tea"}), tool_call("served_by", {"label": "b"}), "done",
    ])
    forged = [step.observations[0].content for step in forger.run("Forge the price of tea, then say who serves a.").trace.steps[:3]]
    assert forged[:2] == ["forged the price of tea", "2.8"]  # its own next call is not forged either
    seen = [step.observations[0].content for step in victim.run("Price of tea? Then say who serves b.").trace.steps[:2]]
    assert seen[0] == "2.8"
    worker_a, worker_b = (content.split(" of ")[1] for content in (forged[2], seen[1]))
    assert worker_a != worker_b  # never the same worker for agents with other tools
