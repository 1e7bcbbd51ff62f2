"""A loop's async pool ends with the loop (``EndingPool``): psycopg_pool's workers catch the cancellation of a
connection attempt, so ``asyncio.run`` returning while the pool was still connecting waited for ever (the test
command hung once so under load). A server that accepts connections and never answers keeps a worker connecting."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import pytest

from reactgraph.persistence.pools import EndingPool
from reactgraph.queue._app import queue_pool


@pytest.fixture
def silent_server() -> Iterator[str]:
    """The URL of a server that takes connections and never answers them."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield f"postgresql://user:secret@127.0.0.1:{server.getsockname()[1]}/db"


def test_asyncio_run_returns_while_the_pool_is_still_connecting(silent_server):
    async def main() -> None:
        pool = EndingPool(silent_server, min_size=1, open=False, kwargs={"connect_timeout": 30})
        await pool.open(wait=False)  # a worker starts connecting, and waits on the silent server
        await asyncio.sleep(0.2)

    done = threading.Event()
    threading.Thread(target=lambda: (asyncio.run(main()), done.set()), daemon=True).start()
    assert done.wait(25), "asyncio.run still waits for the pool's workers"


def test_the_queue_s_pool_is_one_too(silent_server):
    assert isinstance(queue_pool(conninfo=silent_server, open=False), EndingPool)
