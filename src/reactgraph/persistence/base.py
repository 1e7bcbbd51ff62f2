"""What every run store shares: the errors, the default database, and ``RunStore``, the store of a LangGraph
saver the agent did not open (or of memory). ``sqlite`` and ``postgres`` build on it; ``open_store`` (the
package) picks one."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

DB_ENV = "REACTGRAPH_DB"
DEFAULT_DB = Path(".reactgraph") / "checkpoints.sqlite"
ALL_RUNS = "*"  # the thread id of a cancel-all request
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# What decoding a stored row raises when its bytes are not what the saver wrote (bad msgpack or
# UTF-8 or JSON, an unknown serializer, a value of the wrong shape).
DECODE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError, NotImplementedError)


class CheckpointStoreError(RuntimeError):
    """The checkpoint database cannot be used; the message names the file and what to do."""


class RunNotFoundError(LookupError):
    """No checkpoint exists for the thread id."""


class DefaultCheckpointer:
    """Marker for "the default SQLite file" (``REACTGRAPH_DB`` or ``./.reactgraph/checkpoints.sqlite``)."""

    def __repr__(self) -> str:
        return "DEFAULT_CHECKPOINTER"


DEFAULT_CHECKPOINTER = DefaultCheckpointer()


def is_postgres_url(spec: Any) -> bool:
    """Whether ``spec`` is a PostgreSQL connection URL."""
    return isinstance(spec, str) and spec.strip().lower().startswith(POSTGRES_SCHEMES)


def default_db() -> str | Path:
    """``REACTGRAPH_DB`` (a file path or a ``postgresql://`` URL) when set, else ``./.reactgraph/checkpoints.sqlite``."""
    value = os.environ.get(DB_ENV, "").strip()
    return value if is_postgres_url(value) else Path(value or DEFAULT_DB)


class RunStore:
    """Runs in a LangGraph saver the agent did not open (or in memory): no errors to translate, and
    cancel requests only in the process (``NodeDeps``)."""

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
