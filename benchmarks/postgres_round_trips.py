"""Statements and round trips to PostgreSQL per run (issue 30), counted in libpq's own protocol trace (``PQtrace``,
psycopg's ``PGconn.trace``) of every connection the process opens: a round trip is a batch the client ends and then
waits on (a ``Sync`` or a simple ``Query`` message), a statement an ``Execute`` or a ``Query``.

The workload is tests/integration/queue_fixtures.py's (3 tool calls in 3 model turns, a scripted model), on a
throwaway PostgreSQL server (tests/postgres.py):

- ``run``: ``ReActAgent.run`` on a ``postgresql://`` checkpointer, in one process;
- ``arun``: ``ReActAgent.arun``, as a queue worker drives a run;
- ``worker``: ``--runs`` queued runs taken by one ``reactgraph worker --concurrency 1`` (its runs, the job queue's
  queries, the thread's lock, and what it polls while it waits for the last run).

Each is counted in a fresh process (a first run, which opens the pools and sets up the tables, is not counted for
``run`` and ``arun``); per run = the counts over the runs / ``--runs``.

    python benchmarks/postgres_round_trips.py                  # print the table, add it to postgres_round_trips.json
    PYTHONPATH=/path/to/main/src python benchmarks/postgres_round_trips.py --label before
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.postgres and the workload's module

from tests.postgres import counted, create_database, start_postgres, trace_connections  # noqa: E402

HERE = Path(__file__).resolve()
RESULT = HERE.with_suffix(".json")
MODEL = "tests.integration.queue_fixtures:scripted_model"
TOOLS = "tests.integration.queue_fixtures:TOOLS"


def question(i: int) -> str:
    return f"Run r{i}: record the three keys."


def in_process(db: str, runs: int, mode: str, traces: str) -> None:
    """A first run (pools opened, tables made), then ``runs`` runs of the workload, with one agent."""
    trace_connections(traces)
    from reactgraph import ReActAgent
    from reactgraph.loading import load_model, load_tools

    registry, selection = load_tools(TOOLS)

    async def arun_all(agent: ReActAgent) -> None:
        for i in range(runs + 1):
            await agent.arun(question(i), tools=selection)

    with ReActAgent(model=load_model(MODEL), tools=registry, checkpointer=db) as agent:
        if mode == "arun":
            asyncio.run(arun_all(agent))
        else:
            for i in range(runs + 1):
                agent.run(question(i), tools=selection)


def worker(db: str, runs: int, tmp: str, traces: str) -> None:
    """One ``reactgraph worker`` process, traced, until the ``runs`` queued runs have succeeded."""
    import psycopg

    from reactgraph.queue import ensure_schema, submit

    ensure_schema(db)
    for i in range(runs):
        submit(question(i), db, model=MODEL, tools=TOOLS)
    code = f"import sys; sys.path[:0] = {[str(ROOT), str(HERE.parent)]!r}; import postgres_round_trips as b; " \
        f"b.trace_connections({traces!r}); from reactgraph.cli import main; main()"
    command = [sys.executable, "-c", code, "worker", "--db", db, "--concurrency", "1"]
    env = os.environ | {"QUEUE_LOG": str(Path(tmp) / "tools.log")}
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    try:
        with psycopg.connect(db, autocommit=True) as conn:
            done = "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'reactgraph.run' AND status = 'succeeded'"
            while conn.execute(done).fetchone()[0] < runs:
                time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()


def traced(db: str, runs: int, mode: str) -> dict[str, int]:
    """The counts of a fresh process doing ``mode`` with ``runs`` runs (after the first, for run and arun)."""
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "traces"
        traces.mkdir()
        call = f"worker({db!r}, {runs}, {tmp!r}, {str(traces)!r})" if mode == "worker" else \
            f"in_process({db!r}, {runs}, {mode!r}, {str(traces)!r})"
        code = f"import sys; sys.path[:0] = {[str(ROOT), str(HERE.parent)]!r}; import postgres_round_trips as b; b.{call}"
        env = os.environ | {"QUEUE_LOG": str(Path(tmp) / "tools.log")}
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)
        return counted(traces)


def measure(server: str, runs: int, mode: str) -> dict[str, float]:
    """Per run: the counts with ``runs`` runs less those with none, over ``runs`` (each on a fresh database)."""
    many, none = traced(create_database(server), runs, mode), traced(create_database(server), 0, mode)
    return {key: (many[key] - none[key]) / runs for key in many}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs counted per case (default 20)")
    parser.add_argument("--label", default="after", help="the name of this measurement in the JSON (default after)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    server, stop = start_postgres()
    try:
        results = {mode: measure(server, args.runs, mode) for mode in ("run", "arun", "worker")}
    finally:
        stop()
    print(f"per run ({args.runs} runs) | round trips | statements | empty statements (pool checks) | connections opened")
    for mode, r in results.items():
        print(f"{mode} | {r['round_trips']:.1f} | {r['statements']:.1f} | {r['empty']:.1f} | {r['connections']:.2f}")
    if not args.no_write:
        recorded = json.loads(RESULT.read_text()) if RESULT.exists() else {}
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
        recorded[args.label] = {"commit": commit.strip(), "date": time.strftime("%Y-%m-%d"), "runs": args.runs, "per_run": results}
        RESULT.write_text(json.dumps(recorded, indent=1) + "\n")


if __name__ == "__main__":
    main()
