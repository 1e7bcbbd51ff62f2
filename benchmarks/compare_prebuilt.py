"""reactgraph vs LangGraph's prebuilt ReAct agents, side by side in one process.

Same scripted model (reactgraph.testing.ScriptedChatModel), same tools, same runs:

1. prompt tokens sent to the model over a run of 10 / 20 / 40 tool iterations with 2 KB
   observations (every model call counted, reactgraph's summary calls included);
2. bytes stored in a real SQLite checkpointer (SqliteSaver) after that run: the checkpoint,
   metadata and pending-write blobs;
3. framework overhead per iteration: CPU time of a run with an instant model and tool
   (in-memory checkpointer), divided by the iterations, median of repeats (CPU time, not
   wall time, so that other load on a shared machine does not count);
4. wall time of one turn with 4 tool calls that each sleep 200 ms.

    python benchmarks/compare_prebuilt.py            # print the table
    python benchmarks/compare_prebuilt.py --write    # and put it first in benchmarks/results/bookkeeping.md
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from results_section import write_section  # beside this script

from reactgraph import AgentConfig, build_graph
from reactgraph.models.tokens import estimate_messages
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls

SIZES = (10, 20, 40)
OBSERVATION_CHARS = 2000
SUMMARY_MARK = "running notes"  # reactgraph's summary prompt (prompts.SUMMARIZE_PROMPT)
HEADING = "## reactgraph vs LangGraph's prebuilt agents"
PAGE = "bookkeeping.md"  # of benchmarks/results/


def fetch(n: int) -> str:
    """Fetch page n (2 KB of text)."""
    return f"page {n}: " + ("lorem ipsum dolor sit amet " * 100)[: OBSERVATION_CHARS - 10]


def nap(i: int) -> str:
    """Sleep 200 ms, then return."""
    time.sleep(0.2)
    return f"rested {i}"


def scripted(iterations: int) -> ScriptedChatModel:
    """Calls fetch ``iterations`` times (a new page each time), then answers; summary prompts get notes."""
    turns = iter(range(1, 10_000))

    def reply(messages: list[BaseMessage]) -> Any:
        if SUMMARY_MARK in messages[0].text:
            return "Notes: fetched pages so far, nothing decisive."
        n = next(turns)
        return tool_call("fetch", {"n": n}, thought="Fetch the next page.") if n <= iterations else "Done."

    return ScriptedChatModel(responses=[reply], repeat_last=True)


# -- the three agents ---------------------------------------------------------------------------


def reactgraph_agent(model: ScriptedChatModel, tools: list[Callable], saver: Any, iterations: int) -> Callable[[str], Any]:
    cfg = AgentConfig(max_iterations=iterations + 1, stall_threshold=100, allow_clarification=False, early_stopping="force")
    graph = build_graph(model, tools, cfg, checkpointer=saver)
    limit = 6 * iterations + 20
    return lambda thread: graph.invoke({"query": "Read the pages."}, {"configurable": {"thread_id": thread}, "recursion_limit": limit})


def prebuilt_agent(model: ScriptedChatModel, tools: list[Callable], saver: Any, iterations: int) -> Callable[[str], Any]:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of langchain's create_agent
        graph = create_react_agent(model, tools, checkpointer=saver)
    limit = 3 * iterations + 20
    return lambda thread: graph.invoke(
        {"messages": [HumanMessage("Read the pages.")]}, {"configurable": {"thread_id": thread}, "recursion_limit": limit}
    )


def create_agent_agent(model: ScriptedChatModel, tools: list[Callable], saver: Any, iterations: int) -> Callable[[str], Any]:
    from langchain.agents import create_agent

    graph = create_agent(model, tools, checkpointer=saver)
    limit = 3 * iterations + 20
    return lambda thread: graph.invoke(
        {"messages": [HumanMessage("Read the pages.")]}, {"configurable": {"thread_id": thread}, "recursion_limit": limit}
    )


AGENTS = {"reactgraph": reactgraph_agent, "prebuilt create_react_agent": prebuilt_agent, "langchain create_agent": create_agent_agent}


# -- measurements -------------------------------------------------------------------------------


def stored_bytes(path: Path) -> int:
    """Bytes of checkpoint, metadata and write blobs in the SQLite file."""
    with sqlite3.connect(path) as db:
        checkpoints = db.execute("SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints").fetchone()[0]
        writes = db.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone()[0]
    return checkpoints + writes


def tokens_and_bytes(name: str, iterations: int, workdir: Path) -> tuple[int, int, int]:
    """(prompt tokens over the run, SQLite checkpoint bytes after it, model calls)."""
    path = workdir / f"{name.split()[0]}-{iterations}.sqlite"
    connection = sqlite3.connect(path, check_same_thread=False)
    model = scripted(iterations)
    run = AGENTS[name](model, [fetch], SqliteSaver(connection), iterations)
    run("bench")
    connection.close()
    tool_turns = sum(1 for c in model.calls if SUMMARY_MARK not in c["messages"][0].text) - 1
    assert tool_turns == iterations, f"{name}: {tool_turns} tool turns, expected {iterations}"
    return sum(estimate_messages(c["messages"]) for c in model.calls), stored_bytes(path), len(model.calls)


def overhead_per_iteration(name: str, iterations: int, repeats: int) -> float:
    """Median CPU seconds per iteration of a run with an instant model and tool, in-memory checkpoints.
    CPU time of the process (all its threads), so that other load on the machine does not count."""
    times = []
    for i in range(repeats + 1):  # the first run warms up imports and caches
        run = AGENTS[name](scripted(iterations), [fetch], InMemorySaver(), iterations)
        start = time.process_time()
        run(f"overhead-{i}")
        times.append((time.process_time() - start) / iterations)
    return statistics.median(times[1:])


def parallel_turn(name: str) -> float:
    """Seconds of one run whose single tool turn makes 4 calls that each sleep 200 ms."""
    calls = tool_calls([("nap", {"i": i}) for i in range(4)], thought="Rest four times.")
    model = ScriptedChatModel(responses=[calls, "Rested."])
    run = AGENTS[name](model, [nap], InMemorySaver(), 1)
    start = time.perf_counter()
    run("parallel")
    return time.perf_counter() - start


# -- report ---------------------------------------------------------------------------------------


def measure(repeats: int) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in AGENTS:
            print(f"measuring {name} ...", file=sys.stderr)
            row: dict[str, Any] = {"calls": {}, "tokens": {}, "bytes": {}, "overhead": {}}
            for n in SIZES:
                row["tokens"][n], row["bytes"][n], row["calls"][n] = tokens_and_bytes(name, n, Path(tmp))
                row["overhead"][n] = overhead_per_iteration(name, n, repeats)
            row["parallel"] = parallel_turn(name)
            results[name] = row
    return results


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| metric | agent | 10 it. | 20 it. | 40 it. | 40/20 |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    formats = {
        "calls": ("model calls (reactgraph: + summaries)", lambda v: f"{v:,}"),
        "tokens": ("prompt tokens over the run", lambda v: f"{v:,}"),
        "bytes": ("SQLite checkpoint bytes", lambda v: f"{v / 1024:,.0f} KB"),
        "overhead": ("overhead per iteration (CPU)", lambda v: f"{v * 1000:.1f} ms"),
    }
    for key, (label, fmt) in formats.items():
        for name, row in results.items():
            values = row[key]
            ratio = values[40] / values[20] if values[20] else float("nan")
            lines.append(f"| {label} | {name} | {' | '.join(fmt(values[n]) for n in SIZES)} | {ratio:.2f} |")
    base = results["reactgraph"]
    lines += [
        "",
        "| agent | one turn, 4 calls x 200 ms | reactgraph's overhead per iteration / this agent's (median over 10/20/40) |",
        "| --- | ---: | ---: |",
    ]
    for name, row in results.items():
        relative = statistics.median(base["overhead"][n] / row["overhead"][n] for n in SIZES)
        lines.append(f"| {name} | {row['parallel'] * 1000:.0f} ms | {relative:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per overhead measurement (median)")
    parser.add_argument("--write", action="store_true", help=f"put the table first in benchmarks/results/{PAGE}")
    args = parser.parse_args(argv)
    results = measure(args.repeats)
    text = table(results)
    print(text)
    if args.write:
        command = "python benchmarks/compare_prebuilt.py --write" + (f" --repeats {args.repeats}" if args.repeats != 7 else "")
        section = (
            f"{HEADING}\n\n"
            f"Run on {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC with `{command}` "
            f"(Python {platform.python_version()}, {platform.machine()}).\n\n"
            + (__doc__ or "").split("\n\n    python")[0].split("\n\n", 1)[1]
            + "\n\n"
            + text
            + "\n"
        )
        write_section(PAGE, HEADING, section)


if __name__ == "__main__":
    main()
