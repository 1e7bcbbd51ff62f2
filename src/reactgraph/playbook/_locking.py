"""One change of a playbook at a time, across processes: the read-merge-write of ``Playbook.merge`` (and a
removal) holds the playbook in its store's database, so that two processes learning at once neither store the
same bullet twice nor lose a count.

- ``SqliteStore`` on a file: a row in the file's ``reactgraph_holds`` table (``persistence.holds.take_row``,
  written in a ``BEGIN IMMEDIATE`` transaction; a gone holder's row is taken over, at once or when its lease ends);
- ``PostgresStore``: a session advisory lock (in the key space of reactgraph's other locks, never a thread's:
  ``persistence.postgres.KIND_LOCK``), on a connection of its own (the server releases it when that connection ends);
- any other store (in memory, or one of another kind): the process's own lock only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore
from langgraph.store.sqlite import SqliteStore

from reactgraph.persistence.holds import take_row
from reactgraph.persistence.sqlite import BUSY_TIMEOUT

WAIT_SECONDS = 30.0  # how long a change waits for another process's change of the same playbook
_LOCAL: dict[tuple[int, str], threading.Lock] = {}
_LOCAL_LOCK = threading.Lock()


@contextmanager
def changing(store: BaseStore, key: str) -> Iterator[None]:
    """Hold ``key`` (a playbook's) in ``store`` while it changes: in this process, then in the store's database."""
    with _LOCAL_LOCK:
        local = _LOCAL.setdefault((id(store), key), threading.Lock())
    with local:
        if isinstance(store, SqliteStore) and (path := _sqlite_file(store)) is not None:
            release = take_row(path, key, BUSY_TIMEOUT, wait=WAIT_SECONDS)
            try:
                yield
            finally:
                release()
        elif type(store).__module__.startswith("langgraph.store.postgres"):
            with _advisory_lock(store.conn, key):  # type: ignore[attr-defined]
                yield
        else:
            yield


def _sqlite_file(store: SqliteStore) -> Path | None:
    with store.lock:
        rows = store.conn.execute("PRAGMA database_list").fetchall()
    file = next((row[2] for row in rows if row[1] == "main"), "")
    return Path(file) if file else None


@contextmanager
def _advisory_lock(conn: Any, key: str) -> Iterator[None]:
    """A session advisory lock on ``key``: on a connection of its own for a pool (the store's operations take the
    pool's others), else on the store's connection."""
    import psycopg

    from reactgraph.persistence.postgres import KIND_LOCK, PLAYBOOK

    sql = f"SELECT pg_advisory_lock({KIND_LOCK})"  # a key space of its own: a thread of the same name holds another
    if hasattr(conn, "conninfo"):  # a pool
        with psycopg.connect(conn.conninfo, autocommit=True) as own:
            own.execute(f"SET lock_timeout = '{int(WAIT_SECONDS * 1000)}ms'")
            own.execute(sql, (PLAYBOOK, key))
            yield  # the lock goes with the connection, closed here
        return
    conn.execute(sql, (PLAYBOOK, key))
    try:
        yield
    finally:
        try:
            conn.execute(f"SELECT pg_advisory_unlock({KIND_LOCK})", (PLAYBOOK, key))
        except psycopg.Error:  # the connection is gone, and its lock with it
            pass
