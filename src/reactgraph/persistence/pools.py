"""psycopg_pool's async pool, whose maintenance workers end when cancelled (``EndingPool``).

psycopg_pool (3.3.3) catches the ``CancelledError`` of a connection attempt made by one of its worker tasks (it logs
"error connecting", plans another try and goes back to waiting for work). A pool still connecting when its event loop
is shut down (``asyncio.run`` returning: every task left is cancelled, then waited for) therefore kept a worker that
never ends, and ``asyncio.run`` waited for it for ever: the test command hung so once under load, after two async
runs at once had made the pool grow. Here a worker whose task was cancelled ends after the work in hand."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from psycopg_pool import AsyncConnectionPool
from psycopg_pool.pool_async import StopWorker

logger = logging.getLogger("psycopg.pool")  # psycopg_pool's own logger: its warnings where they always were


class EndingPool(AsyncConnectionPool[Any]):
    """An ``AsyncConnectionPool`` whose workers end once cancelled, even when psycopg_pool caught the cancellation."""

    @classmethod
    async def worker(cls, q: Any) -> None:
        """psycopg_pool's worker loop (run each maintenance task until a ``StopWorker``), ended by a cancellation."""
        this = asyncio.current_task()
        while not isinstance(task := await q.get(), StopWorker):
            try:
                await task.run()
            except Exception as ex:  # as psycopg_pool's: a failed task does not end the worker
                logger.warning("task run %s failed: %s: %s", task, ex.__class__.__name__, ex)
            if this is not None and this.cancelling():  # cancelled while the task swallowed it
                raise asyncio.CancelledError
