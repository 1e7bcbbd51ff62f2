"""Queued runs (issue 17): runs per second and queue-to-finish latency with 1, 2 and 4 workers on
PostgreSQL, beside one process running the same runs one after another on SQLite.

The workload: ``--runs`` runs (default 100) of tests/integration/queue_fixtures.py's scripted model,
3 tool calls each (two in parallel, then one; the tool appends a line to a file), 3 model turns and
about 10 checkpoints a run. Every run is queued before the clock starts, so each run's latency is its
end minus the moment the first run started (the same for the SQLite process, whose runs all "wait" from
its start). On Postgres the runs are queued with ``submit`` while no worker runs, then the workers
(`reactgraph worker --concurrency 2` processes) start together; the times are the database's own
(procrastinate's job events: first ``started``, each ``succeeded``). A throwaway PostgreSQL server
(tests/postgres.py, no fsync, as in the tests) holds the queue and the checkpoints, a fresh database
for each configuration.

    python benchmarks/queue_throughput.py            # print the table
    python benchmarks/queue_throughput.py --write    # and put it first in benchmarks/results/queues-and-storage.md
    python benchmarks/queue_throughput.py --runs 40 --workers 1,4 --model-delay 0.2   # model calls that wait 200 ms
"""

from __future__ import annotations

import argparse
import datetime
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
from results_section import write_section  # beside this script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.postgres and the workload's module

from isolation_overhead import machine  # noqa: E402  (beside this script)
from tests.integration.queue_fixtures import scripted_model  # noqa: E402
from tests.postgres import create_database, start_postgres  # noqa: E402

from reactgraph import ReActAgent  # noqa: E402
from reactgraph.loading import load_tools  # noqa: E402
from reactgraph.queue import submit  # noqa: E402

HEADING = "## Queued runs: workers on Postgres"
PAGE = "queues-and-storage.md"  # of benchmarks/results/
MODEL = "tests.integration.queue_fixtures:scripted_model"
TOOLS = "tests.integration.queue_fixtures:TOOLS"
CONCURRENCY = 2  # runs at a time in each worker process


def question(i: int) -> str:
    return f"Run r{i}: record the three keys."


def summary(latencies: list[float], total: float) -> dict[str, float]:
    quantiles = statistics.quantiles(latencies, n=20)
    return {"runs": len(latencies), "seconds": total, "per_second": len(latencies) / total,
            "p50": statistics.median(latencies), "p95": quantiles[18]}


def on_sqlite(runs: int, tmp: Path) -> dict[str, float]:
    """One process, ``run`` after ``run`` on a SQLite file."""
    registry, selection = load_tools(TOOLS)
    ends = []
    with ReActAgent(model=scripted_model(), tools=registry, checkpointer=tmp / "runs.sqlite") as agent:
        start = time.perf_counter()
        for i in range(runs):
            result = agent.run(question(i), tools=selection)
            assert result.final_answer == f"done r{i}", result.final_answer
            ends.append(time.perf_counter() - start)
    return summary(ends, ends[-1])


def on_postgres(server: str, runs: int, workers: int, tmp: Path) -> dict[str, float]:
    """``workers`` worker processes taking the queued runs from one Postgres database."""
    db = create_database(server)
    for i in range(runs):
        submit(question(i), db, model=MODEL, tools=TOOLS)
    command = [sys.executable, "-m", "reactgraph.cli", "worker", "--db", db, "--concurrency", str(CONCURRENCY)]
    procs = [subprocess.Popen(command, cwd=ROOT, env=os.environ | {"QUEUE_LOG": str(tmp / "tools.log")},
                              stderr=subprocess.DEVNULL) for _ in range(workers)]
    try:
        with psycopg.connect(db, autocommit=True) as conn:
            done = "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'reactgraph.run' AND status = 'succeeded'"
            while conn.execute(done).fetchone()[0] < runs:
                time.sleep(0.2)
            events = ("SELECT extract(epoch FROM e.at) FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id "
                      "WHERE j.task_name = 'reactgraph.run' AND e.type = %s ORDER BY e.at")
            rows = conn.execute(events, ("succeeded",)).fetchall()
            first = conn.execute(events, ("started",)).fetchone()[0]
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait()
    ends = [float(at) - float(first) for (at,) in rows]
    return summary(ends, ends[-1])


def table(results: dict[str, dict[str, float]]) -> str:
    rows = ["| configuration | runs | seconds | runs per second | p50 latency s | p95 latency s |", "|---|---:|---:|---:|---:|---:|"]
    for name, r in results.items():
        rows.append(f"| {name} | {r['runs']} | {r['seconds']:.1f} | {r['per_second']:.2f} | {r['p50']:.1f} | {r['p95']:.1f} |")
    return "\n".join(rows)


def section(results: dict, *, commit: str, runs: int, load: tuple[float, float]) -> str:
    return "\n".join([
        HEADING,
        "",
        f"{datetime.date.today().isoformat()}; commit {commit}; {machine()}; load average {load[0]:.2f} before, "
        f"{load[1]:.2f} after (the machine is shared). {runs} scripted runs of 3 tool calls each (3 model turns), all "
        "queued before the clock starts; latency = a run's end minus the first run's start. Postgres: PostgreSQL 15 "
        f"on the same machine (no fsync), `reactgraph worker --concurrency {CONCURRENCY}` processes; SQLite: one "
        "process, `run` after `run`, WAL file.",
        "",
        "Rerun: `python benchmarks/queue_throughput.py --write`",
        "",
        table(results),
        "",
        "The scripted model answers at once, so this measures the machinery: per run, 3 model turns and about 10 "
        "checkpoints, written to Postgres over TCP (with connections and the queue's own queries: taking the job, its "
        "heartbeats, its end) against a local SQLite file in the same process. On this 2-core machine the server, the "
        "workers and the benchmark share the cores, so more workers than cores add no throughput and 4 workers wait "
        "on each other. What workers buy is runs on several machines at once, surviving a dead worker, and overlap "
        "while runs wait on a real model: a model turn that takes seconds leaves the worker free for its other runs "
        "(`--concurrency`), where one SQLite process runs one run after another.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="runs per configuration (default 100)")
    parser.add_argument("--workers", default="1,2,4", help="worker counts on Postgres (default 1,2,4)")
    parser.add_argument("--model-delay", type=float, default=0.0, help="seconds each model call waits (default 0)")
    parser.add_argument("--write", action="store_true", help="put the table first in benchmarks/results/queues-and-storage.md")
    args = parser.parse_args()
    os.environ["QUEUE_MODEL_DELAY"] = str(args.model_delay)  # the workers inherit it
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    load_before = os.getloadavg()[0]
    server, stop = start_postgres()
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["QUEUE_LOG"] = str(Path(tmp) / "tools.log")
            results["SQLite, 1 process"] = on_sqlite(args.runs, Path(tmp))
            for n in (int(x) for x in args.workers.split(",")):
                results[f"Postgres, {n} worker{'s' if n > 1 else ''}"] = on_postgres(server, args.runs, n, Path(tmp))
                print(table(results), flush=True)
    finally:
        stop()
    print(table(results))
    if args.write:
        write_section(PAGE, HEADING, section(results, commit=head.strip() or "unknown", runs=args.runs, load=(load_before, os.getloadavg()[0])))


if __name__ == "__main__":
    main()
