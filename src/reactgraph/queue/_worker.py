"""A worker: queued runs taken until SIGINT or SIGTERM, the database reconnected when it goes away."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable

import psycopg
from procrastinate.exceptions import ConnectorException

from reactgraph.persistence.postgres import redacted
from reactgraph.queue._app import queue_app
from reactgraph.queue._database import (
    QUEUE,
    RECONNECT_EVERY,
    RECONNECT_WITHIN,
    STALLED_AFTER,
    QueueConfigError,
    QueueConnectionLost,
    ensure_schema,
    lost_database,
    queue_errors,
    queue_url,
)
from reactgraph.queue._runner import Runner

logger = logging.getLogger("reactgraph.queue")  # the package's one logger, as before it was split


def run_worker(
    db: str | None = None, *, concurrency: int = 1, stalled_after: float = STALLED_AFTER, reconnect_within: float = RECONNECT_WITHIN
) -> None:
    """Run queued runs from the Postgres database ``db`` (default ``REACTGRAPH_DB``), ``concurrency``
    at a time, until SIGINT or SIGTERM: then take no new run and return once the runs in hand have
    ended. The runs of workers silent for ``stalled_after`` seconds are taken up again. When the database
    goes away (a restart), the worker lets its runs end (their jobs are retried), reconnects and goes on; when it
    cannot reconnect within ``reconnect_within`` seconds it raises QueueConnectionLost saying why."""
    if concurrency < 1:
        raise QueueConfigError(f"concurrency must be at least 1, got {concurrency}")
    if stalled_after <= 0:
        raise QueueConfigError(f"stalled_after must be a positive number of seconds, got {stalled_after}")
    if reconnect_within < 0:
        raise QueueConfigError(f"reconnect_within must be a number of seconds, got {reconnect_within}")
    url = queue_url(db)
    ensure_schema(url)
    runner = Runner(url, concurrency)
    heartbeat = stalled_after / 3
    app = queue_app(url, runner, stalled_after, reconnect_within)

    async def worker() -> None:
        async with app.open_async():
            await app.run_worker_async(
                queues=[QUEUE], concurrency=concurrency, update_heartbeat_interval=heartbeat,
                stalled_worker_timeout=stalled_after, fetch_job_polling_interval=min(5.0, heartbeat),
                install_signal_handlers=False,
            )

    async def work() -> None:
        async with runner.opened():
            await until_stopped(worker, url, reconnect_within)

    with queue_errors(url):
        asyncio.run(work())


async def until_stopped(worker: Callable[[], Awaitable[None]], url: str, reconnect_within: float) -> None:
    """Run ``worker()`` until SIGINT or SIGTERM (which cancel it: procrastinate then takes no new job and waits for
    the jobs in hand); when it ends by itself (procrastinate stops a worker whose listener or heartbeat lost the
    database) or fails for the database, reconnect and run it again."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    current: list[asyncio.Future[None]] = []

    def stop() -> None:
        stopping.set()
        for task in current:
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop)
    try:
        while not stopping.is_set():
            current[:] = [asyncio.ensure_future(worker())]
            try:
                await current[0]
                problem = "the worker stopped: its link to the database failed"
            except asyncio.CancelledError:
                if stopping.is_set():
                    return
                raise
            except Exception as exc:
                if not lost_database(exc) and not isinstance(exc, ConnectorException):
                    raise
                cause = exc.__cause__ if isinstance(exc, ConnectorException) and exc.__cause__ else exc
                problem = f"{type(cause).__name__}: {' '.join(str(cause).split())}"
            if stopping.is_set():
                return
            logger.warning("lost the database %s (%s); reconnecting", redacted(url), problem)
            await reconnected(url, reconnect_within, stopping)
            logger.warning("reconnected to %s; taking runs again", redacted(url))
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


async def reconnected(url: str, within: float, stopping: asyncio.Event) -> None:
    """Wait until the database answers again (trying every RECONNECT_EVERY seconds); QueueConnectionLost when it
    does not within ``within`` seconds. Returns at once when ``stopping`` is set."""
    deadline = time.monotonic() + within
    await asyncio.sleep(RECONNECT_EVERY)  # the old connections' errors settle; a restarting server starts
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(url, connect_timeout=max(1, int(RECONNECT_EVERY * 2))) as conn:
                await conn.execute("SELECT 1")
            return
        except psycopg.Error as exc:
            last = exc
        if stopping.is_set():
            return
        if time.monotonic() >= deadline:
            detail = " ".join(str(last).split())
            raise QueueConnectionLost(
                f"task queue database {redacted(url)}: lost, and no connection within {within:g}s ({detail}); "
                "its runs are retried by the other workers, or by this one once restarted"
            )
        await asyncio.sleep(RECONNECT_EVERY)
