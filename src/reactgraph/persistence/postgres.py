"""Runs in PostgreSQL: LangGraph's PostgresSaver on a connection pool, AsyncPostgresSaver for async runs.

``ReActAgent(checkpointer="postgresql://user:password@host/db")`` (or ``REACTGRAPH_DB``, or ``--db``)
connects once to check the URL, creates LangGraph's tables (``setup()``) and ours (``reactgraph_cancels``,
``reactgraph_runs``)
when missing, under an advisory lock, so that many processes starting at once do not race, then keeps a pool of
connections for the sync calls, and one async pool per event loop for the async runs (``_loop_pools``:
opened by the loop's first run, shared by the later ones, closed with the store). Every error names the database
by its URL with the password hidden, and says what is wrong.

Each async run gets an AsyncPostgresSaver of its own on its loop's pool: the saver does one operation at a time
(under its lock), taking a connection from the pool for each, so a run holds at most one connection at once and
runs of one loop proceed side by side up to the pool's size; beyond it they wait their turn for a connection.
"""

from __future__ import annotations

import selectors
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import DictRow, Row, dict_row
from psycopg_pool import AsyncConnectionPool, ConnectionPool, PoolTimeout

from reactgraph.persistence._loop_pools import LoopPools
from reactgraph.persistence.activity import Activity
from reactgraph.persistence.base import ALL_RUNS, DECODE_ERRORS, CheckpointStoreError, Hold, RunStore, busy
from reactgraph.persistence.pools import EndingPool

CONNECT_TIMEOUT = 10  # seconds to reach the server before the URL is reported unusable
POOL_SIZE = 4  # connections of the sync pool (the saver takes one at a time; cancel checks another)
ASYNC_POOL_SIZE = 10  # most connections of one loop's async pool: runs at once that never wait for one (a run holds one)
# Advisory locks in two key spaces that never meet (Postgres keeps a lock on one 64-bit key apart from one on two 32-bit
# keys): a thread held by a run (the queue's workers' too) on the 64-bit hash of its id, every other lock on two keys,
# its kind and its name's hash. A thread named as another lock (the playbook's) never waits for it.
THREAD_LOCK = "hashtextextended(%s, 0)"
KIND_LOCK = "%s::int4, hashtext(%s)"
SETUP, QUEUE_SCHEMA, PLAYBOOK = 0x72670001, 0x72670002, 0x72670003  # the kinds ('rg' 1-3): the tables, the queue's, a playbook
# A thread's hold is its session's: the server ends the session of a holder that is gone, and the hold with it, at once
# when its process died (the socket closes), else when its host stops answering these TCP keepalives (~50 s).
KEEPALIVES = (
    "SELECT set_config('tcp_keepalives_idle', '20', false), set_config('tcp_keepalives_interval', '10', false), "
    "set_config('tcp_keepalives_count', '3', false)"
)
SETUP_POLL_SECONDS = 0.05  # how often a process waiting for another's setup looks again
CONNECTION: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}  # what the savers expect
CANCELS = "CREATE TABLE IF NOT EXISTS reactgraph_cancels (thread_id TEXT PRIMARY KEY, requested_at DOUBLE PRECISION NOT NULL)"
RUNS = (  # persistence.activity: the runs being driven now, and the ones an exception ended
    "CREATE TABLE IF NOT EXISTS reactgraph_runs (thread_id TEXT PRIMARY KEY, state TEXT NOT NULL, question TEXT, "
    "owner TEXT NOT NULL, since DOUBLE PRECISION NOT NULL, error TEXT)"
)
ERRORS = (psycopg.Error, PoolTimeout)


def redacted(url: str) -> str:
    """``url`` with its password shown as ``***``."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
    except ValueError:
        return "a postgresql:// URL that cannot be read"


def describe_error(url: str, exc: BaseException, run: str | None = None) -> str:
    """A message naming the database (password hidden) and the run, saying what is wrong and what to do."""
    detail = " ".join(str(exc).split())
    if password := _password(url):
        detail = detail.replace(password, "***")
    of_run = f" (run {run!r})" if run is not None else ""
    if isinstance(exc, DECODE_ERRORS):
        what, advice = "a stored checkpoint cannot be read", "the row is corrupt or was written by another program; it was left untouched"
    elif isinstance(exc, PoolTimeout) or (isinstance(exc, psycopg.OperationalError) and _connecting(exc)):
        what, advice = "cannot connect or lost the connection", "check the URL, that the server runs and accepts the user and password"
    else:
        what, advice = "cannot be used", "check the URL and the user's rights on the database"
    return f"checkpoint database {redacted(url)}{of_run}: {what} ({type(exc).__name__}: {detail}); {advice}"


def only_row(cursor: psycopg.Cursor[Row]) -> Row:
    """The row of a query that gives one (a SELECT of values): psycopg types ``fetchone()`` as maybe none."""
    row = cursor.fetchone()
    if row is None:
        raise psycopg.DataError("the query returned no row")
    return row


def check_if_closed(conn: psycopg.Connection[Any]) -> None:
    """The pools' test of a connection they hand out, without psycopg_pool's round trip (``check_connection``) each
    time: an idle connection has nothing to read unless the server ended it (a restart, an idle timeout: its last
    message and the end of the stream wait there) or sent a notice; then that round trip decides."""
    if _readable(conn):
        ConnectionPool.check_connection(conn)


async def acheck_if_closed(conn: psycopg.AsyncConnection[Any]) -> None:
    """``check_if_closed`` for the async pools (procrastinate's too)."""
    if _readable(conn):
        await AsyncConnectionPool.check_connection(conn)


def _readable(conn: psycopg.Connection | psycopg.AsyncConnection) -> bool:
    if conn.closed:
        return True
    with selectors.DefaultSelector() as selector:  # not select.select: a socket's number may pass FD_SETSIZE
        selector.register(conn.fileno(), selectors.EVENT_READ)
        return bool(selector.select(0))


def _connecting(exc: psycopg.Error) -> bool:
    """Whether ``exc`` is a failure to connect: no server, refused login, no such database (SQLSTATE 08, 28, 3D)."""
    return exc.sqlstate is None or exc.sqlstate[:2] in ("08", "28", "3D")


def _password(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:
        return None


class PostgresRunStore(RunStore):
    """Runs in a PostgreSQL database (see the module)."""

    def __init__(self, url: str) -> None:
        self.url = url
        with self.errors():
            with psycopg.connect(
                url, connect_timeout=CONNECT_TIMEOUT, autocommit=True, prepare_threshold=0, row_factory=dict_row
            ) as conn:  # CONNECTION
                setup(conn)
            pool: ConnectionPool[psycopg.Connection[DictRow]] = ConnectionPool(  # a connection the server closed is replaced when taken (``check_if_closed``)
                url, min_size=1, max_size=POOL_SIZE, kwargs=CONNECTION | {"connect_timeout": CONNECT_TIMEOUT},
                timeout=CONNECT_TIMEOUT, check=check_if_closed, open=True, name="reactgraph",
            )
        self.pool = pool
        self.async_pools = LoopPools(self._async_pool, CONNECT_TIMEOUT)
        super().__init__(PostgresSaver(pool))

    @property
    def name(self) -> str:
        return redacted(self.url)

    @asynccontextmanager
    async def async_saver(self) -> AsyncIterator[BaseCheckpointSaver]:
        with self.errors():
            pool = await self.async_pools.get()
        yield AsyncPostgresSaver(pool)

    def _async_pool(
        self, configure: Callable[[psycopg.AsyncConnection[Any]], Awaitable[None]]
    ) -> AsyncConnectionPool[psycopg.AsyncConnection[DictRow]]:
        """A loop's async pool, not opened yet, calling ``configure`` on each new connection."""
        return EndingPool(
            self.url, min_size=1, max_size=ASYNC_POOL_SIZE, kwargs=CONNECTION | {"connect_timeout": CONNECT_TIMEOUT},
            timeout=CONNECT_TIMEOUT, check=acheck_if_closed, configure=configure, open=False, name="reactgraph-async",
        )

    @contextmanager
    def errors(self, run: str | None = None) -> Iterator[None]:
        try:
            yield
        except ERRORS as exc:
            raise CheckpointStoreError(describe_error(self.url, exc, run)) from exc

    @contextmanager
    def reading(self, run: str | None = None) -> Iterator[None]:
        try:
            yield
        except (*ERRORS, *DECODE_ERRORS) as exc:
            raise CheckpointStoreError(describe_error(self.url, exc, run)) from exc

    def thread_ids(self) -> list[str]:
        rows = self._query(
            "SELECT thread_id, MAX(checkpoint_id) AS last FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY last DESC"
        )
        return [row["thread_id"] for row in rows]

    def request_cancel(self, thread_id: str | None) -> None:
        self._query(
            "INSERT INTO reactgraph_cancels VALUES (%s, %s) "
            "ON CONFLICT (thread_id) DO UPDATE SET requested_at = excluded.requested_at",
            (thread_id or ALL_RUNS, time.time()),
        )

    def clear_cancel(self, thread_id: str) -> None:
        self._query("DELETE FROM reactgraph_cancels WHERE thread_id = %s", (thread_id,))

    def cancel_requested(self, thread_id: str | None, started_at: float) -> bool:
        return bool(self._query(
            "SELECT 1 FROM reactgraph_cancels WHERE thread_id = %s OR (thread_id = %s AND requested_at >= %s)",
            (thread_id, ALL_RUNS, started_at), run=thread_id,
        ))

    def _take(self, thread_id: str) -> Callable[[], None]:
        """A session advisory lock on the thread (``THREAD_LOCK``), on a connection of its own kept for the hold: the
        server releases it when that connection ends, a killed process's too (``KEEPALIVES``)."""
        with self.errors(thread_id):
            conn = psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT, autocommit=True)
            try:
                conn.execute(KEEPALIVES)
                got = only_row(conn.execute(f"SELECT pg_try_advisory_lock({THREAD_LOCK})", (thread_id,)))[0]
            except BaseException:
                conn.close()
                raise
        if not got:
            conn.close()
            raise busy(thread_id, f"another process or agent on {self.name}")
        return lambda: unlocked(conn, thread_id)

    async def _atake(self, thread_id: str, wait: bool) -> Hold:
        """``_take`` on an async connection; with ``wait``, waiting for the lock (``pg_advisory_lock``)."""
        with self.errors(thread_id):
            conn = await psycopg.AsyncConnection.connect(self.url, connect_timeout=CONNECT_TIMEOUT, autocommit=True)
            try:
                await conn.execute(KEEPALIVES)
                call = "pg_advisory_lock" if wait else "pg_try_advisory_lock"
                row = await (await conn.execute(f"SELECT {call}({THREAD_LOCK})::text", (thread_id,))).fetchone()
            except BaseException:
                await conn.close()
                raise
        if row is None or row[0] == "false":
            await conn.close()
            raise busy(thread_id, f"another process or agent on {self.name}")
        return AdvisoryHold(conn, thread_id)

    def unlock(self, thread_id: str, *, force: bool = False) -> str | None:
        """The session that holds the thread's lock ended (``pg_terminate_backend``: the holder's role, or one with
        pg_signal_backend, may): the server cannot tell a session whose process is gone from a live one."""
        rows = self._query(
            "SELECT l.pid, coalesce(a.client_addr::text, 'a local socket') AS client, a.backend_start FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            f"AND l.classid::bigint = ({THREAD_LOCK} >> 32) & 4294967295 AND l.objid::bigint = {THREAD_LOCK} & 4294967295",
            (thread_id, thread_id), run=thread_id,
        )
        for row in rows:
            self._query("SELECT pg_terminate_backend(%s)", (row["pid"],), run=thread_id)
        return "; ".join(
            f"the session {row['pid']} from {row['client']}, connected since {row['backend_start']:%Y-%m-%d %H:%M:%S}"
            for row in rows
        ) or None

    def record(self, activity: Activity) -> None:
        self._query(
            "INSERT INTO reactgraph_runs VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (thread_id) DO UPDATE SET "
            "state = excluded.state, question = COALESCE(excluded.question, reactgraph_runs.question), "
            "owner = excluded.owner, since = excluded.since, error = excluded.error",
            (activity.thread_id, activity.state, activity.question, activity.owner, activity.since, activity.error),
            run=activity.thread_id,
        )

    def forget(self, thread_id: str) -> None:
        self._query("DELETE FROM reactgraph_runs WHERE thread_id = %s", (thread_id,), run=thread_id)

    def activities(self) -> dict[str, Activity]:
        rows = self._query("SELECT thread_id, state, question, owner, since, error FROM reactgraph_runs")
        return {row["thread_id"]: Activity(**row) for row in rows}

    def close(self) -> None:
        self.async_pools.close()
        self.pool.close()

    def _query(self, sql: str, params: tuple[Any, ...] = (), run: str | None = None) -> list[dict[str, Any]]:
        """Run ``sql`` on a connection of the pool; its rows (none for a statement without)."""
        with self.errors(run), self.pool.connection() as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []


def unlocked(conn: psycopg.Connection, thread_id: str) -> None:
    """Give the thread's lock back and close its connection; a connection the server already closed (a restart)
    took the lock with it, so its error is no failure of the run."""
    try:
        conn.execute(f"SELECT pg_advisory_unlock({THREAD_LOCK})", (thread_id,))
    except psycopg.Error:
        pass
    finally:
        conn.close()


class AdvisoryHold(Hold):
    """A thread's advisory lock on an async connection of its own: held while that connection lives (a restart ends
    it, and the lock with it: ``alive`` asks the connection)."""

    def __init__(self, conn: psycopg.AsyncConnection, thread_id: str) -> None:
        super().__init__()
        self.conn, self.thread_id = conn, thread_id

    async def alive(self) -> bool:
        try:
            await self.conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    async def release(self) -> None:
        """``unlocked`` for an async connection."""
        try:
            await self.conn.execute(f"SELECT pg_advisory_unlock({THREAD_LOCK})", (self.thread_id,))
        except psycopg.Error:
            pass
        finally:
            await self.conn.close()


def setup(conn: psycopg.Connection[DictRow]) -> None:
    """Create LangGraph's checkpoint tables (its migrations) and ours, one process at a time; nothing when
    they are there. The lock is tried, not waited for: a session waiting on it would hold back the
    migrations' CREATE INDEX CONCURRENTLY of the session that has it (a deadlock)."""
    while not _set_up(conn):
        if only_row(conn.execute(f"SELECT pg_try_advisory_lock({KIND_LOCK}) AS got", (SETUP, "tables")))["got"]:
            try:
                PostgresSaver(conn).setup()
                conn.execute(CANCELS)
                conn.execute(RUNS)
            finally:
                conn.execute(f"SELECT pg_advisory_unlock({KIND_LOCK})", (SETUP, "tables"))
        else:
            time.sleep(SETUP_POLL_SECONDS)


def _set_up(conn: psycopg.Connection[DictRow]) -> bool:
    """Whether every table is there, at LangGraph's latest migration (or a later version's)."""
    found = only_row(conn.execute(
        "SELECT to_regclass('reactgraph_cancels') IS NOT NULL AND to_regclass('reactgraph_runs') IS NOT NULL AS ours, "
        "to_regclass('checkpoint_migrations') IS NOT NULL AS theirs"
    ))
    if not (found["ours"] and found["theirs"]):
        return False
    latest = only_row(conn.execute("SELECT max(v) AS v FROM checkpoint_migrations"))["v"]
    return latest is not None and latest >= len(PostgresSaver.MIGRATIONS) - 1
