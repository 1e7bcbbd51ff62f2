"""Reading a run's past back (issue 30): ``ReActAgent.history`` at 20 / 100 / 200 iterations on SQLite, beside
LangGraph's prebuilt agent's ``get_state_history`` on the same saver class, in one process.

The workload: a scripted model (reactgraph.testing.ScriptedChatModel) that calls one cheap tool per
iteration (a 200-character result; ``--observation`` sets its length), then answers. Each run is written to its own SQLite file; then the
history is read back ``--repeats`` times and the median CPU time kept (``time.process_time``: the read is
single-threaded and waits on nothing, and other load on a shared machine does not count); for reactgraph also with
the garbage collector off (its full passes walk all the process holds, so whether one falls in a read depends on
the process, not the read). Beside the time, what does not depend on the machine: the SQL statements the read
sends (SQLite's trace callback), the checkpoints, and for reactgraph the Python lines one read runs per
checkpoint (``sys.settrace``; flat when the read is linear).

    python benchmarks/history_pass.py    # print the table (benchmarks/results/bookkeeping.md)
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import AgentConfig, ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call

SIZES = (20, 100, 200)


OBSERVATION = 200  # characters of each tool result (--observation)


def sized_lookup(chars: int = OBSERVATION) -> Callable[[int], str]:
    """The tool: ``lookup(n)``, whose result is ``chars`` characters long."""

    def lookup(n: int) -> str:
        """Look up entry n."""
        head = f"entry {n}: "
        return head + "x" * max(chars - len(head), 0)

    return lookup


lookup = sized_lookup()


def scripted(iterations: int) -> ScriptedChatModel:
    """Calls lookup ``iterations`` times, then answers."""
    turns = iter(range(1, 100_000))

    def reply(messages: list[BaseMessage]) -> Any:
        n = next(turns)
        return tool_call("lookup", {"n": n}, thought="Next entry.") if n <= iterations else "Done."

    return ScriptedChatModel(responses=[reply], repeat_last=True)


class Counted:
    """The SQL statements sent on a connection while counting (SQLite's trace callback)."""

    def __init__(self, conn: Any) -> None:
        self.statements: list[str] = []
        conn.set_trace_callback(self.statements.append)

    def reset(self) -> None:
        self.statements.clear()


def timed(read: Callable[[], Any], repeats: int) -> tuple[float, int]:
    """(median CPU seconds of ``read``, entries it returned)."""
    times, entries = [], 0
    for _ in range(repeats):
        start = time.process_time()
        entries = len(list(read()))
        times.append(time.process_time() - start)
    return statistics.median(times), entries


def reactgraph_history(iterations: int, workdir: Path, repeats: int, chars: int = OBSERVATION) -> dict[str, float]:
    cfg = AgentConfig(max_iterations=iterations + 1, stall_threshold=1000, allow_clarification=False, summary_every=0)
    agent = ReActAgent(scripted(iterations), [sized_lookup(chars)], cfg, checkpointer=workdir / f"reactgraph-{iterations}.sqlite")
    agent.run("Read the entries.", thread_id="bench")
    counted = Counted(agent.checkpointer.conn)
    seconds, entries = timed(lambda: agent.history("bench"), repeats)
    gc.disable()  # the same read without the collector's passes (they depend on everything the process holds)
    try:
        without_gc, _ = timed(lambda: agent.history("bench"), repeats)
    finally:
        gc.enable()
    counted.reset()
    agent.history("bench")
    statements = len(counted.statements)
    lines = python_lines(agent, "bench")
    return {"seconds": seconds, "gc_off": without_gc, "entries": entries, "statements": statements, "lines": lines}


def python_lines(agent: ReActAgent, thread_id: str) -> int:
    """The Python lines one ``history`` call runs (``sys.settrace``'s line events): its Python-level work, which
    the machine and its load do not change."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "line"
        return tracer

    sys.settrace(tracer)
    try:
        agent.history(thread_id)
    finally:
        sys.settrace(None)
    return count


def prebuilt_history(iterations: int, workdir: Path, repeats: int, chars: int = OBSERVATION) -> dict[str, float]:
    import sqlite3

    from langgraph.prebuilt import create_react_agent

    conn = sqlite3.connect(workdir / f"prebuilt-{iterations}.sqlite", check_same_thread=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of langchain's create_agent
        graph = create_react_agent(scripted(iterations), [sized_lookup(chars)], checkpointer=SqliteSaver(conn))
    config = {"configurable": {"thread_id": "bench"}}
    graph.invoke({"messages": [HumanMessage("Read the entries.")]}, config | {"recursion_limit": 3 * iterations + 20})
    counted = Counted(conn)
    seconds, entries = timed(lambda: graph.get_state_history(config), repeats)
    counted.reset()
    list(graph.get_state_history(config))
    return {"seconds": seconds, "entries": entries, "statements": len(counted.statements)}


def measure(repeats: int, chars: int = OBSERVATION) -> dict[str, dict[int, dict[str, float]]]:
    results: dict[str, dict[int, dict[str, float]]] = {"reactgraph": {}, "prebuilt create_react_agent": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            print(f"{n} iterations ...", file=sys.stderr)
            results["reactgraph"][n] = reactgraph_history(n, Path(tmp), repeats, chars)
            results["prebuilt create_react_agent"][n] = prebuilt_history(n, Path(tmp), repeats, chars)
    return results


def table(results: dict[str, dict[int, dict[str, float]]]) -> str:
    lines = [
        f"| agent | {' | '.join(f'{n} it.' for n in SIZES)} | {SIZES[-1]}/{SIZES[0]} |",
        "| --- |" + " ---: |" * (len(SIZES) + 1),
    ]
    for name, rows in results.items():
        first, last = rows[SIZES[0]], rows[SIZES[-1]]
        cells = [f"{rows[n]['seconds'] * 1000:,.0f} ms" for n in SIZES]
        lines.append(f"| {name}: history (CPU) | {' | '.join(cells)} | {last['seconds'] / first['seconds']:.1f}x |")
        if "gc_off" in first:
            cells = [f"{rows[n]['gc_off'] * 1000:,.0f} ms" for n in SIZES]
            ratio = last["gc_off"] / first["gc_off"]
            lines.append(f"| {name}: history, collector off (CPU) | {' | '.join(cells)} | {ratio:.1f}x |")
        cells = [f"{rows[n]['statements']:,.0f}" for n in SIZES]
        lines.append(f"| {name}: SQL statements | {' | '.join(cells)} | {last['statements'] / first['statements']:.1f}x |")
        cells = [f"{rows[n]['entries']:,.0f}" for n in SIZES]
        lines.append(f"| {name}: checkpoints (entries) | {' | '.join(cells)} | {last['entries'] / first['entries']:.1f}x |")
        if "lines" in first:
            cells = [f"{rows[n]['lines'] / rows[n]['entries']:,.0f}" for n in SIZES]
            ratio = (last["lines"] / last["entries"]) / (first["lines"] / first["entries"])
            lines.append(f"| {name}: Python lines per checkpoint | {' | '.join(cells)} | {ratio:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="reads per measurement (median)")
    parser.add_argument("--observation", type=int, default=OBSERVATION, help="characters of each tool result (default 200)")
    args = parser.parse_args(argv)
    print(table(measure(args.repeats, args.observation)))


if __name__ == "__main__":
    main()
