"""A cancel from another process, through the database, stops a run after its current step (SQLite and Postgres).

The run (cancel_worker.py) is in its own process, blocked inside its first tool call; the test process
cancels it with a second agent on the same database, or with `reactgraph cancel`, then lets the call
finish. Without the cancel the run would go on to max_iterations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from reactgraph import ReActAgent

WORKER = Path(__file__).with_name("cancel_worker.py")
ROOT = Path(__file__).resolve().parents[2]
WAIT_LIMIT = 60.0  # seconds: a bound on each wait, not an assertion on timing


def start(db: str, thread: str, side: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), db, thread, str(side)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_started(proc: subprocess.Popen, side: Path) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not (side / "started").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the run did not reach its first call: {proc.communicate()[1]}")
        time.sleep(0.05)


def finish(proc: subprocess.Popen, side: Path) -> dict:
    """Let the calls finish; the run's result."""
    (side / "release").touch()
    out, err = proc.communicate(timeout=WAIT_LIMIT * 2)
    assert proc.returncode == 0, err
    return json.loads(out)


def lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def assert_cancelled_after_first_step(result: dict, side: Path) -> None:
    assert result["termination_reason"] == "cancelled"
    assert lines(side / "started") == lines(side / "finished") == ["1"]  # the call in flight finished; no other began
    steps = result["trace"]["steps"]
    assert [(s["iteration"], s["kind"]) for s in steps] == [(1, "tools")]  # the finished step is kept
    assert steps[0]["observations"][0]["content"] == "call 1 done"


def test_a_cancel_from_another_agent_stops_the_run_after_its_current_step(run_db, tmp_path):
    proc = start(run_db, "far", tmp_path)
    wait_started(proc, tmp_path)
    with ReActAgent(checkpointer=run_db) as other:
        other.cancel("far")
    result = finish(proc, tmp_path)
    assert_cancelled_after_first_step(result, tmp_path)
    with ReActAgent(checkpointer=run_db) as reader:  # what the checkpoint holds says the same
        info = reader.run_info("far")
    assert (info.status, info.reason, info.iterations) == ("finished", "cancelled", 1)


def test_reactgraph_cancel_stops_a_run_in_another_process(postgres_url, tmp_path):
    proc = start(postgres_url, "cli", tmp_path)
    wait_started(proc, tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("reactgraph")), "cancel", "cli", "--db", postgres_url],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "cancel requested for run cli" in done.stdout and "after its current step" in done.stdout
    assert "reactgraph-test" not in done.stdout  # the password is not shown
    assert_cancelled_after_first_step(finish(proc, tmp_path), tmp_path)


def test_without_a_cancel_the_worker_runs_to_its_limit(tmp_path):
    proc = start(str(tmp_path / "db.sqlite"), "free", tmp_path)
    wait_started(proc, tmp_path)
    result = finish(proc, tmp_path)
    assert result["termination_reason"] == "max_iterations"
    assert len(lines(tmp_path / "finished")) == 4  # a call in each of the four iterations
