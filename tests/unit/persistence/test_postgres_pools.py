"""Async runs on Postgres share one connection pool per event loop, closed with the store."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from reactgraph import ReActAgent
from reactgraph.persistence import postgres as postgres_module
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call


def paris_model() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[by_prompt(("France", "Paris is in France."), default=tool_call("lookup", {"key": "paris"}, thought="Look it up."))],
        repeat_last=True,
    )


@pytest.fixture
def pools_opened(monkeypatch) -> list:
    """Every async pool the store opens, in order (the store's pool class, counted). Held here, a pool the
    store drops is not freed, so its connections end only when the store closes them."""
    opened: list = []

    class Counted(postgres_module.EndingPool):
        async def open(self, *args, **kwargs) -> None:
            opened.append(self)
            await super().open(*args, **kwargs)

    monkeypatch.setattr(postgres_module, "EndingPool", Counted)
    return opened


def connections(url: str) -> int:
    """Connections to the database of ``url`` other than the one asking."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()[0]


def until_no_connections(url: str, timeout: float = 10.0) -> int:
    """Connections left once the server has ended the closed ones (it notices a closed socket a moment later)."""
    deadline = time.monotonic() + timeout
    while (left := connections(url)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_runs_in_one_loop_share_one_pool(postgres_url, math_tools, pools_opened):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:

        async def one_after_another():
            first = await agent.arun("Where is Paris?", thread_id="a1")
            second = await agent.arun("Where is Paris?", thread_id="a2")
            streamed = [item async for item in agent.astream("Where is Paris?", thread_id="a3")]
            return first, second, streamed[-1]

        results = asyncio.run(one_after_another())
    assert [r.final_answer for r in results] == ["Paris is in France."] * 3
    assert len(pools_opened) == 1


def test_runs_in_two_loops_each_get_a_pool_and_work(postgres_url, math_tools, pools_opened):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
        first = asyncio.run(agent.arun("Where is Paris?", thread_id="l1"))
        second = asyncio.run(agent.arun("Where is Paris?", thread_id="l2"))  # a new loop: the first one is closed
        assert {r.thread_id for r in agent.list_runs()} == {"l1", "l2"}
    assert first.final_answer == second.final_answer == "Paris is in France."
    assert len(pools_opened) == 2
    assert until_no_connections(postgres_url) == 0


def test_many_runs_at_once_in_one_loop_finish_on_a_smaller_pool(postgres_url, math_tools, pools_opened, monkeypatch):
    """A run holds one connection at a time: more runs than connections wait their turn, never deadlock."""
    monkeypatch.setattr(postgres_module, "ASYNC_POOL_SIZE", 2)
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:

        async def eight_at_once():
            runs = [agent.arun("Where is Paris?", thread_id=f"c{i}") for i in range(8)]
            return await asyncio.wait_for(asyncio.gather(*runs), timeout=120)

        results = asyncio.run(eight_at_once())
        assert {r.thread_id for r in agent.list_runs()} == {f"c{i}" for i in range(8)}
    assert [r.final_answer for r in results] == ["Paris is in France."] * 8
    assert len(pools_opened) == 1 and pools_opened[0].max_size == 2


def test_closing_the_store_after_async_runs_leaves_no_connection(postgres_url, math_tools, pools_opened):
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url)
    asyncio.run(agent.arun("Where is Paris?", thread_id="gone"))  # its loop is closed when the store closes
    assert connections(postgres_url) >= 1
    agent.close()
    assert until_no_connections(postgres_url) == 0


def test_closing_between_runs_of_a_loop_that_lives_on(postgres_url, math_tools, pools_opened):
    """A loop kept between runs (asyncio.Runner): its pool is closed on it."""
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url)
    with asyncio.Runner() as runner:
        runner.run(agent.arun("Where is Paris?", thread_id="kept"))
        agent.close()
        assert until_no_connections(postgres_url) == 0
        assert runner.run(asyncio.sleep(0, "loop still usable")) == "loop still usable"


def test_closing_from_a_thread_while_the_loop_runs(postgres_url, math_tools, pools_opened):
    """As a worker does: the agent closed in a thread while its loop waits; the pool is closed on that loop."""
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url)

    async def run_then_close() -> int:
        await agent.arun("Where is Paris?", thread_id="t")
        await asyncio.to_thread(agent.close)
        return await asyncio.to_thread(until_no_connections, postgres_url)

    assert asyncio.run(run_then_close()) == 0


def test_closing_inside_the_running_loop_closes_the_pool_on_it(postgres_url, math_tools, pools_opened):
    """``with ReActAgent(...)`` in async code: the pool closes by a task of the loop, once the loop has control
    (a dropped pool's connections would also end when it is freed: ``pools_opened`` holds it)."""

    async def run_in_with() -> int:
        with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
            await agent.arun("Where is Paris?", thread_id="w")
        return await asyncio.to_thread(until_no_connections, postgres_url, 3.0)

    assert asyncio.run(run_in_with()) == 0
    assert len(pools_opened) == 1


def test_a_new_loop_ends_the_connections_of_a_closed_one(postgres_url, math_tools, pools_opened):
    """One ``asyncio.run`` after another does not pile up connections of loops that are gone."""
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
        asyncio.run(agent.arun("Where is Paris?", thread_id="r0"))
        after_one = connections(postgres_url)
        for i in range(1, 4):
            asyncio.run(agent.arun("Where is Paris?", thread_id=f"r{i}"))
        deadline = time.monotonic() + 10
        while (now := connections(postgres_url)) > after_one and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(pools_opened) == 4 and now == after_one
