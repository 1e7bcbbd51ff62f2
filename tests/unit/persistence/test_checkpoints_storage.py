"""The SQLite file itself: growth with the run, bad files, locks, read-only files, several processes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import ReActAgent, TerminationReason
from reactgraph.persistence.base import CheckpointStoreError
from reactgraph.persistence.sqlite import sqlite_saver
from reactgraph.testing import ScriptedChatModel, tool_call

WORKER = Path(__file__).parents[2] / "integration" / "crash_worker.py"
PAYLOAD = 2048  # characters each tool call returns


def payload(i: int) -> str:
    """Return a block of text for step i."""
    return f"block {i}: " + "x" * PAYLOAD


def run_iterations(db: Path, n: int) -> int:
    """Run n tool-calling iterations with the same per-step payload; return the database bytes."""
    script = [tool_call("payload", {"i": i}, thought=f"Step {i}.") for i in range(1, n + 1)] + ["done"]
    with ReActAgent(model=ScriptedChatModel(responses=script), tools=[payload], checkpointer=db, max_iterations=n + 1, summary_every=0) as agent:
        result = agent.run("Collect the blocks.")
    assert result.termination_reason is TerminationReason.SUCCESS and len(result.trace.steps) == n + 1
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
    failed, kept = agent.list_runs()  # the run that could not write is listed, failed with the error
    assert (kept.thread_id, kept.status) == ("kept", "finished")
    assert (failed.status, failed.question) == ("failed", "two") and "readonly" in failed.error


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
    assert all([s.iteration for s in t.steps] == [1, 2, 3, 4] for t in traces)


# -- a file that is not ours, or not whole, is refused untouched -----------------------------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def finished_run(db: Path, thread_id: str = "kept", answer: str = "kept") -> None:
    """One finished run in ``db``, the WAL folded into the main file (so the file alone holds it)."""
    with ReActAgent(model=ScriptedChatModel(responses=[answer]), checkpointer=db) as agent:
        agent.run("one", thread_id=thread_id)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# A blob msgpack reads as a bare 42, one it cannot read, text that is not UTF-8, JSON that is not an object.
CORRUPTIONS = {
    "checkpoint-decodes-to-int": "UPDATE checkpoints SET checkpoint = X'2a00000000' WHERE thread_id = 'bad'",
    "checkpoint-undecodable": "UPDATE checkpoints SET checkpoint = X'c1c1c1c1' WHERE thread_id = 'bad'",
    "checkpoint-type": "UPDATE checkpoints SET type = 'bogus' WHERE thread_id = 'bad'",
    "metadata-not-utf8": "UPDATE checkpoints SET metadata = X'cdff00ff' WHERE thread_id = 'bad'",
    "metadata-not-an-object": "UPDATE checkpoints SET metadata = '[1, 2]' WHERE thread_id = 'bad'",
    "writes-value": "UPDATE writes SET value = X'c1c1c1c1' WHERE thread_id = 'bad'",
    "writes-type": "UPDATE writes SET type = 'bogus' WHERE thread_id = 'bad'",
}


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_corrupt_rows_raise_store_error_naming_the_file(tmp_path, corruption):
    db = tmp_path / "db.sqlite"
    finished_run(db, "good", "fine")
    finished_run(db, "bad", "lost")
    with sqlite3.connect(db) as conn:
        conn.execute(CORRUPTIONS[corruption])
    with ReActAgent(model=ScriptedChatModel(responses=["again"]), checkpointer=db) as agent:
        listed = {run.thread_id: run for run in agent.list_runs()}  # the bad run is listed unreadable, by id (issue 42)
        assert listed["good"].status == "finished" and listed["bad"].status == "unreadable"
        assert str(db) in listed["bad"].error and "cannot be read" in listed["bad"].error
        for name, call in [
            ("get_result", lambda: agent.get_result("bad")),
            ("resume", lambda: agent.resume("bad")),
            ("history", lambda: agent.history("bad")),
            ("run", lambda: agent.run("again", thread_id="bad")),
        ]:
            with pytest.raises(CheckpointStoreError) as err:
                call()
            assert str(db) in str(err.value) and "cannot be read" in str(err.value), (name, str(err.value))
        assert agent.get_result("good").final_answer == "fine"  # the other run is untouched


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path):
    db = tmp_path / "notes.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        conn.execute("INSERT INTO notes (text) VALUES ('keep me')")
    before = sha256(db)
    with pytest.raises(CheckpointStoreError) as err:
        ReActAgent(checkpointer=db)
    message = str(err.value)
    assert str(db) in message and "notes" in message and "another application" in message
    assert sha256(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]  # no -wal or -shm either


def test_a_table_of_ours_with_other_columns_is_refused(tmp_path):
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, payload BLOB)")
    before = sha256(db)
    with pytest.raises(CheckpointStoreError, match="another application") as err:
        ReActAgent(checkpointer=db)
    assert "checkpoints" in str(err.value)
    assert sha256(db) == before


def test_garbage_pages_are_refused_untouched(tmp_path):
    db = tmp_path / "db.sqlite"
    finished_run(db)
    page = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    data[page : 3 * page] = bytes(range(256)) * (2 * page // 256)  # pages 2 and 3: garbage
    db.write_bytes(bytes(data))
    before = sha256(db)
    with pytest.raises(CheckpointStoreError) as err:
        ReActAgent(model=ScriptedChatModel(responses=["new"]), checkpointer=db)
    assert str(db) in str(err.value) and "corrupt" in str(err.value)
    assert sha256(db) == before


def test_an_empty_sqlite_database_is_used(tmp_path):
    db = tmp_path / "empty.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("DROP TABLE t")
    empty = tmp_path / "zero.sqlite"
    empty.touch()
    for path in (db, empty):
        with ReActAgent(model=ScriptedChatModel(responses=["ok"]), checkpointer=path) as agent:
            assert agent.run("one", thread_id="t").final_answer == "ok"
            assert [r.thread_id for r in agent.list_runs()] == ["t"]


# -- locked and full files -----------------------------------------------------------------


def test_locked_file_fails_after_one_wait(tmp_path):
    """The writes a run queued behind a write that ran out of busy timeout do not wait again."""
    db = tmp_path / "db.sqlite"
    finished_run(db, "before", "first")
    saver = sqlite_saver(db, busy_timeout=0.2)
    statements: list[str] = []
    saver.conn.set_trace_callback(statements.append)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    def lock_then_answer(messages):  # another process takes the write lock while the run thinks
        holder.execute("BEGIN EXCLUSIVE")
        statements.clear()  # the writes from here on meet the lock
        return "later"

    agent = ReActAgent(model=ScriptedChatModel(responses=[lock_then_answer, "later"], repeat_last=True), checkpointer=saver)
    try:
        with pytest.raises(CheckpointStoreError, match="locked by another process") as err:
            agent.run("two", thread_id="during")
        assert str(db) in str(err.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert waiting_writes(statements, timeout_ms=200) == 1
    assert agent.run("three", thread_id="after").final_answer == "later"  # the lock is free again
    assert agent.get_result("before").final_answer == "first"
    # the run the lock stopped is not shown running: its failure could not be written, and its drive has ended
    assert agent.run_info("during").status == "interrupted"
    saver.conn.close()


def waiting_writes(statements: list[str], timeout_ms: int) -> int:
    """How many INSERTs ran while the connection's busy timeout let them wait for a lock."""
    waits, current = 0, timeout_ms
    for sql in statements:
        if sql.upper().startswith("PRAGMA BUSY_TIMEOUT"):
            current = int(sql.split("=")[1])
        elif sql.upper().startswith("INSERT"):
            waits += current > 0
    return waits


def test_disk_full_says_so_and_earlier_runs_survive(tmp_path):
    db = tmp_path / "db.sqlite"
    finished_run(db, "before", "first")
    agent = ReActAgent(model=ScriptedChatModel(responses=[tool_call("payload", {"i": 1}), "second"]), tools=[payload], checkpointer=db)
    pages = agent.checkpointer.conn.execute("PRAGMA page_count").fetchone()[0]
    agent.checkpointer.conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk holds no more pages
    with pytest.raises(CheckpointStoreError, match="disk full") as err:
        agent.run("two", thread_id="during")
    assert str(db) in str(err.value)
    agent.close()
    with ReActAgent(checkpointer=db) as reader:
        assert reader.get_result("before").final_answer == "first"


def test_a_hand_edited_state_is_named_as_such_not_as_a_corrupt_file(tmp_path):
    from reactgraph.testing import ScriptedChatModel as Scripted

    db = tmp_path / "edited.sqlite"
    with ReActAgent(model=Scripted(responses=["4"]), checkpointer=db) as agent:
        agent.run("2 + 2?", thread_id="t")
        config = {"configurable": {"thread_id": "t"}}
        agent.graph.update_state(config, {"termination": {"reason": "weird", "detail": "", "limit": None, "observed": None}})
        with pytest.raises(CheckpointStoreError) as raised:
            agent.get_result("t")
    message = str(raised.value)
    assert "run 't'" in message and "edited by hand" in message and "'weird' is not a valid TerminationReason" in message
    assert "move it aside" not in message
