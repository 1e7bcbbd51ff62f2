"""What the playbook (issue 16) costs a run, as it grows: the prompt block's size, and the time to
retrieve a new run's block and to learn a finished run, on the default store (SqliteStore on a file).

Bullets are made as the reflector makes them, from distinct questions (so the curator keeps them
apart), each about one of a few tools. Retrieval is measured cold (the playbook just changed: every
bullet is read and ranked) and warm (the cached block for a question seen at this version). The
block is capped (``playbook_max_tokens``, 200 by default): its size must not grow with the playbook.

    python benchmarks/playbook_cost.py            # print the table
    python benchmarks/playbook_cost.py --write    # and put it first in benchmarks/results/queues-and-storage.md
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from results_section import write_section  # beside this script

from reactgraph.answers.result import Observation, ReActStep, ToolAction
from reactgraph.config import AgentConfig
from reactgraph.graph.deps import NodeDeps
from reactgraph.models.tokens import count_tokens
from reactgraph.playbook import Playbook, sqlite_store
from reactgraph.playbook.reflector import reflect
from reactgraph.tools.registry import ToolRegistry

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Playbook cost"
PAGE = "queues-and-storage.md"  # of benchmarks/results/
SIZES = (0, 10, 50, 200)
TOOLS = ["calculator", "percent_of", "read_file", "search_documents"]
REPEATS = 20


def word(n: int) -> str:
    """A made-up word of its own for every n: 'k' and n in base 26 written in letters."""
    letters = ""
    while True:
        n, rest = divmod(n, 26)
        letters = chr(ord("a") + rest) + letters
        if n == 0:
            return "k" + letters


def question(n: int) -> str:
    """A question whose words are its own: the curator keeps its bullet apart from the others'."""
    a, b, c, d = (word(4 * n + i) for i in range(4))
    return f"How many {a} and {b} are in the {c} {d} crate?"


def steps(n: int) -> list[ReActStep]:
    tool = TOOLS[n % len(TOOLS)]
    action = ToolAction(id=f"c{n}", tool=tool, args={"expression": f"{n}+1"})
    obs = Observation(call_id=f"c{n}", tool=tool, status="ok", content=str(n + 1))
    return [ReActStep(iteration=1, actions=[action], observations=[obs], timestamp=0.0)]


def timed(fn, repeats: int = REPEATS) -> float:
    """Median milliseconds of ``fn()``."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def measure(size: int, folder: Path) -> dict[str, float]:
    store = sqlite_store(folder / f"playbook-{size}.sqlite")
    book = Playbook(store, max_bullets=max(size, 1) + 50)
    for n in range(size):
        book.merge(reflect(question(n), steps(n), "success", "", 2, f"seed-{n}@0"))
    assert len(book.list()) == size, "the curator merged bullets the benchmark meant to keep apart"
    cfg = AgentConfig(playbook=True)
    asked = question(size // 2 + 1)
    cold = timed(lambda: book.prompt_block(asked, cfg.playbook_top_k, cfg.playbook_max_tokens, TOOLS))
    deps = NodeDeps(config=cfg, registry=ToolRegistry())
    key = (cfg.playbook_name, asked, tuple(sorted(TOOLS)), cfg.playbook_top_k, cfg.playbook_max_tokens)
    text, ids = book.prompt_block(asked, cfg.playbook_top_k, cfg.playbook_max_tokens, TOOLS)
    deps.playbook_cache[key] = (book.version(), text, ids)

    def warm() -> None:  # what shown_block does on a cache hit: read the version, compare
        assert deps.playbook_cache[key][0] == book.version()

    cached = timed(warm)
    counter = iter(range(10**6))
    learn = timed(lambda: book.merge(reflect(question(size + 1), steps(size + 1), "success", "", 2, f"run-{next(counter)}@0")))
    store.conn.close()
    return {"bullets": size, "block_tokens": count_tokens(text), "shown": len(ids), "cold_ms": cold, "warm_ms": cached,
            "learn_ms": learn}


def table(rows: list[dict[str, float]]) -> str:
    out = ["| bullets | block tokens | bullets shown | retrieve, playbook changed (ms) | retrieve, cached (ms) | learn a run (ms) |",
           "|---|---|---|---|---|---|"]
    out += [f"| {r['bullets']} | {r['block_tokens']} | {r['shown']} | {r['cold_ms']:.2f} | {r['warm_ms']:.3f} | {r['learn_ms']:.2f} |"
            for r in rows]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="put the results first in benchmarks/results/queues-and-storage.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(size, Path(tmp)) for size in SIZES]
    text = table(rows)
    print(text)
    if args.write:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        write_section(PAGE, HEADING, f"{HEADING}\n\n`python benchmarks/playbook_cost.py --write` ({stamp}, {commit}, Python "
                      f"{platform.python_version()}, {REPEATS} repeats, medians; SqliteStore on a temporary file). The "
                      f"block is capped at `playbook_max_tokens` (200): it does not grow with the playbook. Retrieval "
                      f"after a change reads and ranks every bullet (once per question per change); a cached block "
                      f"costs one read of the version. Learning is one read of the bullets and one batch write.\n\n{text}\n")


if __name__ == "__main__":
    main()
