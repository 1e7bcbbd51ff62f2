"""Submitting many runs costs little per run (issue 30): ``RunQueue`` connects once and checks each distinct set of
options once, and ``submit`` keeps one per database for the process's later calls; counted (connections opened, tool
loads), not timed."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from reactgraph.config import ConfigError
from reactgraph.queue import RunQueue, _submitting, submit  # _submitting: where the run options are checked

MODEL = "tests.integration.queue_fixtures:scripted_model"
TOOLS = "tests.integration.queue_fixtures:record,tests.integration.queue_fixtures:hold"


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """How many connections psycopg opened and how often the tools were loaded, while the test runs."""
    counts = {"connections": 0, "tool loads": 0}
    connect, load_tools = psycopg.Connection.connect.__func__, _submitting.load_tools

    def counting_connect(cls: Any, *args: Any, **kwargs: Any) -> Any:
        counts["connections"] += 1
        return connect(cls, *args, **kwargs)

    def counting_load_tools(*args: Any, **kwargs: Any) -> Any:
        counts["tool loads"] += 1
        return load_tools(*args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counting_connect))
    monkeypatch.setattr(_submitting, "load_tools", counting_load_tools)
    return counts


def queued(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'reactgraph.run'").fetchone()[0]


def test_many_submits_connect_and_check_once(postgres_url, counted):
    with RunQueue(postgres_url) as runs:
        runs.submit("Run r0: record the three keys.", model=MODEL, tools=TOOLS)
        first = dict(counted)
        threads = [runs.submit(f"Run r{i}: record the three keys.", model=MODEL, tools=TOOLS) for i in range(1, 20)]
        assert counted == first  # no connection opened, no tool loaded again: 19 runs queued on what the first opened
        runs.submit("Run r20: record the three keys.", model=MODEL, tools=TOOLS, max_iterations=4)
        assert counted["tool loads"] == first["tool loads"] + 1  # other options: checked once more
    assert len(set(threads)) == 19 and queued(postgres_url) == 21


def test_submit_keeps_its_queue_for_the_next_calls(postgres_url, counted):
    submit("Run r0: record the three keys.", postgres_url, model=MODEL, tools=TOOLS)
    first = dict(counted)
    for i in range(1, 10):
        submit(f"Run r{i}: record the three keys.", postgres_url, model=MODEL, tools=TOOLS)
    assert counted == first and queued(postgres_url) == 10


def test_a_bad_option_is_refused_each_time(postgres_url):
    with RunQueue(postgres_url) as runs:
        for _ in range(2):
            with pytest.raises(ConfigError, match="max_iterations"):
                runs.submit("q", max_iterations=0)
            with pytest.raises(ConfigError, match="JSON"):
                runs.submit("q", termination_callback=lambda state: False)
    assert submit("Run r1: record the three keys.", postgres_url, model=MODEL, tools=TOOLS)
    assert queued(postgres_url) == 1
