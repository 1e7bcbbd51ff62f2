"""What queuing a run costs (issue 30): ``submit()`` one run at a time against ``RunQueue.submit`` (one connection
set, options checked once), on a throwaway PostgreSQL server (tests/postgres.py, no fsync), the queue_throughput.py
workload's options (a module model and two module tools). Wall time per submit, median of ``--runs``; connections
opened per submit (psycopg's ``Connection.connect`` counted).

    python benchmarks/submit_cost.py    # print the table (benchmarks/results/bookkeeping.md, "The queue")
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.postgres and the workload's module

from tests.postgres import create_database, start_postgres  # noqa: E402

from reactgraph import queue  # noqa: E402

MODEL = "tests.integration.queue_fixtures:scripted_model"
TOOLS = "tests.integration.queue_fixtures:record,tests.integration.queue_fixtures:hold"
CONNECTIONS = [0]


def counting(connect: Any) -> Any:
    def counted(cls: Any, *args: Any, **kwargs: Any) -> Any:
        CONNECTIONS[0] += 1
        return connect(cls, *args, **kwargs)

    return classmethod(counted)


def timed(submit: Any, runs: int) -> dict[str, float]:
    times, before = [], CONNECTIONS[0]
    for i in range(runs):
        start = time.perf_counter()
        submit(f"Run r{i}: record the three keys.")
        times.append(time.perf_counter() - start)
    return {"ms": statistics.median(times) * 1000, "connections": (CONNECTIONS[0] - before) / runs}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="submits per way (default 100)")
    args = parser.parse_args(argv)
    psycopg.Connection.connect = counting(psycopg.Connection.connect.__func__)  # type: ignore[method-assign]
    server, stop = start_postgres()
    try:
        db = create_database(server)
        results = {"submit(), one call per run": timed(lambda q: queue.submit(q, db, model=MODEL, tools=TOOLS), args.runs)}
        if hasattr(queue, "RunQueue"):
            with queue.RunQueue(create_database(server)) as runs:
                results["RunQueue.submit"] = timed(lambda q: runs.submit(q, model=MODEL, tools=TOOLS), args.runs)
    finally:
        stop()
    print("| way | ms per submit (median) | connections opened per submit |\n| --- | ---: | ---: |")
    for name, r in results.items():
        print(f"| {name} | {r['ms']:.1f} | {r['connections']:.2f} |")


if __name__ == "__main__":
    main()
