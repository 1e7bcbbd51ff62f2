"""The SQLite file itself: growth with the run, bad files, locks, read-only files, several processes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import ReActAgent, TerminationReason, checkpoints
from reactgraph.checkpoints import CheckpointStoreError
from reactgraph.testing import ScriptedChatModel, tool_call

WORKER = Path(__file__).parents[1] / "integration" / "crash_worker.py"
PAYLOAD = 2048  # characters each tool call returns


def payload(i: int) -> str:
    """Return a block of text for step i."""
    return f"block {i}: " + "x" * PAYLOAD


def run_iterations(db: Path, n: int) -> int:
    """Run n tool-calling iterations with the same per-step payload; return the database bytes."""
    script = [tool_call("payload", {"i": i}, thought=f"Step {i}.") for i in range(1, n + 1)] + ["done"]
    with ReActAgent(model=ScriptedChatModel(responses=script), tools=[payload], checkpointer=db, max_iterations=n + 1, summary_every=0) as agent:
        result = agent.run("Collect the blocks.")
    assert result.termination_reason is TerminationReason.SUCCESS and len(result.trace.steps) == n
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.stat().st_size + Path(f"{db}-wal").stat().st_size


def test_storage_grows_linearly_with_the_run(tmp_path):
    bytes_20 = run_iterations(tmp_path / "20.sqlite", 20)
    bytes_40 = run_iterations(tmp_path / "40.sqlite", 40)
    print(f"\ndatabase bytes: 20 iterations {bytes_20}, 40 iterations {bytes_40}, ratio {bytes_40 / bytes_20:.2f}")
    assert bytes_20 > 20 * PAYLOAD  # the payload is really stored
    assert bytes_40 < 2.5 * bytes_20


def test_corrupt_file_is_named_and_left_untouched(tmp_path):
    db = tmp_path / "broken.sqlite"
    garbage = b"this is not a database " * 400
    db.write_bytes(garbage)
    with pytest.raises(CheckpointStoreError) as err:
        ReActAgent(checkpointer=db)
    message = str(err.value)
    assert str(db) in message and "not a database" in message and "left untouched" in message
    assert db.read_bytes() == garbage


def test_locked_file_is_named_and_earlier_runs_survive(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoints, "BUSY_TIMEOUT", 0.2)
    db = tmp_path / "db.sqlite"
    agent = ReActAgent(model=ScriptedChatModel(responses=["first", "third"]), checkpointer=db)
    agent.run("one", thread_id="before")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        with pytest.raises(CheckpointStoreError, match="database is locked") as err:
            agent.run("two", thread_id="during")
        assert str(db) in str(err.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert agent.get_result("before").final_answer == "first"
    assert agent.run("three", thread_id="after").final_answer == "third"
    agent.close()


def test_read_only_file_reads_but_refuses_writes_by_name(tmp_path):
    db = tmp_path / "db.sqlite"
    with ReActAgent(model=ScriptedChatModel(responses=["kept"]), checkpointer=db) as agent:
        agent.run("one", thread_id="kept")
    read_only = SqliteSaver(sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False))
    agent = ReActAgent(model=ScriptedChatModel(responses=["new"]), checkpointer=read_only)
    assert agent.db_path == db
    assert agent.get_result("kept").final_answer == "kept"
    with pytest.raises(CheckpointStoreError, match="readonly") as err:
        agent.run("two")
    assert str(db) in str(err.value)
    assert [r.thread_id for r in agent.list_runs()] == ["kept"]


def test_several_processes_write_runs_to_one_file(tmp_path):
    db = tmp_path / "shared.sqlite"
    procs = []
    for i in range(3):
        side = tmp_path / f"side{i}"
        side.mkdir()
        procs.append(
            subprocess.Popen([sys.executable, str(WORKER), str(db), f"p{i}", str(side)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        )
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in outputs]
    assert all(json.loads(out)["termination_reason"] == "success" for out, _ in outputs)
    with ReActAgent(checkpointer=db) as reader:
        runs = reader.list_runs()
        traces = [reader.get_trace(f"p{i}") for i in range(3)]
    assert sorted(r.thread_id for r in runs) == ["p0", "p1", "p2"]
    assert all(r.status == "finished" for r in runs)
    assert all([s.iteration for s in t.steps] == [1, 2, 3] for t in traces)
