"""Queue workers through a PostgreSQL restart (issue 27, item 18): workers used to exit with status 0 ("Side task
listener failed"), leaving runs in todo with no worker, and jobs whose runs had finished were marked failed (the
advisory unlock raised AdminShutdown). A server of its own per test: the session's is not restarted under others.
"""

from __future__ import annotations

import psycopg
import pytest

from reactgraph import ReActAgent
from reactgraph.queue import submit
from tests.integration.test_workers import MODEL, TOOLS, Worker, jobs, terminations, wait_for
from tests.postgres import controls, create_database, missing_reason, start_postgres

RUNS = 12


@pytest.fixture
def own_server(tmp_path_factory):
    if reason := missing_reason():
        pytest.skip(reason)
    url, stop = start_postgres()
    yield url
    stop()


def test_workers_reconnect_after_a_restart_and_every_run_ends_once(own_server, tmp_path, workers):
    db = create_database(own_server)
    env = {"QUEUE_LOG": str(tmp_path / "tools.log"), "QUEUE_TOOL_DELAY": "0.3"}
    threads = [submit(f"Run r{i}: record the three keys.", db, model=MODEL, tools=TOOLS) for i in range(RUNS)]
    workers += [Worker(db, tmp_path, f"worker{i}", concurrency=2, **env) for i in range(2)]
    wait_for(lambda: sum(s == "succeeded" for s, _ in jobs(db).values()) >= 2, "the first runs", workers)
    controls(own_server).restart(down=1.0)  # under load: runs in flight lose their connections
    assert [w.proc.poll() for w in workers] == [None, None]  # still there
    wait_for(lambda: set(s for s, _ in jobs(db).values()) == {"succeeded"}, "every run", workers)
    assert [w.proc.poll() for w in workers] == [None, None]
    assert any("reconnected to" in line for w in workers for line in w.lines())
    with ReActAgent(checkpointer=db) as reader:
        assert {thread: terminations(reader, thread) for thread in threads} == dict.fromkeys(threads, 1)  # once each
    assert [w.stop() for w in workers] == [0, 0]


def test_a_worker_that_cannot_reconnect_exits_non_zero_saying_why(own_server, tmp_path, workers):
    db = create_database(own_server)
    worker = Worker(db, tmp_path, "lonely", concurrency=1, options=("--reconnect-within", "3"))
    workers.append(worker)
    wait_for(lambda: registered(db) == 1, "the worker to start", workers)
    controls(own_server).halt()  # and it never comes back
    code = worker.proc.wait(timeout=120)
    text = worker.log.read_text()
    assert code == 1, text
    assert "lost, and no connection within 3s" in text and "Traceback" not in text


def registered(db: str) -> int:
    """How many workers are registered (0 before the queue's tables exist)."""
    with psycopg.connect(db) as conn:
        if conn.execute("SELECT to_regclass('procrastinate_workers')").fetchone()[0] is None:
            return 0
        return conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone()[0]
