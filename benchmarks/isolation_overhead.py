"""Per-call overhead of a tool in a worker process (issue 15) beside the same tool in the agent's process.

Every call goes through ``reactgraph.tools.execution.execute``, the path of the act node: arguments
checked, the attempt bounded by ``tool_timeout``, the output cut. The tool does nothing (it returns its
argument), so what is measured is the cost of running it: in the agent's process (a thread per call, as
for every tool today), in a reused worker process (a JSON message each way), and in a worker with every
resource limit set (setrlimit before and after the call; the processes watch). The three kinds alternate,
call after call, so that a noisy moment of the shared machine hurts them alike; a warm-up call each is not
counted. Also measured: starting a worker (what a call after a timeout, a crash or a limit pays, from a
running fork server) and the first call of the process (the fork server starts and imports reactgraph).

    python benchmarks/isolation_overhead.py               # print the table
    python benchmarks/isolation_overhead.py --write       # and put it first in benchmarks/results/isolation-and-faults.md
    python benchmarks/isolation_overhead.py --json benchmarks/isolation_overhead.json --label after
                                                          # and keep the numbers under a label in that file

Issue 42 runs every isolated call in a fork of its worker; ``--label before`` with an older commit's src first on
PYTHONPATH measured the reused worker without the fork, beside it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from results_section import write_section  # beside this script

from reactgraph.config import AgentConfig, ResourceLimits
from reactgraph.tools import ToolPolicy, ToolRegistry
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation import WORKERS, Worker

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Tool isolation overhead"
PAGE = "isolation-and-faults.md"  # of benchmarks/results/
LIMITS = ResourceLimits(memory_mb=256, cpu_seconds=10, output_bytes=1 << 20, file_size_bytes=1 << 20, processes=4)
SPACING = 0.02  # seconds between the spaced calls


def echo(text: str) -> str:
    """Return the text."""
    return text


def registry() -> ToolRegistry:
    tools = ToolRegistry()
    tools.register("in_process", echo, policy=ToolPolicy(isolation="none"))
    tools.register("isolated", echo, policy=ToolPolicy(isolation="process"))
    tools.register("isolated_limits", echo, policy=ToolPolicy(limits=LIMITS))
    return tools


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(calls: int, rounds: int, starts: int) -> dict[str, dict[str, float]]:
    """Median and p90 milliseconds of each kind of call (and the lowest and highest median of ``rounds`` rounds),
    of a worker's start, and of the process's first call."""
    tools, cfg = registry(), AgentConfig()

    def call(name: str) -> Callable[[], object]:
        def run() -> None:
            outcome = execute({"id": "c", "index": 0, "tool": name, "args": {"text": "hello"}}, tools, cfg)
            assert outcome["content"] == "hello", outcome
        return run

    first = timed(call("isolated"))  # the fork server starts, then a worker
    kinds = ("in_process", "isolated", "isolated_limits")
    for kind in kinds:
        call(kind)()
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    spread: dict[str, list[float]] = {kind: [] for kind in kinds}  # the median of each round
    for _ in range(rounds):
        round_times: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(calls // rounds):
            for kind in kinds:
                round_times[kind].append(timed(call(kind)))
        for kind in kinds:
            times[kind] += round_times[kind]
            spread[kind].append(statistics.median(round_times[kind]) * 1000)
    times["isolated, spaced"] = []  # as in a run: the model's turn between two calls (the worker idle meanwhile)
    for _ in range(calls // 5):
        time.sleep(SPACING)
        times["isolated, spaced"].append(timed(call("isolated")))
    times["worker start"] = []
    for _ in range(starts):
        started: list[Worker] = []
        times["worker start"].append(timed(lambda: started.append(Worker())))
        started[0].kill()
    summary = {
        kind: {"median": statistics.median(t) * 1000, "p90": statistics.quantiles(t, n=10)[-1] * 1000, "runs": len(t)}
        for kind, t in times.items()
    }
    for kind, medians in spread.items():
        summary[kind] |= {"lowest": min(medians), "highest": max(medians)}
    summary["first call of the process"] = {"median": first * 1000, "p90": first * 1000, "runs": 1}
    WORKERS.close()
    return summary


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


ROWS = {
    "in_process": "in the agent's process (a thread per call)",
    "isolated": "in a worker process, reused",
    "isolated_limits": "in a worker process, every limit set",
    "isolated, spaced": "in a worker process, reused, 20 ms after its last call",
    "worker start": "starting a worker (after a timeout, crash or limit)",
    "first call of the process": "first call (fork server start + worker start + call)",
}


def table(summary: dict[str, dict[str, float]]) -> str:
    base = summary["in_process"]["median"]
    rows = [
        "| call | median ms | p90 ms | runs | rounds' medians, ms | over in-process (median) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, label in ROWS.items():
        numbers = summary[kind]
        rounds = f"{numbers['lowest']:.2f} to {numbers['highest']:.2f}" if "lowest" in numbers else ""
        extra = f"{numbers['median'] - base:+.2f} ms" if kind.startswith("isolated") else ""
        rows.append(f"| {label} | {numbers['median']:.2f} | {numbers['p90']:.2f} | {numbers['runs']} | {rounds} | {extra} |")
    return "\n".join(rows)


def section(summary: dict, *, commit: str, calls: int, rounds: int, load: tuple[float, float]) -> str:
    return "\n".join([
        HEADING,
        "",
        f"{datetime.date.today().isoformat()}; commit {commit}; {machine()}; {calls} calls of each kind, interleaved, "
        f"in {rounds} rounds, after a warm-up call; load average {load[0]:.2f} before, {load[1]:.2f} after (the "
        "machine is shared). "
        "Wall-clock milliseconds per call through `execute` (the act node's path) of a tool that returns its "
        "argument.",
        "",
        "Rerun: `python benchmarks/isolation_overhead.py --write`",
        "",
        table(summary),
        "",
        "A call in a reused worker costs a JSON message each way over a pipe between the agent and the worker, and "
        "one more between the worker and the call's own process (a fork of the worker made while it waited for the "
        "call, issue 42: what the call changes, starts or limits ends with it), plus that process's copy-on-write of "
        "the pages it writes. A call in the agent's process starts a thread per call (so that a hung tool does not "
        "block the run) and waits for it. What isolation costs besides is a worker's start, paid by the first call, by "
        "calls running at once beyond the idle workers, and after a worker was killed (timeout, cancel, crash, "
        "processes left running); and the fork server's start, once per agent process.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="calls of each kind (default 500)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds the calls are split into (default 5)")
    parser.add_argument("--starts", type=int, default=30, help="worker starts (default 30)")
    parser.add_argument("--write", action="store_true", help="put the table first in benchmarks/results/isolation-and-faults.md")
    parser.add_argument("--json", type=Path, help="keep the numbers in this JSON file, under --label")
    parser.add_argument("--label", default="after", help="the key of this run in --json (default after)")
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    load_before = os.getloadavg()[0]
    summary = measure(args.calls, args.rounds, args.starts)
    print(table(summary))
    if args.json:
        import reactgraph

        kept = json.loads(args.json.read_text()) if args.json.exists() else {}
        kept[args.label] = {
            "commit": head.strip(), "src": str(Path(reactgraph.__file__).parents[1]), "date": datetime.date.today().isoformat(),
            "machine": machine(), "calls": args.calls, "rounds": args.rounds, "load_average": [load_before, os.getloadavg()[0]],
            "ms": summary,
        }
        args.json.write_text(json.dumps(kept, indent=1) + "\n")
    if args.write:
        load = (load_before, os.getloadavg()[0])
        write_section(PAGE, HEADING, section(summary, commit=head.strip() or "unknown", calls=args.calls, rounds=args.rounds, load=load))


if __name__ == "__main__":
    main()
