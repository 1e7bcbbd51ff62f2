"""CLI start-up time: how long the installed ``reactgraph`` command takes for commands that do no work.

Each command runs N times as a fresh subprocess (the console script beside this Python, as a user
runs it), the commands interleaved so that a noisy moment hurts them alike; one warm-up run each
is not counted. Reported: the median and the 90th percentile of the wall-clock seconds.

    python benchmarks/cli_startup.py                         # print the table
    python benchmarks/cli_startup.py --save before.json      # and keep the numbers
    python benchmarks/cli_startup.py --baseline benchmarks/cli_startup_f6c4e9d.json --write
                                                             # beside a saved run, into results/first-hour.md

The machine is shared: check ``uptime`` first, and run it more than once. The saved "before" numbers
were measured on the code before the CLI imported lazily, put in front of the installed package:

    git archive f6c4e9d src | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before/src python benchmarks/cli_startup.py --commit f6c4e9d \\
        --save benchmarks/cli_startup_f6c4e9d.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from results_section import write_section  # beside this script

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## CLI start-up"
PAGE = "first-hour.md"  # of benchmarks/results/
REACTGRAPH = str(Path(sys.executable).with_name("reactgraph"))
COMMANDS = {
    "reactgraph --help": [REACTGRAPH, "--help"],
    "reactgraph run --help": [REACTGRAPH, "run", "--help"],
    "reactgraph tools": [REACTGRAPH, "tools"],
    'python -c "import reactgraph"': [sys.executable, "-c", "import reactgraph"],
    # the floor of `reactgraph tools`: the registry's tools are LangChain tools
    'python -c "from langchain_core.tools import StructuredTool"': [
        sys.executable, "-c", "from langchain_core.tools import StructuredTool"
    ],
}


def seconds(argv: list[str]) -> float:
    """Wall-clock seconds of one run of ``argv``; a failing command stops the benchmark."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Median and p90 seconds of every command over ``runs`` interleaved runs."""
    for argv in COMMANDS.values():
        seconds(argv)  # warm-up: disk cache and .pyc files
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, argv in COMMANDS.items():
            times[name].append(seconds(argv))
    return {
        name: {"median": statistics.median(t), "p90": statistics.quantiles(t, n=10)[-1], "runs": len(t)}
        for name, t in times.items()
    }


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def table(result: dict, baseline: dict | None) -> str:
    def cell(numbers: dict | None) -> str:
        return f"{numbers['median']:.3f} | {numbers['p90']:.3f}" if numbers else "- | -"

    if baseline is None:
        rows = ["| command | median s | p90 s |", "|---|---|---|"]
        rows += [f"| `{name}` | {cell(numbers)} |" for name, numbers in result["timings"].items()]
        return "\n".join(rows)
    rows = ["| command | before: median s | p90 s | after: median s | p90 s |", "|---|---|---|---|---|"]
    rows += [f"| `{name}` | {cell(baseline['timings'].get(name))} | {cell(numbers)} |"
             for name, numbers in result["timings"].items()]
    return "\n".join(rows)


def section(result: dict, baseline: dict | None, command: str) -> str:
    lines = [
        HEADING,
        "",
        f"{result['date']}; commit {result['commit']}; {result['runs']} runs of each command, interleaved, after a "
        f"warm-up run; {result['machine']}; load average {result['load_before']:.2f} before, "
        f"{result['load_after']:.2f} after (the machine is shared).",
        "",
        f"Rerun: `{command}`",
        "",
    ]
    if baseline:
        lines += [f"Before: commit {baseline['commit']} ({baseline['date']}, load average "
                  f"{baseline['load_before']:.2f} before, {baseline['load_after']:.2f} after).", ""]
    note = (
        "Help and usage errors import only the standard library (reactgraph.cli); `import reactgraph` imports its "
        "public names on first use. `reactgraph tools` cannot go below the last row: the registry's tools are "
        "langchain_core tools, and importing them loads langchain_core's callbacks, runnables and tracers and "
        "langsmith's client; the registry, the built-ins and the table add the difference. It loads no LangGraph."
    )
    return "\n".join(lines + [table(result, baseline), "", note, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument("--save", type=Path, help="also write the numbers to this JSON file")
    parser.add_argument("--baseline", type=Path, help="a JSON file from --save: shown as 'before'")
    parser.add_argument("--write", action="store_true", help="put the table first in benchmarks/results/first-hour.md")
    parser.add_argument("--commit", help="the commit measured, when not this tree's HEAD (code put on PYTHONPATH)")
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    load_before = os.getloadavg()[0]
    timings = measure(args.runs)
    result = {
        "date": datetime.date.today().isoformat(),
        "commit": args.commit or head.strip() or "unknown",
        "machine": machine(),
        "runs": args.runs,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "timings": timings,
    }
    baseline = json.loads(args.baseline.read_text()) if args.baseline else None
    print(table(result, baseline))
    if args.save:
        args.save.write_text(json.dumps(result, indent=2) + "\n")
    if args.write:
        baseline_option = f" --baseline {args.baseline.as_posix()}" if args.baseline else ""
        write_section(PAGE, HEADING, section(result, baseline, f"python benchmarks/cli_startup.py{baseline_option} --write"))


if __name__ == "__main__":
    main()
