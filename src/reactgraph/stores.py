"""Where an agent's runs live: its checkpointer, and the cancel requests beside the checkpoints.

``open_store(spec)`` turns ``ReActAgent(checkpointer=...)`` into a RunStore:

- the default or a file path: a SQLite file (``SqliteRunStore``, see ``reactgraph.checkpoints``);
- a ``postgresql://`` (or ``postgres://``) URL, also from ``REACTGRAPH_DB``: a PostgreSQL database
  (``reactgraph.postgres.PostgresRunStore``);
- None: in memory; any LangGraph saver: that saver, as it is (``RunStore``).

A store gives the saver for sync calls, an async saver for each async run, a name for messages, and
turns its database's errors into CheckpointStoreError. Stores with a database keep cancel requests in
a table of their own (``reactgraph_cancels``), so a ``cancel`` from another process reaches the run:
a row per thread (``'*'``: every run started before ``requested_at``), deleted when a new run starts on
the thread.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph.checkpoints import (
    BUSY_TIMEOUT,
    DB_ENV,
    DEFAULT_DB,
    CheckpointFile,
    DefaultCheckpointer,
    async_sqlite_saver,
    reading_run,
    saver_path,
    sqlite_saver,
    store_errors,
)

ALL_RUNS = "*"  # the thread id of a cancel-all request
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(spec: Any) -> bool:
    """Whether ``spec`` is a PostgreSQL connection URL."""
    return isinstance(spec, str) and spec.strip().lower().startswith(POSTGRES_SCHEMES)


def default_db() -> str | Path:
    """``REACTGRAPH_DB`` (a file path or a ``postgresql://`` URL) when set, else ``./.reactgraph/checkpoints.sqlite``."""
    value = os.environ.get(DB_ENV, "").strip()
    return value if is_postgres_url(value) else Path(value or DEFAULT_DB)


class RunStore:
    """Runs in a LangGraph saver the agent did not open (or in memory): no errors to translate, and
    cancel requests only in the process (``Deps``)."""

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        self.saver = saver

    @property
    def name(self) -> str | None:
        """The database as messages name it (a file, a URL without its password); None in memory."""
        return None

    @property
    def db_path(self) -> Path | None:
        """The SQLite file behind the store, if any."""
        return None

    @asynccontextmanager
    async def async_saver(self) -> AsyncIterator[BaseCheckpointSaver]:
        """The saver for one async run."""
        yield self.saver

    @contextmanager
    def errors(self, run: str | None = None) -> Iterator[None]:
        """The database's errors while using it (for ``run``) as CheckpointStoreError."""
        yield

    @contextmanager
    def reading(self, run: str | None = None) -> Iterator[None]:
        """As ``errors``, and a state that is no result of this version as CheckpointStoreError."""
        yield

    def thread_ids(self) -> list[str] | None:
        """Every thread with a checkpoint, most recently updated first; None: ask the saver."""
        return None

    def request_cancel(self, thread_id: str | None) -> None:
        """Store a request to stop the run on ``thread_id`` (None: every run started before now)."""

    def clear_cancel(self, thread_id: str) -> None:
        """Forget the requests to stop ``thread_id`` (a new run on it starts uncancelled)."""

    def cancel_requested(self, thread_id: str | None, started_at: float) -> bool:
        """Whether a stored request stops the run on ``thread_id`` that started at ``started_at``."""
        return False

    def close(self) -> None:
        """Close what the store opened (a saver given by the caller is left to its owner)."""


class SqliteRunStore(RunStore):
    """Runs in a SQLite file: LangGraph's SqliteSaver (AsyncSqliteSaver for async runs) and the cancel table."""

    CANCELS = "CREATE TABLE IF NOT EXISTS reactgraph_cancels (thread_id TEXT PRIMARY KEY, requested_at REAL NOT NULL)"

    def __init__(self, path: Path, saver: SqliteSaver | None = None) -> None:
        self.path, self._owned = Path(path), saver is None
        super().__init__(saver if saver is not None else sqlite_saver(path))
        self.busy_timeout = self.saver.busy_timeout if isinstance(self.saver, CheckpointFile) else BUSY_TIMEOUT
        with self.errors(), self.saver.lock:
            self.saver.conn.execute(self.CANCELS)
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

    def errors(self, run: str | None = None):
        return store_errors(self.path, (sqlite3.Error,), run)

    def reading(self, run: str | None = None):
        return reading_run(self.path, run)

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
        with self.errors(thread_id), closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT 1 FROM reactgraph_cancels WHERE thread_id = ? OR (thread_id = ? AND requested_at >= ?)",
                (thread_id, ALL_RUNS, started_at),
            ).fetchone()
        return row is not None

    def close(self) -> None:
        if self._owned:
            self.saver.conn.close()

    def _connect(self) -> sqlite3.Connection:
        """A connection of its own: a cancel check never waits for the saver's lock."""
        return sqlite3.connect(self.path, timeout=self.busy_timeout)

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        with self.errors(), closing(self._connect()) as conn, conn:
            conn.execute(sql, params)


def open_store(spec: Any) -> RunStore:
    """The store ``ReActAgent(checkpointer=spec)`` means: DEFAULT_CHECKPOINTER (``REACTGRAPH_DB``), a file
    path or a ``postgresql://`` URL -> that database; None -> in memory; a LangGraph saver -> itself."""
    if spec is None:
        return RunStore(InMemorySaver())
    if isinstance(spec, DefaultCheckpointer):
        spec = default_db()
    if is_postgres_url(spec):
        from reactgraph.postgres import PostgresRunStore  # psycopg is loaded only for Postgres

        return PostgresRunStore(spec.strip())
    if isinstance(spec, str | os.PathLike):
        return SqliteRunStore(Path(spec))
    if isinstance(spec, BaseCheckpointSaver):
        path = saver_path(spec)
        return SqliteRunStore(path, spec) if path is not None else RunStore(spec)
    raise TypeError(f"checkpointer must be a LangGraph saver, a file path, a postgresql:// URL or None, got {type(spec).__name__}")
