"""Fault cases: storage. Bad, foreign, locked, read-only and full checkpoint files.

Every case expects ``CheckpointStoreError`` naming the file. It raises :class:`Lost` when a file
that was not reactgraph's to write changed (sha256 before and after), when a finished run in it
can no longer be read, or when the error does not say what it should. chmod cannot make a file
read-only for root, so where it does not stop writes the chmod cases raise ``unittest.SkipTest``
(pytest shows them as skipped, with that reason); ``read-only:connection`` covers read-only files
for every user.
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
import unittest
from collections.abc import Callable
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Iterator

from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import ReActAgent
from reactgraph.persistence.base import CheckpointStoreError
from reactgraph.persistence.sqlite import sqlite_saver
from reactgraph.testing import ScriptedChatModel
from tests.faults import Case, Lost

BUSY_TIMEOUT = 0.1  # seconds; a locked file fails after one wait of this


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def new_db(name: str) -> Path:
    """A fresh path in the working directory (a temporary one under pytest)."""
    path = Path.cwd() / "storage-faults" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob(f"{name}*"):
        old.unlink()
    return path


def finished_runs(db: Path, *threads: str) -> Path:
    """A reactgraph file holding one finished run per thread (its answer is the thread id), whole
    in the main file (no WAL)."""
    for thread in threads:
        with ReActAgent(model=ScriptedChatModel(responses=[thread]), checkpointer=db) as agent:
            agent.run(f"question {thread}", thread_id=thread)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def agent_on(checkpointer: Any) -> ReActAgent:
    return ReActAgent(model=ScriptedChatModel(responses=["new"], repeat_last=True), checkpointer=checkpointer)


def refused(db: Path, call: Callable[[], Any], *, says: str) -> CheckpointStoreError:
    """``call()`` must raise CheckpointStoreError naming ``db`` and saying ``says``; anything else
    but a return escapes as a crash."""
    try:
        call()
    except CheckpointStoreError as err:
        if str(db.absolute()) not in str(err) or says not in str(err):
            raise Lost(f"the error does not name {db.name} or say {says!r}: {err}") from err
        return err
    raise Lost(f"{db.name}: accepted where it should have been refused")


@contextmanager
def unchanged(db: Path) -> Iterator[None]:
    """Lost when the file's bytes change inside the block."""
    before = sha256(db)
    yield
    if sha256(db) != before:
        raise Lost(f"{db.name} was changed")


def still_readable(db: Path, *threads: str) -> None:
    """Lost unless every finished run in ``db`` reads back with its answer."""
    with ReActAgent(checkpointer=db) as reader:
        for thread in threads:
            if reader.get_result(thread).final_answer != thread:
                raise Lost(f"the finished run {thread!r} in {db.name} lost its answer")


# -- rows that cannot be decoded -------------------------------------------------------------


def corrupt_row(table: str, column: str, size: int) -> Callable[[], None]:
    def run() -> None:
        db = finished_runs(new_db(f"{table}-{column}.sqlite"), "good", "bad")
        blob = random.Random(f"{table}.{column}").randbytes(size)
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.execute(f"UPDATE {table} SET {column} = ? WHERE thread_id = 'bad'", (blob,))
        with unchanged(db), agent_on(db) as agent:  # reading never writes
            listed = {run.thread_id: run for run in agent.list_runs()}  # the bad run listed by id, the good one as it is
            if listed["bad"].status != "unreadable" or "cannot be read" not in (listed["bad"].error or ""):
                raise Lost(f"the corrupt run is not listed as unreadable: {listed['bad']}")
            if listed["good"].status != "finished":
                raise Lost(f"the corrupt run hid the intact one: {listed['good']}")
            for call in (lambda: agent.get_result("bad"), lambda: agent.history("bad")):
                refused(db, call, says="cannot be read")
            refused(db, lambda: agent.resume("bad"), says="cannot be read")
            if agent.get_result("good").final_answer != "good":
                raise Lost("the intact run next to the corrupt one lost its answer")
        with agent_on(db) as agent:
            if agent.run("after", thread_id="after").final_answer != "new":
                raise Lost("a new run in the file lost its answer")

    return run


# -- files that are not reactgraph's to write ------------------------------------------------


def refused_untouched(make: Callable[[Path], None], says: str, name: str) -> Callable[[], None]:
    """The file ``make`` writes is refused when an agent opens it, and keeps its bytes (so no
    reactgraph tables and no switch to WAL, which rewrites the header)."""

    def run() -> None:
        db = new_db(name)
        make(db)
        with unchanged(db):
            refused(db, lambda: agent_on(db), says=says)

    return run


def garbage_pages(db: Path) -> None:
    finished_runs(db, "kept")
    with closing(sqlite3.connect(db)) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    data[page : 3 * page] = random.Random(7).randbytes(2 * page)  # pages 2 and 3
    db.write_bytes(bytes(data))


def foreign_file(journal: str, table: str = "notes (id INTEGER PRIMARY KEY, text TEXT)") -> Callable[[Path], None]:
    def make(db: Path) -> None:
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.execute(f"PRAGMA journal_mode={journal}")
            conn.execute(f"CREATE TABLE {table}")

    return make


def not_sqlite(db: Path) -> None:
    db.write_text("id,text\n1,keep me\n" * 200)


def truncated(db: Path) -> None:
    finished_runs(db, "kept")
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])


# -- locked, read-only, full -------------------------------------------------------------------


def locked_file() -> None:
    """Another connection takes the write lock while the run thinks: the run fails after one wait (its queued
    writes do not wait again), and once the lock is gone the file works and the finished run is intact."""
    db = finished_runs(new_db("locked.sqlite"), "kept")
    saver = sqlite_saver(db, busy_timeout=BUSY_TIMEOUT)
    statements: list[str] = []
    saver.conn.set_trace_callback(statements.append)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    def lock_then_answer(messages: Any) -> str:  # the other process takes the lock while the run thinks
        holder.execute("BEGIN EXCLUSIVE")
        statements.clear()  # the writes from here on meet the lock
        return "new"

    locking = ReActAgent(model=ScriptedChatModel(responses=[lock_then_answer]), checkpointer=saver)
    try:
        refused(db, lambda: locking.run("two", thread_id="during"), says="locked by another process")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    timeout, waits = int(BUSY_TIMEOUT * 1000), 0
    for sql in statements:  # each INSERT run while the busy timeout is not 0 waited for the lock
        if sql.upper().startswith("PRAGMA BUSY_TIMEOUT"):
            timeout = int(sql.split("=")[1])
        waits += sql.upper().startswith("INSERT") and timeout > 0
    if waits != 1:
        raise Lost(f"the locked file was waited for {waits} times, not once")
    if agent_on(saver).run("three", thread_id="after").final_answer != "new":
        raise Lost("the file refused a run after the lock was released")
    saver.conn.close()
    still_readable(db, "kept")


def read_only_connection() -> None:
    """A saver on a read-only connection (``mode=ro``): runs are refused, stored runs read back."""
    db = finished_runs(new_db("ro.sqlite"), "kept")
    with unchanged(db):
        conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        agent = agent_on(SqliteSaver(conn))
        refused(db, lambda: agent.run("two"), says="not writable")
        if agent.get_result("kept").final_answer != "kept":
            raise Lost("the finished run in the read-only file lost its answer")
        conn.close()


def chmod_stops_writes() -> bool:
    """False for root (with CAP_DAC_OVERRIDE), whose writes a read-only mode does not stop."""
    probe = new_db("chmod-probe")
    probe.touch(mode=0o444)
    try:
        probe.open("a").close()
    except PermissionError:
        return True
    finally:
        probe.unlink()
    return False


def read_only_mode(target: str) -> Callable[[], None]:
    """chmod the file (or its directory) read-only; the agent refuses to write, bytes unchanged."""

    def run() -> None:
        if not chmod_stops_writes():
            raise unittest.SkipTest("running as root: chmod does not stop root's writes (read-only:connection covers it)")
        db = finished_runs(new_db(f"chmod-{target}.sqlite"), "kept")
        path = db if target == "file" else db.parent
        mode = path.stat().st_mode
        path.chmod(0o444 if target == "file" else 0o555)
        try:
            with unchanged(db):
                refused(db, lambda: agent_on(db).run("two"), says="not writable")
        finally:
            path.chmod(mode)
        still_readable(db, "kept")

    return run


def disk_full() -> None:
    """The disk fills up mid-run (max_page_count caps the file): "disk full", earlier runs intact."""
    db = finished_runs(new_db("full.sqlite"), "kept")
    with agent_on(db) as agent:
        pages = agent.checkpointer.conn.execute("PRAGMA page_count").fetchone()[0]
        agent.checkpointer.conn.execute(f"PRAGMA max_page_count = {pages}")
        refused(db, lambda: agent.run("two " + "x" * 20_000, thread_id="during"), says="disk full")
    still_readable(db, "kept")


ROWS = [("checkpoints", "checkpoint", 200), ("checkpoints", "metadata", 200), ("checkpoints", "type", 8), ("writes", "value", 200), ("writes", "type", 8)]

CASES: list[Case] = [
    *(Case("storage", f"corrupt-row:{table}.{column}", corrupt_row(table, column, size)) for table, column, size in ROWS),
    Case("storage", "garbage-pages", refused_untouched(garbage_pages, "corrupt", "garbage.sqlite")),
    Case("storage", "truncated", refused_untouched(truncated, "corrupt", "truncated.sqlite")),
    Case("storage", "not-sqlite", refused_untouched(not_sqlite, "not a valid SQLite database", "notes.csv")),
    Case("storage", "foreign-sqlite", refused_untouched(foreign_file("DELETE"), "another application", "notes.sqlite")),
    Case("storage", "foreign-sqlite-wal", refused_untouched(foreign_file("WAL"), "another application", "notes-wal.sqlite")),
    Case(
        "storage",
        "foreign-checkpoints-table",
        refused_untouched(foreign_file("DELETE", "checkpoints (id INTEGER PRIMARY KEY, blob BLOB)"), "another application", "app.sqlite"),
    ),
    Case("storage", "locked", locked_file),
    Case("storage", "read-only:connection", read_only_connection),
    Case("storage", "read-only:file", read_only_mode("file")),
    Case("storage", "read-only:directory", read_only_mode("directory")),
    Case("storage", "disk-full", disk_full),
]
