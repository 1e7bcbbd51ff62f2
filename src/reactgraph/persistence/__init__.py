"""Where an agent's runs live: its checkpointer, and the cancel requests beside the checkpoints.

``open_store(spec)`` turns ``ReActAgent(checkpointer=...)`` into a RunStore (``base``):

- the default or a file path: a SQLite file (``sqlite.SqliteRunStore``);
- a ``postgresql://`` (or ``postgres://``) URL, also from ``REACTGRAPH_DB``: a PostgreSQL database
  (``postgres.PostgresRunStore``);
- None: in memory; any LangGraph saver: that saver, as it is (``RunStore``).

A store gives the saver for sync calls, an async saver for each async run, a name for messages, and
turns its database's errors into CheckpointStoreError. Stores with a database keep cancel requests in
a table of their own (``reactgraph_cancels``), so a ``cancel`` from another process reaches the run:
a row per thread (``'*'``: every run started before ``requested_at``), deleted when a new run starts on
the thread. Beside them, ``reactgraph_runs`` (``activity``) keeps what the checkpoints cannot say: which runs a
process is driving now, and the error of a run an exception ended. ``reading`` reads runs back from any saver.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph.errors import missing_extra
from reactgraph.persistence._export import format_trace
from reactgraph.persistence.base import (
    DB_ENV,
    DEFAULT_CHECKPOINTER,
    CheckpointStoreError,
    DefaultCheckpointer,
    RunNotFoundError,
    RunStore,
    default_db,
    is_postgres_url,
)
from reactgraph.persistence.reading import HistoryEntry, RunInfo, thread_config
from reactgraph.persistence.sqlite import SqliteRunStore, saver_path

__all__ = [
    "DB_ENV",
    "DEFAULT_CHECKPOINTER",
    "CheckpointStoreError",
    "DefaultCheckpointer",
    "HistoryEntry",
    "RunInfo",
    "RunNotFoundError",
    "RunStore",
    "default_db",
    "format_trace",
    "is_postgres_url",
    "open_store",
    "thread_config",
]


def open_store(spec: Any) -> RunStore:
    """The store ``ReActAgent(checkpointer=spec)`` means: DEFAULT_CHECKPOINTER (``REACTGRAPH_DB``), a file
    path or a ``postgresql://`` URL -> that database; None -> in memory; a LangGraph saver -> itself."""
    if spec is None:
        return RunStore(InMemorySaver())
    if isinstance(spec, DefaultCheckpointer):
        spec = default_db()
    if is_postgres_url(spec):
        try:  # psycopg is loaded only for Postgres, and installed with the extra
            from reactgraph.persistence.postgres import PostgresRunStore
        except ImportError as exc:
            raise missing_extra("postgres", "a PostgreSQL database (a postgresql:// URL)", exc) from None

        return PostgresRunStore(spec.strip())
    if isinstance(spec, str | os.PathLike):
        return SqliteRunStore(Path(spec))
    if isinstance(spec, BaseCheckpointSaver):
        path = saver_path(spec)  # a SqliteSaver's file
        return SqliteRunStore(path, spec) if isinstance(spec, SqliteSaver) and path is not None else RunStore(spec)
    raise TypeError(f"checkpointer must be a LangGraph saver, a file path, a postgresql:// URL or None, got {type(spec).__name__}")
