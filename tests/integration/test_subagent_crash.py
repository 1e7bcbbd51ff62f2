"""SIGKILL a parent run in the middle of its sub-agent and resume it in a new process: the child
resumes from its own checkpoint (its namespace under the parent's act task), so its finished
calls are not run again."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.integration.test_crash_resume import executions, run_to_end, wait_for

WORKER = Path(__file__).with_name("subagent_crash_worker.py")


def worker(db: Path, side: Path, *extra: str) -> list[str]:
    return [sys.executable, str(WORKER), str(db), "t-sub", str(side), *extra]


def namespaces(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {ns for (ns,) in conn.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")}


def test_a_child_killed_mid_run_resumes_without_rerunning_its_finished_calls(tmp_path):
    db, side = tmp_path / "db.sqlite", tmp_path
    proc = subprocess.Popen(worker(db, side, "--block"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (side / "blocked").exists(), proc, "the child's fetch(b)")
    finally:
        proc.kill()
        proc.wait()
    assert executions(side) == ["a"]
    child_ns = {ns for ns in namespaces(db) if ns}
    assert len(child_ns) == 1 and next(iter(child_ns)).startswith("act:")  # the child's own checkpoints

    result = run_to_end(worker(db, side, "--resume"))
    assert executions(side) == ["a", "b"]  # fetch(a) finished before the kill: not run again
    assert result["termination_reason"] == "success" and result["final_answer"] == "The values are A-VALUE and B-VALUE."
    [step, final] = result["trace"]["steps"]
    nested = step["observations"][0]["trace"]
    assert [[a["id"] for a in s["actions"]] for s in nested["steps"]] == [["call_a"], ["call_b"], []]
    assert step["observations"][0]["content"] == "Child: A-VALUE, B-VALUE"
    assert final["kind"] == "final"
    assert json.loads(json.dumps(result["tool_usage"])) == {"fetcher": 1}
