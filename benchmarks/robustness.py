"""Robustness report: every case of the fault-injection suite (``tests/faults``), counted.

Each case injects one fault — a malformed or hostile model reply, a damaged, foreign, locked or
full database, a tool that raises, hangs, floods or lies — into a real run (real LangGraph graph,
real SQLite files, real tools) and says what happened:

- survived: the run went on or stopped with a clear error, and nothing was lost;
- lost: the run went on, but lost data, changed a file that was not its to change, or let quoted
  text speak for the model (``tests.faults.Lost``);
- crashed: any other exception escaped;
- skipped: the case cannot be tried on this machine (e.g. chmod does not stop root).

    python benchmarks/robustness.py            # print the table
    python benchmarks/robustness.py --write    # and write benchmarks/ROBUSTNESS.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import time
import unittest
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.faults import Case, Lost, all_cases  # noqa: E402

OUTCOMES = ("survived", "lost", "crashed", "skipped")
HISTORY = "<!-- history: kept by --write -->"


def run_case(case: Case) -> tuple[str, str]:
    """(outcome, note) of one case, run in a fresh working directory with its own database."""
    with tempfile.TemporaryDirectory() as tmp:
        previous, db = os.getcwd(), os.environ.get("REACTGRAPH_DB")
        os.chdir(tmp)
        os.environ["REACTGRAPH_DB"] = str(Path(tmp) / "checkpoints.sqlite")
        try:
            case.run()
            return "survived", ""
        except unittest.SkipTest as skip:
            return "skipped", str(skip)
        except Lost as lost:
            return "lost", str(lost)
        except BaseException as exc:  # noqa: BLE001 - a crash is what is being counted
            return "crashed", f"{type(exc).__name__}: {exc}"
        finally:
            os.chdir(previous)
            if db is None:
                os.environ.pop("REACTGRAPH_DB", None)
            else:
                os.environ["REACTGRAPH_DB"] = db


def report() -> str:
    counts: dict[str, Counter] = defaultdict(Counter)
    notes: list[str] = []
    started = time.perf_counter()
    for case in all_cases():
        outcome, note = run_case(case)
        counts[case.category][outcome] += 1
        if outcome != "survived":
            notes.append(f"- `{case.id}` {outcome}: {note[:300]}")
    seconds = time.perf_counter() - started
    total = sum(counts.values(), Counter())
    lines = [
        "# Robustness: the fault-injection suite",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, "
        f"{platform.machine()}; {seconds:.1f} s for {sum(total.values())} cases. "
        "Command: `python benchmarks/robustness.py --write`. The same cases run in the normal test run "
        "(`tests/faults/test_faults.py`).",
        "",
        "| category | tried | survived | lost | crashed | skipped |",
        "|---|---|---|---|---|---|",
    ]
    for category in sorted(counts):
        c = counts[category]
        lines.append(f"| {category} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    lines.append(f"| **all** | **{sum(total.values())}** | " + " | ".join(f"**{total[o]}**" for o in OUTCOMES) + " |")
    lines += ["", "Cases not survived:", "", *(notes or ["- none"]), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write benchmarks/ROBUSTNESS.md")
    args = parser.parse_args()
    text = report()
    print(text)
    if args.write:  # the hand-written history below the marker is kept
        path = ROOT / "benchmarks" / "ROBUSTNESS.md"
        old = path.read_text() if path.exists() else ""
        history = old[old.index(HISTORY) :] if HISTORY in old else ""
        path.write_text(text + ("\n" + history if history else ""))


if __name__ == "__main__":
    main()
