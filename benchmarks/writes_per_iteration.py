"""What a run writes per iteration (issue 30): checkpoints, write rows, SQL statements and bytes on SQLite, and CPU
per iteration in memory and on SQLite, for reactgraph and LangGraph's prebuilt agent side by side in one process.

The workload is history_pass.py's: a scripted model that calls one cheap tool per iteration (a 200-character
result; ``--observation 2000`` for 2 KB), then answers. Both agents run with ``durability="sync"`` (reactgraph's default) on a real SqliteSaver
whose connection counts the statements (SQLite's trace callback). Rows and statements do not depend on the
machine; CPU time (``time.process_time``, median of ``--repeats`` runs after a warm-up, the two agents taking turns)
does.

    python benchmarks/writes_per_iteration.py [--observation 2000]   # print the tables (benchmarks/results/bookkeeping.md)
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from history_pass import OBSERVATION, scripted, sized_lookup  # beside this script
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import AgentConfig, ReActAgent

SIZES = (20, 40, 200)
CPU_ITERATIONS = 40


SUMMARY_EVERY: dict[str, int] = {}  # --summary-every: reactgraph's running summary's cadence (default: AgentConfig's)


def reactgraph_run(iterations: int, saver: Any, chars: int = OBSERVATION) -> Callable[[str], Any]:
    cfg = AgentConfig(max_iterations=iterations + 1, stall_threshold=1000, allow_clarification=False, **SUMMARY_EVERY)
    agent = ReActAgent(scripted(iterations), [sized_lookup(chars)], cfg, checkpointer=saver)
    return lambda thread: agent.run("Read the entries.", thread_id=thread)


def prebuilt_run(iterations: int, saver: Any, chars: int = OBSERVATION) -> Callable[[str], Any]:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of langchain's create_agent
        graph = create_react_agent(scripted(iterations), [sized_lookup(chars)], checkpointer=saver)
    return lambda thread: graph.invoke(
        {"messages": [HumanMessage("Read the entries.")]},
        {"configurable": {"thread_id": thread}, "recursion_limit": 3 * iterations + 20},
        durability="sync",
    )


AGENTS = {"reactgraph": reactgraph_run, "prebuilt create_react_agent": prebuilt_run}


def writes(name: str, iterations: int, workdir: Path, chars: int = OBSERVATION) -> dict[str, float]:
    """Per iteration: checkpoints, write rows, SQL statements (all, and INSERTs), stored bytes."""
    conn = sqlite3.connect(workdir / f"{name.split()[0]}-{iterations}.sqlite", check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    run = AGENTS[name](iterations, saver, chars)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    run("bench")
    conn.set_trace_callback(None)
    checkpoints, blob = conn.execute("SELECT COUNT(*), SUM(LENGTH(checkpoint) + LENGTH(metadata)) FROM checkpoints").fetchone()
    rows, values = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone()
    conn.close()
    inserts = sum(1 for s in statements if s.lstrip().upper().startswith("INSERT"))
    per = float(iterations)
    return {"checkpoints": checkpoints / per, "rows": rows / per, "statements": len(statements) / per,
            "inserts": inserts / per, "bytes": (blob + values) / per}


def cpu_per_iteration(on_sqlite: bool, repeats: int, workdir: Path, chars: int = OBSERVATION) -> dict[str, float]:
    """Median CPU seconds per iteration of a CPU_ITERATIONS run for each agent, and the median of the ratios of
    runs made side by side: the agents take turns (after a warm-up round), so a burst of other load on a shared
    machine falls on both."""
    times: dict[str, list[float]] = {name: [] for name in AGENTS}
    for i in range(repeats + 1):
        for name in AGENTS:
            conn = sqlite3.connect(workdir / f"cpu-{name.split()[0]}-{i}.sqlite", check_same_thread=False) if on_sqlite else None
            run = AGENTS[name](CPU_ITERATIONS, SqliteSaver(conn) if conn else InMemorySaver(), chars)
            start = time.process_time()
            run(f"cpu-{i}")
            times[name].append((time.process_time() - start) / CPU_ITERATIONS)
            if conn:
                conn.close()
    ours, peer = times["reactgraph"][1:], times["prebuilt create_react_agent"][1:]
    return {"reactgraph": statistics.median(ours), "prebuilt create_react_agent": statistics.median(peer),
            "ratio": statistics.median(a / b for a, b in zip(ours, peer, strict=True))}


def measure(repeats: int, chars: int = OBSERVATION) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in AGENTS:
            print(f"measuring {name} ...", file=sys.stderr)
            results[name] = {n: writes(name, n, Path(tmp), chars) for n in SIZES}
        print("measuring CPU, the agents taking turns ...", file=sys.stderr)
        results["cpu"] = {mode: cpu_per_iteration(mode == "sqlite", repeats, Path(tmp), chars) for mode in ("memory", "sqlite")}
    return results


def table(results: dict[str, dict[str, Any]]) -> str:
    cpu = results.pop("cpu")
    ours, peer = results["reactgraph"], results["prebuilt create_react_agent"]
    lines = [
        f"| per iteration, on SQLite | agent | {' | '.join(f'{n} it.' for n in SIZES)} | reactgraph / prebuilt at {' / '.join(map(str, SIZES))} it. |",
        "| --- | --- |" + " ---: |" * (len(SIZES) + 1),
    ]
    labels = {"checkpoints": "checkpoints", "rows": "write rows", "statements": "SQL statements",
              "inserts": "INSERT statements", "bytes": "bytes stored"}
    for key, label in labels.items():
        for name, row in results.items():
            cells = [f"{row[n][key]:,.1f}" if key != "bytes" else f"{row[n][key] / 1024:,.1f} KB" for n in SIZES]
            ratio = " / ".join(f"{ours[n][key] / peer[n][key]:.2f}x" for n in SIZES) if name == "reactgraph" else ""
            lines.append(f"| {label} | {name} | {' | '.join(cells)} | {ratio} |")
    for name, row in results.items():
        creep = row[SIZES[-1]]["bytes"] / row[SIZES[0]]["bytes"]
        lines.append(f"| bytes per iteration, {SIZES[-1]} it. / {SIZES[0]} it. | {name} | | | {creep:.2f}x | |")
    lines += ["", f"| CPU per iteration, {CPU_ITERATIONS} it. | reactgraph | prebuilt | reactgraph / prebuilt (median of side-by-side runs) |",
              "| --- | ---: | ---: | ---: |"]
    for mode, row in cpu.items():
        lines.append(f"| {mode} | {row['reactgraph'] * 1000:.2f} ms | {row['prebuilt create_react_agent'] * 1000:.2f} ms | {row['ratio']:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per CPU measurement (median)")
    parser.add_argument("--observation", type=int, default=OBSERVATION, help="characters of each tool result (default 200)")
    parser.add_argument("--summary-every", type=int, help="reactgraph's summary_every (0: no summaries, one tool turn per iteration)")
    args = parser.parse_args(argv)
    if args.summary_every is not None:
        SUMMARY_EVERY["summary_every"] = args.summary_every
    print(table(measure(args.repeats, args.observation)))


if __name__ == "__main__":
    main()
