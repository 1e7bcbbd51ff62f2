"""Bytes stored per iteration and the CPU of reading the last state back (``get_state``, which replays the chat's and
the trace's writes since their newest snapshot) for runs of up to 1,000 iterations (issue 45): whether the
``DeltaChannel`` snapshots make the bytes per iteration grow with the run, and what they save a read.

The workload is history_pass.py's (one tool turn per iteration, no summaries), with 2 KB results by default.

    python benchmarks/long_run_bytes.py [--sizes 20,200,1000] [--observation 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from history_pass import scripted, sized_lookup  # beside this script

from reactgraph import AgentConfig, ReActAgent


def measure(iterations: int, chars: int, workdir: Path, repeats: int = 7) -> tuple[float, float]:
    """(bytes stored per iteration, median CPU seconds of ``get_state`` on the run's last checkpoint)."""
    cfg = AgentConfig(max_iterations=iterations + 1, stall_threshold=10**6, allow_clarification=False, summary_every=0)
    agent = ReActAgent(scripted(iterations), [sized_lookup(chars)], cfg, checkpointer=workdir / f"run-{iterations}.sqlite")
    agent.run("Read the entries.", thread_id="t")
    conn = agent.checkpointer.conn
    (stored,) = conn.execute("SELECT SUM(LENGTH(checkpoint) + LENGTH(metadata)) FROM checkpoints").fetchone()
    (written,) = conn.execute("SELECT SUM(LENGTH(value)) FROM writes").fetchone()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        agent.graph.get_state({"configurable": {"thread_id": "t"}})
        times.append(time.process_time() - start)
    return (stored + written) / iterations, statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,200,1000")
    parser.add_argument("--observation", type=int, default=2000, help="characters of each tool result")
    args = parser.parse_args(argv)
    print("| iterations | bytes per iteration | get_state, CPU |\n| ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in map(int, args.sizes.split(",")):
            print(f"{n} iterations ...", file=sys.stderr)
            per, seconds = measure(n, args.observation, Path(tmp))
            print(f"| {n:,} | {per / 1024:.1f} KB | {seconds * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
