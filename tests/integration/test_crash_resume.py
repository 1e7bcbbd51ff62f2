"""Fault injection: SIGKILL a real run at several points, resume it in a new process.

Each case starts crash_worker.py (a real graph on a real SQLite or Postgres checkpointer), waits until
the worker is blocked at the chosen point (and the checkpoint shows it is there), kills it
with SIGKILL, resumes the thread in a new process, and checks the same final answer, every
tool call executed exactly once, and a complete trace without duplicates.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reactgraph import ReActAgent
from reactgraph.state import iteration_of
from tests.unit.tools.isolation.test_isolation import alive

WORKER = Path(__file__).with_name("crash_worker.py")
WAIT_LIMIT = 60.0  # seconds: a bound on each wait, not an assertion on timing
EXPECTED_ACTIONS = [["call_a", "call_b"], ["call_c"], ["call_d"]]


def worker(db: str | Path, thread: str, side: Path, *extra: str) -> list[str]:
    return [sys.executable, str(WORKER), str(db), thread, str(side), *extra]


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"worker exited ({proc.returncode}) before {what}: {proc.stderr.read()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def run_to_end(args: list[str]) -> dict:
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def executions(side: Path) -> list[str]:
    log = side / "executions.log"
    return log.read_text().split() if log.exists() else []


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """The result of the same run without a crash."""
    side = tmp_path_factory.mktemp("reference")
    result = run_to_end(worker(side / "db.sqlite", "ref", side))
    assert sorted(executions(side)) == ["a", "b", "c", "d"]
    return result


def pending_outcome_calls(agent: ReActAgent, thread: str) -> set[str]:
    """The call ids whose outcomes (act's ToolMessages) are stored as pending writes of the latest checkpoint."""
    item = agent.checkpointer.get_tuple({"configurable": {"thread_id": thread}})
    return {value[0].tool_call_id for _, channel, value in (item.pending_writes if item else []) if channel == "messages"}


# point -> (the nodes still to run from the latest checkpoint, its iteration, executions before the kill).
# In the parallel turn fetch(a)'s task has its write stored, so only fetch(b)'s act task is left.
CASES = {
    "mid_parallel_act": (("act",), 1, ["a"]),
    "before_act": (("act",), 2, ["a", "b"]),
    "during_summarize": (("summarize",), 2, ["a", "b", "c"]),
    "after_observe": (("think",), 3, ["a", "b", "c", "d"]),
}


@pytest.mark.parametrize("point", list(CASES))
def test_killed_run_resumes_in_new_process(point, tmp_path, reference):
    db, side, thread = tmp_path / "db.sqlite", tmp_path, f"crash-{point}"
    proc = subprocess.Popen(worker(db, thread, side, "--block-at", point), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for((side / "blocked").exists, proc, f"the worker to block at {point}")
        next_nodes, iteration, done_before = CASES[point]
        with ReActAgent(checkpointer=db) as inspector:
            if point == "mid_parallel_act":  # fetch(a) finished: wait until its outcome is on disk
                wait_for(lambda: pending_outcome_calls(inspector, thread) == {"call_a"}, proc, "fetch(a)'s checkpoint write")
            snapshot = inspector.graph.get_state({"configurable": {"thread_id": thread}})
            assert snapshot.next == next_nodes
            assert iteration_of(snapshot.values) == iteration
        assert sorted(executions(side)) == done_before
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=WAIT_LIMIT)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    resumed = run_to_end(worker(db, thread, side, "--resume"))

    assert resumed["termination_reason"] == reference["termination_reason"] == "success"
    assert resumed["final_answer"] == reference["final_answer"]
    assert sorted(executions(side)) == ["a", "b", "c", "d"]  # each tool call exactly once
    steps = resumed["trace"]["steps"]
    assert [(s["iteration"], s["kind"]) for s in steps] == [(1, "tools"), (2, "tools"), (3, "tools"), (4, "final")]
    steps = steps[:-1]
    assert [[a["id"] for a in s["actions"]] for s in steps] == EXPECTED_ACTIONS
    assert [[o["content"] for o in s["observations"]] for s in steps] == [
        [o["content"] for o in s["observations"]] for s in reference["trace"]["steps"][:-1]
    ]
    assert resumed["summary"] == reference["summary"]
    assert resumed["tool_usage"] == {"fetch": 4}


def kill_mid_parallel_act(db: str | Path, thread: str, side: Path, *flags: str) -> subprocess.Popen:
    """Start the worker with ``flags``, wait until fetch(b) blocks and fetch(a)'s outcome is a pending
    write of the checkpoint, then SIGKILL it; the killed process."""
    proc = subprocess.Popen(
        worker(db, thread, side, *flags, "--block-at", "mid_parallel_act"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for((side / "blocked").exists, proc, "fetch(b) to block")
        with ReActAgent(checkpointer=db) as inspector:
            wait_for(lambda: pending_outcome_calls(inspector, thread) == {"call_a"}, proc, "fetch(a)'s checkpoint write")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=WAIT_LIMIT)
        proc.stdout.close()
        proc.stderr.close()
    return proc


def test_a_run_killed_on_one_worker_resumes_on_another_on_postgres(postgres_url, tmp_path, reference):
    """The same kill in the middle of a parallel turn, on a Postgres database: another process resumes the
    run, fetch(a), whose outcome was stored before the kill, is not run again."""
    thread = "crash-postgres"
    proc = kill_mid_parallel_act(postgres_url, thread, tmp_path)
    assert proc.returncode == -signal.SIGKILL and executions(tmp_path) == ["a"]

    resumed = run_to_end(worker(postgres_url, thread, tmp_path, "--resume"))

    assert resumed["termination_reason"] == "success" and resumed["final_answer"] == reference["final_answer"]
    assert sorted(executions(tmp_path)) == ["a", "b", "c", "d"]  # each tool call exactly once
    assert [[a["id"] for a in s["actions"]] for s in resumed["trace"]["steps"][:-1]] == EXPECTED_ACTIONS
    assert resumed["summary"] == reference["summary"] and resumed["tool_usage"] == {"fetch": 4}


def test_an_approved_call_that_finished_before_a_kill_is_not_run_again(tmp_path):
    """Every fetch waits for approval; both calls of the parallel turn are approved, fetch(a) runs,
    the process is killed in fetch(b). The resumed run (approve_tools is a stored run option) does
    not run fetch(a) again; fetch(b), whose approval died with the process, is asked about again."""
    db, side, thread = tmp_path / "db.sqlite", tmp_path, "crash-approval"
    kill_mid_parallel_act(db, thread, side, "--approve")
    assert executions(side) == ["a"]

    resumed = run_to_end(worker(db, thread, side, "--approve", "--resume"))

    assert resumed["termination_reason"] == "success"
    assert sorted(executions(side)) == ["a", "b", "c", "d"]  # each approved call ran exactly once
    assert (side / "approvals.log").read_text().split() == ["call_a", "call_b", "call_b", "call_c", "call_d"]
    assert [[a["id"] for a in s["actions"]] for s in resumed["trace"]["steps"][:-1]] == EXPECTED_ACTIONS


def test_a_call_in_a_worker_process_that_finished_before_a_kill_is_not_run_again(tmp_path):
    """fetch runs in worker processes (--isolated); the agent is killed while fetch(b) blocks in its worker.
    The workers die with the agent; the resumed run runs fetch(b), (c) and (d) once each, and fetch(a) not again.
    The database is in a directory of its own: isolated tools cannot write in a database's directory."""
    db, side, thread = tmp_path / "runs" / "db.sqlite", tmp_path, "crash-isolated"
    db.parent.mkdir()
    proc = kill_mid_parallel_act(db, thread, side, "--isolated")
    workers = (side / "pids").read_text().split()
    assert len(set(workers)) == 2 and not any(w.startswith(f"{proc.pid}@") for w in workers)  # each in a worker process
    deadline = time.monotonic() + WAIT_LIMIT
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(alive(w) for w in workers)  # they die with the agent (through the fork server)
    assert executions(side) == ["a"]

    resumed = run_to_end(worker(db, thread, side, "--isolated", "--resume"))

    assert resumed["termination_reason"] == "success"
    assert sorted(executions(side)) == ["a", "b", "c", "d"]  # each call exactly once
    assert resumed["tool_usage"] == {"fetch": 4}
    assert [[a["id"] for a in s["actions"]] for s in resumed["trace"]["steps"][:-1]] == EXPECTED_ACTIONS
