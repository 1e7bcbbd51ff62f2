"""What every run store shares: the errors, the default database, and ``RunStore``, the store of a LangGraph
saver the agent did not open (or of memory). ``sqlite`` and ``postgres`` build on it; ``open_store`` (the
package) picks one."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from reactgraph.persistence.activity import Activity, driving, error_text, this_owner

logger = logging.getLogger(__name__)

DB_ENV = "REACTGRAPH_DB"
DEFAULT_DB = Path(".reactgraph") / "checkpoints.sqlite"
ALL_RUNS = "*"  # the thread id of a cancel-all request
HOLD_POLL_SECONDS = 0.05  # how often a worker waiting for a thread another holds looks again
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# What decoding a stored row raises when its bytes are not what the saver wrote (bad msgpack or
# UTF-8 or JSON, an unknown serializer, a value of the wrong shape).
DECODE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError, NotImplementedError)


class CheckpointStoreError(RuntimeError):
    """The checkpoint database cannot be used; the message names the file and what to do."""


class RunNotFoundError(LookupError):
    """No checkpoint exists for the thread id."""


class ThreadBusyError(RuntimeError):
    """A run or resume on the thread is already in progress (in this process or another); the message names the
    thread. Nothing was run: wait until the other ends or pauses, then resume the thread."""


def busy(thread_id: str, where: str) -> ThreadBusyError:
    return ThreadBusyError(
        f"thread {thread_id!r} is busy: a run or resume on it is already in progress ({where}); nothing was run. "
        "Wait until it ends or pauses, then resume it (a holder that is gone frees it when its lease runs out; "
        f"`reactgraph unlock {thread_id}` frees it now)"
    )


class Hold:
    """A thread held by an async run (``RunStore.aholding``): ``alive`` says whether it is still held, ``release``
    gives it back. Here: held until released (a row, or this process's memory); Postgres's may be lost with the
    connection that holds it."""

    def __init__(self, release: Callable[[], None] | None = None) -> None:
        self._release = release

    async def alive(self) -> bool:
        return True

    async def release(self) -> None:
        if self._release is not None:
            await asyncio.to_thread(self._release)


# The threads the current context holds (store, thread): a run inside a hold of its own thread (a queue worker's
# job, which holds the thread while it looks at the run and then runs it) does not take it twice.
_HELD: ContextVar[frozenset[tuple[int, str]]] = ContextVar("reactgraph_held_threads", default=frozenset())
_LOCAL = threading.Lock()
_LOCAL_HOLDS: set[tuple[int, str]] = set()  # threads held in this process, for stores without a database


def _entered(key: tuple[int, str]) -> Callable[[], None]:
    """Mark ``key`` held in this context; the function that unmarks it."""
    previous = _HELD.get()
    token = _HELD.set(previous | {key})

    def left() -> None:
        try:
            _HELD.reset(token)
        except ValueError:  # left from another context (a generator closed elsewhere)
            _HELD.set(previous)

    return left


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
        self._activities: dict[str, Activity] = {}  # in this process only: a store with a database keeps a table

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

    @contextmanager
    def holding(self, thread_id: str) -> Iterator[None]:
        """Hold ``thread_id`` while a run or resume drives it: one at a time per thread, across the processes on
        the store's database (``ThreadBusyError`` naming it when another holds it). Re-entered freely in the
        context that holds it."""
        key = (id(self.saver), thread_id)
        if key in _HELD.get():
            yield
            return
        release = self._take(thread_id)
        left = _entered(key)
        try:
            yield
        finally:
            left()
            release()

    @asynccontextmanager
    async def aholding(self, thread_id: str, *, wait: bool = False) -> AsyncIterator[Hold]:
        """``holding`` in async code; with ``wait``, wait for the thread instead of raising ThreadBusyError. Gives
        the ``Hold``, which says whether it still holds (a queue worker stops a run that lost it)."""
        key = (id(self.saver), thread_id)
        if key in _HELD.get():
            yield Hold()
            return
        hold = await self._atake(thread_id, wait)
        left = _entered(key)
        try:
            yield hold
        finally:
            left()
            await hold.release()

    def _take(self, thread_id: str) -> Callable[[], None]:
        """Take ``thread_id`` (ThreadBusyError when it is held); the function that gives it back. Here: in this
        process only (a saver in memory, or one the agent did not open)."""
        key = (id(self.saver), thread_id)
        with _LOCAL:
            if key in _LOCAL_HOLDS:
                raise busy(thread_id, "in this process")
            _LOCAL_HOLDS.add(key)

        def release() -> None:
            with _LOCAL:
                _LOCAL_HOLDS.discard(key)

        return release

    async def _atake(self, thread_id: str, wait: bool) -> Hold:
        """``_take`` from async code; with ``wait``, poll until the thread is free."""
        while True:
            try:
                return Hold(await asyncio.to_thread(self._take, thread_id))
            except ThreadBusyError:
                if not wait:
                    raise
                await asyncio.sleep(HOLD_POLL_SECONDS)

    # -- what the checkpoints cannot say (``activity``) -------------------------------------

    @contextmanager
    def tracking(self, thread_id: str, question: str | None = None) -> Iterator[None]:
        """While the block drives the run on ``thread_id``, it is ``running``; an exception out of it marks the run
        ``failed`` with the error; anything else (its end, Ctrl-C) leaves the checkpoints to say how it stands. A
        database that refuses the row at the start refuses the run (CheckpointStoreError); one that refuses it at
        the end does not hide the run's own error (``persistence.activity.driving`` keeps the row from outliving
        the drive)."""
        with driving(thread_id):
            self.record(Activity(thread_id, "running", question, this_owner(), time.time()))
            try:
                yield
            except Exception as exc:
                self._settle(self.record, Activity(thread_id, "failed", question, this_owner(), time.time(), error_text(exc)))
                raise
            except BaseException:
                self._settle(self.forget, thread_id)
                raise
            self._settle(self.forget, thread_id)

    @asynccontextmanager
    async def atracking(self, thread_id: str, question: str | None = None) -> AsyncIterator[None]:
        """``tracking`` in async code (the database written from a worker thread)."""
        with driving(thread_id):
            await asyncio.to_thread(self.record, Activity(thread_id, "running", question, this_owner(), time.time()))
            try:
                yield
            except Exception as exc:
                failed = Activity(thread_id, "failed", question, this_owner(), time.time(), error_text(exc))
                await asyncio.to_thread(self._settle, self.record, failed)
                raise
            except BaseException:
                self._settle(self.forget, thread_id)  # a cancelled task: no awaiting any more
                raise
            await asyncio.to_thread(self._settle, self.forget, thread_id)

    @staticmethod
    def _settle(write: Any, value: Any) -> None:
        """A row's last write; a database that refuses it (locked, full) is logged, not raised over the run's end."""
        try:
            write(value)
        except CheckpointStoreError as exc:
            logger.warning("the run's state could not be recorded: %s", exc)

    def record(self, activity: Activity) -> None:
        """Store ``activity`` as its thread's row (a question it lacks is kept from the row before)."""
        before = self._activities.get(activity.thread_id)
        if activity.question is None and before is not None:
            activity = Activity(**{**activity.__dict__, "question": before.question})
        self._activities[activity.thread_id] = activity

    def forget(self, thread_id: str) -> None:
        """Remove the thread's row: its checkpoints say how it stands."""
        self._activities.pop(thread_id, None)

    def activities(self) -> dict[str, Activity]:
        """Every row, by thread."""
        return dict(self._activities)

    def thread_ids(self) -> list[str] | None:
        """Every thread with a checkpoint, most recently updated first; None: ask the saver."""
        return None

    def unlock(self, thread_id: str, *, force: bool = False) -> str | None:
        """Free the thread whoever holds it (``reactgraph unlock``): a holder that is gone and whose hold has not
        expired yet (killed on another host). Who held it (None: nobody in the database); ThreadBusyError when this
        process can see the holder still running, unless ``force``. Here: holds live in the process, and end with it."""
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
