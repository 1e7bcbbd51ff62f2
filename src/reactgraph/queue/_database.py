"""The queue's database: its URL, its errors, procrastinate's tables made sure of and read (what waits); the names
and timings the queue's parts share."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import psycopg
from procrastinate.exceptions import ConnectorException
from procrastinate.schema import SchemaManager
from psycopg_pool import PoolTimeout

from reactgraph.config import ConfigError
from reactgraph.persistence.base import DB_ENV, CheckpointStoreError, is_postgres_url
from reactgraph.persistence.postgres import KIND_LOCK, QUEUE_SCHEMA, only_row, redacted
from reactgraph.persistence.reading import RunInfo

TASK = "reactgraph.run"
RETRY_TASK = "reactgraph.retry_stalled_runs"
QUEUE = "reactgraph"
JOB_KEY = "reactgraph_job"  # checkpoint metadata: the id of the job whose run wrote the checkpoint
SPECS = ("model", "tools", "mcp", "documents", "output_schema")  # options naming what to load, as the CLI's flags do
LABELS = {key: f"reactgraph_{key}" for key in SPECS}
STALLED_AFTER = 30.0  # seconds without a heartbeat after which a worker's runs are taken up by others
RETRY_PRIORITY = 100  # the retry of stalled jobs goes before the queued runs (procrastinate takes higher first)
RECONNECT_WITHIN = 120.0  # seconds a worker that lost its database tries to reconnect before it exits
RECONNECT_EVERY = 1.0  # seconds between its tries
HOLD_CHECK_EVERY = 0.25  # seconds between a queued run's checks that it still holds its thread
QUEUE_POOL_TIMEOUT = 10.0  # seconds procrastinate's pool waits for a connection (a lost database is seen sooner)


class QueueConfigError(ConfigError):
    """The queue cannot be used with these settings (not a Postgres URL, bad run options)."""


class QueueConnectionLost(CheckpointStoreError):
    """A worker lost its database and could not reconnect within ``reconnect_within`` seconds; the message says
    which database and the last error."""


class RunInterrupted(Exception):
    """A queued run stopped because the database went away under it (a restart): its job is retried, and the
    retry resumes the run from its last checkpoint (``RUN_RETRY``)."""



def lost_database(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is the database going away: a connection that failed or
    was closed (a restart's AdminShutdown), a pool that found none."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError | PoolTimeout | ConnectionError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def queue_url(db: str | None = None) -> str:
    """The ``postgresql://`` URL of the queue: ``db``, else ``REACTGRAPH_DB``; QueueConfigError otherwise."""
    url = (db or os.environ.get(DB_ENV, "")).strip()
    if not is_postgres_url(url):
        shown = f"{urlsplit(url).scheme}:// URL" if "://" in url else repr(url) if url else "nothing"
        raise QueueConfigError(
            f"queued runs need a PostgreSQL database (--db postgresql://user:password@host/dbname or "
            f"{DB_ENV}), got {shown}: the queue, its locks and the runs' checkpoints live in Postgres"
        )
    return url


@contextmanager
def queue_errors(url: str) -> Iterator[None]:
    """Connection and query failures as CheckpointStoreError naming the database (password hidden)."""
    try:
        yield
    except (psycopg.Error, ConnectorException, PoolTimeout) as exc:
        cause = exc.__cause__ if isinstance(exc, ConnectorException) and exc.__cause__ else exc
        raise CheckpointStoreError(f"task queue database {redacted(url)}: {str(cause).strip()}") from exc


def ensure_schema(url: str) -> None:
    """Create procrastinate's tables in the database unless they exist (under an advisory lock, so
    workers starting together create them once)."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(f"SELECT pg_advisory_xact_lock({KIND_LOCK})", (QUEUE_SCHEMA, "procrastinate"))
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            conn.execute(SchemaManager.get_schema())


def is_queued(url: str, thread_id: str) -> bool:
    """Whether a run on ``thread_id`` waits in the queue (or a worker has just taken it)."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn:
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            return False
        row = conn.execute(
            "SELECT 1 FROM procrastinate_jobs WHERE task_name = %s AND args->>'thread_id' = %s AND status IN ('todo', 'doing')",
            (TASK, thread_id),
        ).fetchone()
    return row is not None


def queued_runs(url: str) -> list[RunInfo]:
    """The runs waiting in the queue for a worker (status ``queued``), most recently queued first."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn:
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            return []
        rows = conn.execute(
            "SELECT j.args, (SELECT min(e.at) FROM procrastinate_events e WHERE e.job_id = j.id) AS queued_at "
            "FROM procrastinate_jobs j WHERE j.task_name = %s AND j.status = 'todo' ORDER BY j.id DESC",
            (TASK,),
        ).fetchall()
    return [
        RunInfo(
            thread_id=args["thread_id"], question=args.get("question", ""), status="queued", reason=None, iterations=0,
            tokens=0, started=None, updated=queued_at, metadata={},
        )
        for args, queued_at in rows
    ]
