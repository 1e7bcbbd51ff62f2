"""A confidence signal, replayed on recorded eval runs: the AUROC of each run's scores (right vs wrong answers) as
recorded, and with the ``stumbled`` and the whole-number ``guessed`` signals of reactgraph.answers.confidence added
where they apply. A signal earns its place when it raises the AUROC across runs and task sets it was not made on.

    python benchmarks/confidence_replay.py benchmarks/eval/*.json --out benchmarks/confidence_replay_<commit>.md

Each record keeps its score, its termination reason, the count of replies sent back as no answer and its steps' calls
and results; the task's question comes from the shipped task files. ``stumbled`` is added to a success that had such a
reply (-0.2), ``guessed`` (-0.3) to a run whose last turn made a calculation none of whose numbers anything gave (the
whole-number part of ``guessed_inputs``, on a state rebuilt from the record; the part for decimals was in the recorded
scores already). Runs recorded before a signal existed are replayed as the rule would have scored them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reactgraph.answers.confidence import GUESSED, STUMBLED, guessed_inputs
from reactgraph.evaluation.suite import SHIPPED, load_suite, shipped_suite


def auroc(rows: Iterable[tuple[bool, float]]) -> float | None:
    """The chance a right answer scores above a wrong one (ties count half); None without both."""
    rows = list(rows)
    right = [score for ok, score in rows if ok]
    wrong = [score for ok, score in rows if not ok]
    if not right or not wrong:
        return None
    return sum((r > w) + 0.5 * (r == w) for r in right for w in wrong) / (len(right) * len(wrong))


def questions() -> dict[str, str]:
    """Every shipped task's first question, by id."""
    return {task.id: task.question for name in SHIPPED for task in load_suite(shipped_suite(name))}


def whole_guess(record: Mapping[str, Any], question: str) -> bool:
    """Whether the record's last turn made a calculation on whole numbers none of which anything gave (the question,
    an earlier turn, a result)."""
    last = max((s.get("turn", 1) for s in record["steps"]), default=1)
    steps = [
        {"actions": s["calls"], "observations": s["results"]}
        for s in record["steps"] if s.get("turn", 1) == last and s["kind"] in ("tools", "check")
    ]
    earlier = [  # an earlier turn's answer, as near as the record has it: its results and its final reply
        {"answer": " ".join([*(o["content"] for o in s["results"]), s.get("thought") or ""])}
        for s in record["steps"] if s.get("turn", 1) < last
    ]
    guesses = guessed_inputs({"question": question, "turns": earlier, "steps": steps})
    return any(n == n.to_integral_value() for n in guesses)


def replayed(record: Mapping[str, Any], question: str) -> dict[str, float]:
    """The record's score as recorded and with each signal (and both) added where it applies, kept within [0, 1]."""
    score = record["confidence"]
    stumbled = STUMBLED if record["reason"] == "success" and record.get("non_answer_replies") else 0.0
    guessed = GUESSED if whole_guess(record, question) else 0.0
    clamp = lambda x: min(1.0, max(0.0, x))  # noqa: E731
    return {"recorded": score, "stumbled": clamp(score + stumbled), "guessed": clamp(score + guessed),
            "both": clamp(score + stumbled + guessed)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="eval.json files")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    asked = questions()
    lines = ["| run | answers | wrong | recorded | + stumbled | + guessed | both |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
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
        cells = {k: auroc((ok, s[k]) for ok, s in scored) for k in ("recorded", "stumbled", "guessed", "both")}
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
