"""Holds in a SQLite file's ``reactgraph_holds`` table: a thread a run or resume drives, a playbook being changed.

A hold is a row: its key, its holder (a process: its pid and start time, and the hold's own id), the host it runs on,
when it was taken, and its lease (``expires``), which the holder renews every ``LEASE_SECONDS`` / 4 while it holds
(``Renewals``: one thread per process renews them all). Another process takes the key over once the holder is gone:
at once when it can see that (the holder ran on this host, and its pid has ended or is another process now), else once
the lease has run out, for a holder it cannot see (on another host; or killed before its host changed its name, as a
restarted container or pod does): it renews no more. ``unlock`` frees a key whoever holds it (``reactgraph unlock``).
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from reactgraph.persistence.base import HOLD_POLL_SECONDS, ThreadBusyError, busy

LEASE_SECONDS = 60.0  # how long a hold lasts unless its holder renews it (every quarter of it)
logger = logging.getLogger(__name__)

HOLDS = (
    "CREATE TABLE IF NOT EXISTS reactgraph_holds (thread_id TEXT PRIMARY KEY, holder TEXT NOT NULL, "
    "host TEXT NOT NULL, pid INTEGER NOT NULL, since REAL NOT NULL, expires REAL)"
)


def create_table(conn: sqlite3.Connection) -> None:
    """The holds table, with its lease column (a table of a version without leases gains it: its rows' leases run
    ``LEASE_SECONDS`` from when they were taken)."""
    conn.execute(HOLDS)
    if "expires" not in {row[1] for row in conn.execute("PRAGMA table_info(reactgraph_holds)")}:
        conn.execute("ALTER TABLE reactgraph_holds ADD COLUMN expires REAL")


class Holder(NamedTuple):
    """Who holds a key: the row of ``reactgraph_holds``."""

    holder: str  # 'pid@start:hold id'
    host: str
    pid: int
    since: float
    expires: float | None

    @property
    def lease_end(self) -> float:
        return self.expires if self.expires is not None else self.since + LEASE_SECONDS

    def seen_alive(self) -> bool | None:
        """Whether its process runs, as far as this process can see: True or False on this host (this process's own
        holds while they last), None elsewhere."""
        if self.host != socket.gethostname():
            return None
        if self.pid == os.getpid():
            return RENEWALS.holds(self.holder)
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return self.holder.split(":", 1)[0] == holder_id(self.pid)

    def held(self, now: float) -> bool:
        """Whether the hold still stands: not when its holder is seen gone, nor once its lease has run out."""
        return self.seen_alive() is not False and now < self.lease_end

    def described(self) -> str:
        return (
            f"process {self.pid} on {self.host}, since {_clock(self.since)}, its lease renewed to {_clock(self.lease_end)}"
        )


def _clock(moment: float) -> str:
    return datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M:%S")


def take_row(path: Path, key: str, busy_timeout: float, *, wait: float = 0.0) -> Callable[[], None]:
    """Hold ``key`` in the file's ``reactgraph_holds`` table: a row written in one ``BEGIN IMMEDIATE`` transaction
    with the look at who holds it now (a hold that stands: ThreadBusyError; with ``wait``, look again for that many
    seconds), its lease renewed from then on. The function that gives it back. The thread holds of a run store, the
    playbook's lock."""
    holder = f"{holder_id()}:{uuid.uuid4().hex}"  # this process, and this hold of its
    deadline = time.monotonic() + wait
    with closing(sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)) as conn:
        while True:
            conn.execute("BEGIN IMMEDIATE")
            try:
                create_table(conn)
                found = _holder(conn, key)
                now = time.time()
                if found is None or not found.held(now):
                    if found is not None and found.seen_alive() is None:
                        logger.warning("%r: taken over from %s: its lease ran out (%s)", key, found.described(), path)
                    conn.execute(
                        "INSERT OR REPLACE INTO reactgraph_holds (thread_id, holder, host, pid, since, expires) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (key, holder, socket.gethostname(), os.getpid(), now, now + LEASE_SECONDS),
                    )
                    conn.execute("COMMIT")
                    break
                conn.execute("ROLLBACK")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            if time.monotonic() >= deadline:
                raise busy(key, f"{found.described()}; database {path.absolute()}")
            time.sleep(HOLD_POLL_SECONDS)
    RENEWALS.add(holder, path, key, busy_timeout)

    def release() -> None:
        RENEWALS.discard(holder)  # a row left behind (the file locked now) is taken over once its lease runs out
        try:
            with closing(sqlite3.connect(path, timeout=busy_timeout)) as conn, conn:
                conn.execute("DELETE FROM reactgraph_holds WHERE thread_id = ? AND holder = ?", (key, holder))
        except sqlite3.Error as exc:
            logger.warning("%r: its hold stays in %s until its lease runs out (%s)", key, path, exc)

    return release


def unlock(path: Path, key: str, busy_timeout: float, *, force: bool = False) -> Holder | None:
    """Free ``key`` whoever holds it: the hold removed (None when there was none). A holder this process sees
    running (on this host) is ThreadBusyError unless ``force``: freeing it lets a second run of the thread overlap
    its own."""
    with closing(sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            create_table(conn)
            found = _holder(conn, key)
            if found is not None and found.seen_alive() and not force:
                raise ThreadBusyError(
                    f"{key!r} is held by {found.described()}, which still runs on this host: stop it, or unlock with "
                    "--force (a run of the thread may then overlap its own)"
                )
            conn.execute("DELETE FROM reactgraph_holds WHERE thread_id = ?", (key,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found


def _holder(conn: sqlite3.Connection, key: str) -> Holder | None:
    row = conn.execute("SELECT holder, host, pid, since, expires FROM reactgraph_holds WHERE thread_id = ?", (key,)).fetchone()
    return Holder(*row) if row is not None else None


def holder_id(pid: int | None = None) -> str:
    """A process as a holder: its pid and its start time (so a later process given the same pid is another)."""
    pid = pid or os.getpid()
    try:
        with open(f"/proc/{pid}/stat") as stat:
            started = stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        started = "?"
    return f"{pid}@{started}"


class Renewals:
    """The holds this process has now, their leases renewed every ``LEASE_SECONDS`` / 4 by one daemon thread, started
    with the first hold. A hold whose row is gone (freed by ``unlock``, or taken over after its lease ran out while
    this process could not renew it) is logged, and renewed no more."""

    def __init__(self) -> None:
        self._holds: dict[str, tuple[Path, str, float]] = {}  # holder -> (file, key, busy timeout)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, holder: str, path: Path, key: str, busy_timeout: float) -> None:
        with self._lock:
            self._holds[holder] = (path, key, busy_timeout)
            if self._thread is None or not self._thread.is_alive():  # none yet, or not in this forked child
                self._thread = threading.Thread(target=self._renew_forever, name="reactgraph-hold-leases", daemon=True)
                self._thread.start()

    def discard(self, holder: str) -> None:
        with self._lock:
            self._holds.pop(holder, None)

    def holds(self, holder: str) -> bool:
        with self._lock:
            return holder in self._holds

    def _renew_forever(self) -> None:
        while True:
            time.sleep(LEASE_SECONDS / 4)
            with self._lock:
                held = list(self._holds.items())
            for holder, (path, key, busy_timeout) in held:
                self._renew(holder, path, key, busy_timeout)

    def _renew(self, holder: str, path: Path, key: str, busy_timeout: float) -> None:
        try:
            with closing(sqlite3.connect(path, timeout=busy_timeout)) as conn, conn:
                renewed = conn.execute(
                    "UPDATE reactgraph_holds SET expires = ? WHERE thread_id = ? AND holder = ?",
                    (time.time() + LEASE_SECONDS, key, holder),
                ).rowcount
        except sqlite3.Error as exc:  # tried again at the next round, well before the lease runs out
            logger.warning("%r: its hold's lease in %s not renewed now (%s)", key, path, exc)
            return
        if not renewed and self.holds(holder):
            logger.warning("%r: this process's hold in %s was freed by another (unlocked, or its lease ran out)", key, path)
            self.discard(holder)


RENEWALS = Renewals()
