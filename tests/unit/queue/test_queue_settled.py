"""The end of a queued job written through a database restart (``SettledJobs``): a write that lost its connection is
tried again until the database answers; one that finds the job moved on is done; other errors still raise."""

from __future__ import annotations

import asyncio
import datetime

import pytest

pytest.importorskip("procrastinate")
import psycopg  # noqa: E402
from procrastinate import jobs  # noqa: E402
from procrastinate.exceptions import ConnectorException  # noqa: E402

from reactgraph.queue._app import SettledJobs  # noqa: E402


class FlakyConnector:
    """A connector whose first writes fail as ``failures`` says (an exception each), then land (``written``)."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.written: list[tuple[str, dict]] = []
        self.tries = 0

    async def execute_query_async(self, query: str, **arguments: object) -> None:
        self.tries += 1
        if self.failures:
            cause = self.failures.pop(0)
            raise ConnectorException() from cause
        self.written.append((query, arguments))


def test_a_job_end_lost_with_the_connection_is_written_once_the_database_answers():
    connector = FlakyConnector(psycopg.OperationalError("connection refused"), psycopg.OperationalError("server closed"))
    manager = SettledJobs(connector, within=30)
    asyncio.run(manager.finish_job_by_id_async(job_id=7, status=jobs.Status.SUCCEEDED, delete_job=False))
    assert connector.tries == 3 and [args["job_id"] for _, args in connector.written] == [7]


def test_a_job_that_moved_on_is_not_written_again_and_other_errors_raise():
    moved = FlakyConnector(psycopg.errors.RaiseException("Job was not found or has an invalid status to retry"))
    asyncio.run(SettledJobs(moved, within=30).retry_job_by_id_async(job_id=3, retry_at=datetime.datetime.now(datetime.timezone.utc)))
    assert (moved.tries, moved.written) == (1, [])
    broken = FlakyConnector(psycopg.errors.UndefinedTable("no procrastinate_jobs"))
    with pytest.raises(ConnectorException):
        asyncio.run(SettledJobs(broken, within=30).finish_job_by_id_async(job_id=3, status=jobs.Status.FAILED, delete_job=False))
    assert broken.tries == 1


def test_a_database_that_stays_away_raises_after_the_given_seconds():
    down = FlakyConnector(*[psycopg.OperationalError("connection refused")] * 1000)
    with pytest.raises(ConnectorException):
        asyncio.run(SettledJobs(down, within=0.5).finish_job_by_id_async(job_id=1, status=jobs.Status.SUCCEEDED, delete_job=False))
    assert 2 <= down.tries < 20
