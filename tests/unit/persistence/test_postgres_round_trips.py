"""Round trips to PostgreSQL per run (issue 30), counted in libpq's protocol trace (tests/postgres.py's
``trace_connections``): the pools do not test each connection they hand out, so a run of the queue workload (3 tool
calls, 3 model turns) makes at most half the round trips it made with those tests (88.7), and sends no empty statement
(psycopg_pool's test of a connection). In a fresh process each, so that what the test run opened before does not count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.postgres import counted, create_database

ROOT = Path(__file__).resolve().parents[3]
ROUND_TRIPS_BEFORE = 88.7  # per run with a test of every connection taken from the pools (main at e2e4ea3)
SCRIPT = """
import asyncio, sys
from tests.postgres import trace_connections
trace_connections(sys.argv[1])
from reactgraph import ReActAgent
from reactgraph.loading import load_model, load_tools
registry, selection = load_tools("tests.integration.queue_fixtures:TOOLS")

async def runs(agent):
    for i in range(int(sys.argv[3])):
        assert (await agent.arun(f"Run r{i}: record the three keys.", tools=selection)).final_answer == f"done r{i}"

with ReActAgent(model=load_model("tests.integration.queue_fixtures:scripted_model"), tools=registry, checkpointer=sys.argv[2]) as agent:
    agent.run("Run r100: record the three keys.", tools=selection)  # the pools opened, the tables made
    asyncio.run(runs(agent))
"""


def traced_runs(directory: Path, db: str, runs: int, tmp_path: Path) -> dict[str, int]:
    directory.mkdir()
    env = os.environ | {"PYTHONPATH": str(ROOT), "QUEUE_LOG": str(tmp_path / "tools.log")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(directory), db, str(runs)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return counted(directory)


def test_a_run_on_postgres_makes_half_the_round_trips_and_tests_no_connection(postgres_server, tmp_path):
    runs = 4
    many = traced_runs(tmp_path / "many", create_database(postgres_server), runs, tmp_path)
    none = traced_runs(tmp_path / "none", create_database(postgres_server), 0, tmp_path)
    per_run = (many["round_trips"] - none["round_trips"]) / runs
    assert per_run <= ROUND_TRIPS_BEFORE / 2, per_run
    assert many["empty"] == 0 and none["empty"] == 0
