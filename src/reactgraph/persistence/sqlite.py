"""Runs in a SQLite file: LangGraph's ``SqliteSaver`` for sync calls and ``AsyncSqliteSaver`` for async ones,
both on the same file in WAL mode, so several threads or processes can write runs to it, and the cancel
requests in a table beside them. Before the first write the file is checked (``check_file``): one that is not
whole, or that holds another application's tables, is refused untouched. A database that cannot be used
(corrupt, foreign, a row that cannot be decoded, locked, read-only, disk full) raises ``CheckpointStoreError``
naming the file and saying what is wrong; it is never rewritten or removed.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, closing, contextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from reactgraph.persistence import holds
from reactgraph.persistence.activity import Activity
from reactgraph.persistence.base import ALL_RUNS, DECODE_ERRORS, CheckpointStoreError, RunStore
from reactgraph.tools.isolation import protect

BUSY_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock before giving up
logger = logging.getLogger(__name__)

# -- the file ----------------------------------------------------------------------------

# The tables LangGraph's SQLite saver and store keep, and our own beside them (the cancel requests); a
# file holding any other table is another application's, and is never written to.
LANGGRAPH_TABLES = frozenset({"checkpoints", "writes", "store", "store_vectors", "store_migrations", "vector_migrations"})
OWN_TABLES = frozenset({"reactgraph_cancels", "reactgraph_runs", "reactgraph_holds"})
SAVER_COLUMNS = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint", "metadata"},
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"},
}
UNTOUCHED = "it was left untouched: move it aside or choose another file with --db / REACTGRAPH_DB"


def describe_error(path: Path, exc: BaseException, run: str | None = None) -> str:
    """A message that names the file (and the run, when known), says what is wrong and what to do."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF  # the primary result code
    detail = str(exc)
    if isinstance(exc, DECODE_ERRORS):
        of_run = f" of run {run!r}" if run is not None else ""
        what, advice = f"a stored checkpoint{of_run} cannot be read", f"the row is corrupt or was written by another program; {UNTOUCHED}"
        detail = f"{type(exc).__name__}: {exc}"
    elif code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        what, advice = "locked by another process", "it held the lock for longer than the busy timeout; retry when it is done"
    elif code == sqlite3.SQLITE_FULL:
        what, advice = "disk full", "free space on its disk or choose another file with --db / REACTGRAPH_DB; runs already stored are kept"
    elif code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM) or isinstance(exc, PermissionError):
        what, advice = "not writable", "fix the permissions of it (or its directory) or choose another file with --db / REACTGRAPH_DB"
    elif code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        what, advice = "not a valid SQLite database (corrupt?)", UNTOUCHED
    else:
        what, advice = "cannot be used", "check that the path names a writable SQLite file, or choose another with --db / REACTGRAPH_DB"
    return f"checkpoint database {Path(path).absolute()}: {what} ({detail}); {advice}"


@contextmanager
def reading_run(path: Path | None, run: str | None = None) -> Iterator[None]:
    """Reading a run back: SQLite errors as ``store_errors`` names them; a state that decodes (the
    saver checks that) but is no result of this version (a corrupt value, a hand edit, another
    version's state) is CheckpointStoreError naming the run and all three causes."""
    with store_errors(path, (sqlite3.Error,), run):
        try:
            yield
        except DECODE_ERRORS as exc:
            if path is None:
                raise
            which = f"run {run!r}" if run is not None else "a stored run"
            raise CheckpointStoreError(
                f"checkpoint database {Path(path).absolute()}: the state of {which} cannot be read as a result "
                f"({type(exc).__name__}: {exc}); a stored value is corrupt, or the state was edited by hand "
                "(update_state, Studio) or written by another version of reactgraph"
            ) from exc


@contextmanager
def store_errors(
    path: Path | None, errors: tuple[type[BaseException], ...] = (sqlite3.Error,), run: str | None = None
) -> Iterator[None]:
    """Turn ``errors`` raised while using the file at ``path`` (for the run ``run``) into CheckpointStoreError."""
    if path is None:
        yield
        return
    try:
        yield
    except errors as exc:
        raise CheckpointStoreError(describe_error(path, exc, run)) from exc


def check_file(path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
    """Refuse a file reactgraph must not write to, before anything is written: one SQLite cannot read
    whole (``PRAGMA quick_check``: one pass over the pages, ~0.05 s per 100 MB of checkpoints), or one
    holding another application's tables. A missing or empty file, an empty database and a file of
    LangGraph's tables pass. The file is only read (``mode=ro``)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with store_errors(path), closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=busy_timeout)) as conn:
        rows = conn.execute("SELECT tbl_name FROM sqlite_master").fetchall()
        foreign = sorted({t for (t,) in rows if t not in LANGGRAPH_TABLES | OWN_TABLES and not t.startswith("sqlite_")})
        for table, needed in SAVER_COLUMNS.items():
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if columns and not needed <= columns:
                foreign.append(f"{table} (columns {', '.join(sorted(columns))})")
        if foreign:
            raise CheckpointStoreError(
                f"checkpoint database {path.absolute()}: another application's file (it holds the tables "
                f"{', '.join(foreign)}); {UNTOUCHED}"
            )
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise CheckpointStoreError(
                f"checkpoint database {path.absolute()}: corrupt (quick_check: {'; '.join(problems)}); {UNTOUCHED}"
            )


def open_db(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """Open (creating when missing) the SQLite file in WAL mode, after ``check_file``; raise
    CheckpointStoreError if it is unusable or not ours to write."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        path.parent.mkdir(parents=True, exist_ok=True)
        check_file(path, busy_timeout)
        conn = sqlite3.connect(path, timeout=busy_timeout, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across process crashes
        except sqlite3.Error:
            conn.close()
            raise
    return conn


def sqlite_saver(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> CheckpointFile:
    """LangGraph's SqliteSaver on ``path`` (see ``CheckpointFile``), its tables created now so a bad
    file fails here. ``busy_timeout``: seconds a write waits for another process's lock."""
    saver = CheckpointFile(open_db(path, busy_timeout), Path(path), busy_timeout)
    try:
        with store_errors(Path(path)):
            saver.setup()
    except CheckpointStoreError:
        saver.conn.close()
        raise
    return saver


@asynccontextmanager
async def async_sqlite_saver(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> AsyncIterator[AsyncCheckpointFile]:
    """LangGraph's AsyncSqliteSaver on the same file, for one async run."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        conn = await aiosqlite.connect(path, timeout=busy_timeout)
    try:
        saver = AsyncCheckpointFile(conn, path, busy_timeout)
        with store_errors(path):
            await saver.setup()
        yield saver
    finally:
        await conn.close()


# -- guarded savers ------------------------------------------------------------------------


class CheckpointFile(SqliteSaver):
    """LangGraph's SqliteSaver on one file, guarded: a stored row that cannot be decoded raises
    CheckpointStoreError naming the file, and one lock wait is enough (see ``WaitOnce``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        super().__init__(conn)
        self.path, self.busy_timeout = path, busy_timeout
        self.lock = WaitOnce(self.lock, conn, busy_timeout)  # type: ignore[assignment]  # used as the lock is: with

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with decoding(self.path, config):
            item = super().get_tuple(config)
            return checked(item) if item is not None else None

    def list(self, config: RunnableConfig | None, **options: Any) -> Iterator[CheckpointTuple]:
        with decoding(self.path, config):
            for item in super().list(config, **options):
                yield checked(item)

    def get_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        with decoding(self.path, config):
            return super().get_delta_channel_history(config=config, channels=channels)


class AsyncCheckpointFile(AsyncSqliteSaver):
    """LangGraph's AsyncSqliteSaver on one file, guarded as ``CheckpointFile`` is."""

    def __init__(self, conn: aiosqlite.Connection, path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        super().__init__(conn)
        self.path, self.busy_timeout = path, busy_timeout
        self.lock = WaitOnce(self.lock, conn, busy_timeout)  # type: ignore[assignment]  # used as the lock is: with

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with decoding(self.path, config):
            item = await super().aget_tuple(config)
            return checked(item) if item is not None else None

    async def alist(self, config: RunnableConfig | None, **options: Any) -> AsyncIterator[CheckpointTuple]:
        with decoding(self.path, config):
            async for item in super().alist(config, **options):
                yield checked(item)

    async def aget_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        with decoding(self.path, config):
            return await super().aget_delta_channel_history(config=config, channels=channels)


@contextmanager
def decoding(path: Path, config: RunnableConfig | None) -> Iterator[None]:
    """Turn a stored row that cannot be decoded into CheckpointStoreError naming the file and the run."""
    try:
        yield
    except DECODE_ERRORS as exc:
        run = ((config or {}).get("configurable") or {}).get("thread_id")
        raise CheckpointStoreError(describe_error(path, exc, run)) from exc


def checked(item: CheckpointTuple) -> CheckpointTuple:
    """``item`` if its decoded columns have the shape LangGraph wrote, else ValueError saying which does not."""
    checkpoint = item.checkpoint
    if not isinstance(checkpoint, dict) or not all(
        isinstance(checkpoint.get(key), dict) for key in ("channel_values", "channel_versions", "versions_seen")
    ):
        raise ValueError(f"the checkpoint column decodes to {type(checkpoint).__name__}, not a checkpoint")
    if not isinstance(item.metadata, dict):
        raise ValueError(f"the metadata column decodes to {type(item.metadata).__name__}, not an object")
    if not all(isinstance(write, tuple) and len(write) == 3 and isinstance(write[1], str) for write in item.pending_writes or []):
        raise ValueError("a row of the writes table has no channel name")
    return item


class WaitOnce:
    """A saver's lock that also rations waiting for other processes: once a statement has waited its
    whole busy timeout for a lock and failed, the connection stops waiting for ``NO_WAIT_SECONDS``,
    so the writes the failing run had queued behind it (they follow at once) fail at once instead of
    each waiting again (a free lock still lets them through); a later run waits as usual. The state
    changes while the saver's lock is held."""

    NO_WAIT_SECONDS = 1.0

    def __init__(self, lock: Any, conn: Any, busy_timeout: float) -> None:
        self._lock, self._conn, self._busy_ms = lock, conn, int(busy_timeout * 1000)
        self._until: float | None = None  # while set, statements do not wait for locks

    def _change(self, exc: BaseException | None) -> str | None:
        """The PRAGMA that moves to the next state, if any."""
        if self._until is None and is_locked(exc):
            self._until = time.monotonic() + min(self.NO_WAIT_SECONDS, self._busy_ms / 1000)
            return "PRAGMA busy_timeout = 0"
        if self._until is not None and time.monotonic() >= self._until:
            self._until = None
            return f"PRAGMA busy_timeout = {self._busy_ms}"
        return None

    def __enter__(self) -> WaitOnce:
        self._lock.acquire()
        try:
            if pragma := self._change(None):
                self._conn.execute(pragma)
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if pragma := self._change(exc):
                self._conn.execute(pragma)
        finally:
            self._lock.release()

    async def __aenter__(self) -> WaitOnce:
        await self._lock.acquire()
        try:
            if pragma := self._change(None):
                await self._conn.execute(pragma)
        except BaseException:
            self._lock.release()
            raise
        return self

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if pragma := self._change(exc):
                await self._conn.execute(pragma)
        finally:
            self._lock.release()


def is_locked(exc: BaseException | None) -> bool:
    """Whether ``exc`` is SQLite giving up on another connection's lock."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    return isinstance(exc, sqlite3.OperationalError) and code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def saver_path(saver: Any) -> Path | None:
    """The file behind a SqliteSaver (None for other savers and in-memory databases)."""
    if not isinstance(saver, SqliteSaver):
        return None
    with saver.lock:
        rows = saver.conn.execute("PRAGMA database_list").fetchall()
    file = next((row[2] for row in rows if row[1] == "main"), "")
    return Path(file) if file else None


# -- the store ---------------------------------------------------------------------------


class SqliteRunStore(RunStore):
    """Runs in a SQLite file: LangGraph's SqliteSaver (AsyncSqliteSaver for async runs) and the cancel table."""

    CANCELS = "CREATE TABLE IF NOT EXISTS reactgraph_cancels (thread_id TEXT PRIMARY KEY, requested_at REAL NOT NULL)"
    RUNS = (  # persistence.activity: the runs being driven now, and the ones an exception ended
        "CREATE TABLE IF NOT EXISTS reactgraph_runs (thread_id TEXT PRIMARY KEY, state TEXT NOT NULL, question TEXT, "
        "owner TEXT NOT NULL, since REAL NOT NULL, error TEXT)"
    )

    saver: SqliteSaver

    def __init__(self, path: Path, saver: SqliteSaver | None = None) -> None:
        self.path, self._owned = Path(path), saver is None
        super().__init__(saver if saver is not None else sqlite_saver(path))
        protect(self.path)  # no tool in a worker process writes it
        self.busy_timeout = self.saver.busy_timeout if isinstance(self.saver, CheckpointFile) else BUSY_TIMEOUT
        self._reader: tuple[int, sqlite3.Connection] | None = None  # (its process, the cancel checks' connection)
        self._reader_lock = threading.Lock()
        with self.errors(), self.saver.lock:
            self.saver.conn.execute(self.CANCELS)
            holds.create_table(self.saver.conn)
            self.saver.conn.execute(self.RUNS)
            self.saver.conn.commit()

    @property
    def name(self) -> str:
        return str(self.path.absolute())

    @property
    def db_path(self) -> Path:
        return self.path

    @asynccontextmanager
    async def async_saver(self) -> AsyncIterator[BaseCheckpointSaver]:
        async with async_sqlite_saver(self.path, self.busy_timeout) as saver:
            yield saver

    @contextmanager
    def errors(self, run: str | None = None) -> Iterator[None]:
        with store_errors(self.path, (sqlite3.Error,), run):
            yield

    @contextmanager
    def reading(self, run: str | None = None) -> Iterator[None]:
        with reading_run(self.path, run):
            yield

    def request_cancel(self, thread_id: str | None) -> None:
        self._write(
            "INSERT INTO reactgraph_cancels VALUES (?, ?) ON CONFLICT (thread_id) DO UPDATE SET requested_at = excluded.requested_at",
            (thread_id or ALL_RUNS, time.time()),
        )

    def clear_cancel(self, thread_id: str) -> None:
        with self.errors(thread_id), closing(self._connect()) as conn:  # a read first: most runs have nothing to clear
            found = conn.execute("SELECT 1 FROM reactgraph_cancels WHERE thread_id = ?", (thread_id,)).fetchone()
        if found:
            self._write("DELETE FROM reactgraph_cancels WHERE thread_id = ?", (thread_id,))

    def cancel_requested(self, thread_id: str | None, started_at: float) -> bool:
        with self.errors(thread_id), self._reader_lock:
            rows = self._read_connection().execute(
                "SELECT 1 FROM reactgraph_cancels WHERE thread_id = ? OR (thread_id = ? AND requested_at >= ?)",
                (thread_id, ALL_RUNS, started_at),
            ).fetchall()  # all read: no statement keeps the file's read lock
        return bool(rows)

    def _read_connection(self) -> sqlite3.Connection:
        """The connection of the cancel checks (one each step of a run): kept, not opened for each; its own, so a
        check never waits for the saver's lock; autocommit, so each check sees the latest commit. A forked child
        opens its own."""
        if self._reader is None or self._reader[0] != os.getpid():
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
            self._reader = (os.getpid(), conn)
        return self._reader[1]

    def _take(self, thread_id: str) -> Callable[[], None]:
        """A row in ``reactgraph_holds``, its lease renewed while it is held (``holds.take_row``)."""
        with self.errors(thread_id):
            return holds.take_row(self.path, thread_id, self.busy_timeout)

    def unlock(self, thread_id: str, *, force: bool = False) -> str | None:
        """``holds.unlock``: the thread's hold row removed, whoever holds it."""
        with self.errors(thread_id):
            freed = holds.unlock(self.path, thread_id, self.busy_timeout, force=force)
        return freed.described() if freed is not None else None

    def record(self, activity: Activity) -> None:
        self._write(
            "INSERT INTO reactgraph_runs VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE SET "
            "state = excluded.state, question = COALESCE(excluded.question, question), owner = excluded.owner, "
            "since = excluded.since, error = excluded.error",
            (activity.thread_id, activity.state, activity.question, activity.owner, activity.since, activity.error),
        )

    def forget(self, thread_id: str) -> None:
        self._write("DELETE FROM reactgraph_runs WHERE thread_id = ?", (thread_id,))

    def activities(self) -> dict[str, Activity]:
        with self.errors(), closing(self._connect()) as conn:
            rows = conn.execute("SELECT thread_id, state, question, owner, since, error FROM reactgraph_runs").fetchall()
        return {row[0]: Activity(*row) for row in rows}

    def close(self) -> None:
        with self._reader_lock:
            if self._reader is not None and self._reader[0] == os.getpid():
                self._reader[1].close()
            self._reader = None
        if self._owned:
            self.saver.conn.close()

    def _connect(self) -> sqlite3.Connection:
        """A connection of its own: a cancel check never waits for the saver's lock."""
        return sqlite3.connect(self.path, timeout=self.busy_timeout)

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        with self.errors(), closing(self._connect()) as conn, conn:
            conn.execute(sql, params)
