"""A confidence signal, replayed on recorded eval runs: the AUROC of each run's scores (right vs wrong answers) as
recorded, and with the newest signal of reactgraph.answers.confidence added where it applies. A signal earns its place
when it raises the AUROC across runs and task sets it was not made on.

    python benchmarks/confidence_replay.py benchmarks/eval/*.json --out benchmarks/confidence_replay_<commit>.md

Each record keeps its score, its termination reason, its answer and its steps' calls and results; the task's question
comes from the shipped task files. ``unused`` (-0.2) is added to a run whose last turn called tools, did not give up,
and left a number of the question out of every call and the answer (``unused_numbers``): give it runs recorded
before 1d6dbf4 (a record does not keep its signals, and a later one's score has ``unused`` in it already). (The replay of ``stumbled`` and the whole-number
``guessed`` at 4992b42: confidence_replay_4992b42.md.)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reactgraph.answers.confidence import UNUSED, unused_numbers
from reactgraph.evaluation.suite import SHIPPED, load_suite, shipped_suite


def auroc(rows: Iterable[tuple[bool, float]]) -> float | None:
    """The chance a right answer scores above a wrong one (ties count half); None without both."""
    rows = list(rows)
    right = [score for ok, score in rows if ok]
    wrong = [score for ok, score in rows if not ok]
    if not right or not wrong:
        return None
    return sum((r > w) + 0.5 * (r == w) for r in right for w in wrong) / (len(right) * len(wrong))


def questions() -> dict[str, list[str]]:
    """Every shipped task's questions, a turn each (a reply to a question the agent asked is no new turn), by id."""
    return {task.id: [task.question, *(turn.question for turn in task.then if turn.question)]
            for name in SHIPPED for task in load_suite(shipped_suite(name))}


def left_out(record: Mapping[str, Any], asked: list[str]) -> bool:
    """Whether the record's last turn called tools, did not give up, and left a number of its question out of every
    call and the answer."""
    last = max((s.get("turn", 1) for s in record["steps"]), default=1)
    question = asked[min(last, len(asked)) - 1]
    calls = [json.dumps(c["args"]) for s in record["steps"] if s.get("turn", 1) == last for c in s["calls"] if c.get("tool")]
    return bool(calls) and record["reason"] != "failure" and bool(unused_numbers(question, calls, record.get("answer") or ""))


def replayed(record: Mapping[str, Any], asked: list[str]) -> dict[str, float]:
    """The record's score as recorded and with ``unused`` added where it applies, kept within [0, 1]."""
    score = record["confidence"]
    return {"recorded": score, "unused": min(1.0, max(0.0, score + (UNUSED if left_out(record, asked) else 0.0)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="eval.json files")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    asked = questions()
    lines = ["| run | answers | wrong | recorded | + unused |", "| --- | ---: | ---: | ---: | ---: |"]
    means: dict[str, list[float]] = {}
    for path in args.runs:
        try:
            runs = json.loads(path.read_text()).get("runs") or []
        except (json.JSONDecodeError, AttributeError):
            continue
        records = [r for r in runs if r.get("agent", "reactgraph") == "reactgraph" and r.get("confidence") is not None
                   and "steps" in r and r["task_id"] in asked]
        if len(records) < 15:
            continue
        scored = [(r["correct"], replayed(r, asked[r["task_id"]])) for r in records]
        cells = {k: auroc((ok, s[k]) for ok, s in scored) for k in ("recorded", "unused")}
        if None in cells.values():
            continue
        for k, v in cells.items():
            means.setdefault(k, []).append(v or 0.0)
        wrong = sum(not ok for ok, _ in scored)
        name = path.parent.name if path.name == "eval.json" else path.name
        lines.append(f"| {name} | {len(records)} | {wrong} | " + " | ".join(f"{cells[k]:.3f}" for k in cells) + " |")
    lines.append("| mean | | | " + " | ".join(f"{sum(v) / len(v):.3f}" for v in means.values()) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
