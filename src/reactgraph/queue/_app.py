"""procrastinate's App on the queue's database: the run task, the retry of stalled workers' jobs, and the jobs' ends
written through a database restart."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import procrastinate
import psycopg
from procrastinate.exceptions import ConnectorException
from procrastinate.manager import JobManager
from psycopg_pool import AsyncConnectionPool
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_delay, wait_exponential

from reactgraph.persistence.pools import EndingPool
from reactgraph.persistence.postgres import acheck_if_closed
from reactgraph.queue._database import (
    QUEUE,
    QUEUE_POOL_TIMEOUT,
    RECONNECT_EVERY,
    RECONNECT_WITHIN,
    RETRY_PRIORITY,
    RETRY_TASK,
    STALLED_AFTER,
    TASK,
    RunInterrupted,
    lost_database,
)
from reactgraph.queue._runner import Runner

logger = logging.getLogger("reactgraph.queue")  # the package's one logger, as before it was split

# A run that lost the database is retried (and resumed): at once, then 1 s, 2 s, ... later, 30 times at most.
RUN_RETRY = procrastinate.RetryStrategy(max_attempts=30, linear_wait=1, retry_exceptions={RunInterrupted})


def queue_pool(**options: Any) -> AsyncConnectionPool:
    """procrastinate's pool, testing a connection it hands out with a round trip only when the server may have closed
    it (``acheck_if_closed``), not before every query; its workers end when the loop's end cancels them (``EndingPool``)."""
    return EndingPool(**options | {"check": acheck_if_closed})


class SettledJobs(JobManager):
    """procrastinate's job manager, with the write of a job's end (finished, or handed back to be retried) outlasting a
    database restart: tried again (tenacity, backing off) while the database is away, for ``within`` seconds. A failed
    write used to leave the job ``doing`` under a worker still alive, which no one takes up again. A write that finds
    the job moved on (its first try landed before the connection broke; another worker took it up or ended it) is
    done: the job's run, in the checkpoints, is what says whether it ended."""

    def __init__(self, connector: Any, within: float) -> None:
        super().__init__(connector)
        self.within = within

    async def finish_job_by_id_async(self, job_id: int, status: Any, delete_job: bool) -> None:
        await self._settled(job_id, super().finish_job_by_id_async, job_id=job_id, status=status, delete_job=delete_job)

    async def retry_job_by_id_async(
        self,
        job_id: int,
        retry_at: datetime.datetime,
        priority: int | None = None,
        queue: str | None = None,
        lock: str | None = None,
    ) -> None:
        await self._settled(
            job_id, super().retry_job_by_id_async, job_id=job_id, retry_at=retry_at, priority=priority, queue=queue, lock=lock
        )

    async def _settled(self, job: int, write: Callable[..., Awaitable[None]], /, **arguments: Any) -> None:
        def waiting(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome else None
            logger.warning("job %s: its end not written yet (%s); trying again", job, type(error).__name__)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lost_database), wait=wait_exponential(multiplier=0.2, max=RECONNECT_EVERY * 5),
            stop=stop_after_delay(self.within), reraise=True, before_sleep=waiting,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    await write(**arguments)
        except ConnectorException as exc:
            if not isinstance(exc.__cause__, psycopg.errors.RaiseException):
                raise
            logger.info("job %s had moved on (%s): its end not written again", job, " ".join(str(exc.__cause__).split()))


def queue_app(
    url: str, runner: Runner | None = None, stalled_after: float = STALLED_AFTER, reconnect_within: float = RECONNECT_WITHIN
) -> procrastinate.App:
    """The procrastinate App on ``url``, its jobs' ends written through a database restart (``SettledJobs``, for
    ``reconnect_within`` seconds); with a ``runner``, its tasks: ``reactgraph.run`` and a periodic retry of the jobs
    of workers silent for longer than ``stalled_after`` seconds."""
    connector = procrastinate.PsycopgConnector(conninfo=url, min_size=1, timeout=QUEUE_POOL_TIMEOUT, pool_factory=queue_pool)
    app = procrastinate.App(connector=connector)
    app.job_manager = SettledJobs(connector, reconnect_within)
    if runner is None:
        return app

    @app.task(name=TASK, queue=QUEUE, pass_context=True, retry=RUN_RETRY)
    async def run(context: procrastinate.JobContext, question: str, thread_id: str, options: dict[str, Any]) -> None:
        assert context.job.id is not None  # a job a worker took is stored
        await runner.run(context.job.id, question, thread_id, options)

    every = max(1, min(30, int(stalled_after // 3)))

    @app.periodic(cron=f"* * * * * */{every}")  # the 6th field: seconds
    @app.task(name=RETRY_TASK, queue=QUEUE, queueing_lock=RETRY_TASK, priority=RETRY_PRIORITY, pass_context=True)
    async def retry_stalled_runs(context: procrastinate.JobContext, timestamp: int) -> None:
        for job in await context.app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stalled_after):
            try:
                await context.app.job_manager.retry_job(job)
            except ConnectorException:  # another worker retried it first
                continue
            logger.info("retrying job %s (%s) of a stalled worker", job.id, job.task_kwargs.get("thread_id", job.task_name))

    return app
