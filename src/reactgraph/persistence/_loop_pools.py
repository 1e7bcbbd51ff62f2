"""One async connection pool per event loop, for the async runs of a Postgres store.

A psycopg ``AsyncConnectionPool`` belongs to the loop that opened it (its workers are tasks of that loop),
so a process that runs ``asyncio.run`` twice needs two. ``LoopPools.get()`` opens the running loop's pool
on its first call there and returns it to every later one; ``close()`` closes them all, from any thread:

- a loop that is closed (``asyncio.run`` has returned): its pool's tasks are gone, so the connections
  it opened are ended at once (libpq's ``finish``);
- a loop that waits, not running (``asyncio.Runner`` between runs): the pool is closed on it;
- a loop running in another thread: the pool is closed on it, and ``close()`` waits for that;
- the loop running this very call: the pool is closed by a task of that loop, when it next gets control
  (connections in use close when their run returns them). Close from a thread
  (``await asyncio.to_thread(agent.close)``) to wait for it.

Pools of loops closed since are ended whenever a loop opens its pool, so a process running one
``asyncio.run`` after another keeps one pool's connections.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

CLOSE_TIMEOUT = 10.0  # seconds close() waits for a pool closed on a loop running in another thread
_closing: set[asyncio.Task[None]] = set()  # pools being closed by a task of their loop


@dataclass
class LoopPool:
    """The pool of one loop, the connections it opened and the task that opens it."""

    loop: asyncio.AbstractEventLoop
    pool: AsyncConnectionPool[Any]
    opening: asyncio.Task[None]
    connections: weakref.WeakSet[psycopg.AsyncConnection] = field(default_factory=weakref.WeakSet)

    def close(self) -> None:
        """Close the pool on its loop when it can run there, else end its connections (see the module)."""
        if self.loop.is_closed():
            self.end_connections()
        elif not self.loop.is_running():
            self.loop.run_until_complete(self.pool.close())
        elif _running_loop() is self.loop:
            task = self.loop.create_task(self.pool.close())
            _closing.add(task)  # the loop keeps only a weak reference to its tasks
            task.add_done_callback(_closing.discard)
        else:
            asyncio.run_coroutine_threadsafe(self.pool.close(), self.loop).result(CLOSE_TIMEOUT)

    def end_connections(self) -> None:
        """End every connection the pool opened that is still open (its loop is closed: nothing uses them)."""
        for conn in list(self.connections):
            if not conn.closed:
                conn.pgconn.finish()


class LoopPools:
    """The async pools of one database, one per event loop (see the module). ``make_pool(configure)`` builds
    a pool, not opened, that calls ``configure`` on each new connection."""

    def __init__(self, make_pool: Callable[..., AsyncConnectionPool[Any]], open_timeout: float) -> None:
        self.make_pool = make_pool
        self.open_timeout = open_timeout
        self._pools: dict[asyncio.AbstractEventLoop, LoopPool] = {}
        self._lock = threading.Lock()  # loops in several threads may open their pools at once

    async def get(self) -> AsyncConnectionPool[Any]:
        """The running loop's pool, opened on the first call in this loop (psycopg and pool errors propagate)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            gone = [self._pools.pop(key) for key in list(self._pools) if key.is_closed()]
            entry = self._pools.get(loop)
            if entry is None:
                entry = self._pools[loop] = self._start(loop)
        for old in gone:
            old.end_connections()
        try:
            await asyncio.shield(entry.opening)  # a run cancelled meanwhile leaves the opening to the others
        except Exception:  # the pool did not open: the next run tries again
            with self._lock:
                if self._pools.get(loop) is entry:
                    del self._pools[loop]
            await entry.pool.close()
            raise
        return entry.pool

    def close(self) -> None:
        """Close every loop's pool (see the module)."""
        with self._lock:
            entries, self._pools = list(self._pools.values()), {}
        for entry in entries:
            entry.close()

    def _start(self, loop: asyncio.AbstractEventLoop) -> LoopPool:
        connections: weakref.WeakSet[psycopg.AsyncConnection] = weakref.WeakSet()

        async def track(conn: psycopg.AsyncConnection) -> None:
            connections.add(conn)

        pool = self.make_pool(track)
        opening = loop.create_task(pool.open(wait=True, timeout=self.open_timeout))
        return LoopPool(loop, pool, opening, connections)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
