"""Each reply check, measured: from the traces of eval runs, per check, how often it acted, how often it turned a wrong
outcome right and a right one wrong, and the tokens of the turns after it (reactgraph.evaluation.checks).

    python benchmarks/check_gains.py --suite eval-results/suite/eval.json \
        --held-out eval-results/walkthrough/eval.json \
        --bfcl eval-results/bfcl-simple/bfcl.jsonl --bfcl eval-results/bfcl-irrelevance/bfcl.jsonl \
        --ablation premature_call=eval-results/no-premature/eval.json \
        --out benchmarks/check_gains_<commit>.md

--suite / --held-out: a task-suite eval's eval.json (reactgraph's runs); --bfcl: a BFCL eval's bfcl.jsonl (reactgraph's
records, scored with BFCL's checker); --ablation CHECK=eval.json: the same tasks run with CHECK left out of
reply_checks (`--set reply_checks=[...]`), which settles the firings the trace cannot score. One table per source,
and one over all of them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reactgraph.evaluation.bfcl.checks import entry_firings
from reactgraph.evaluation.bfcl.entries import load_category
from reactgraph.evaluation.bfcl.scoring import score
from reactgraph.evaluation.checks import CheckGain, Firing, ablated, firings, gains, markdown


def suite_firings(path: Path) -> tuple[list[Firing], dict[str, bool]]:
    """The firings of reactgraph's runs in an eval.json, and each task's outcome."""
    runs = [r for r in json.loads(path.read_text())["runs"] if r["agent"] == "reactgraph"]
    found = [f for r in runs for f in firings(r["task_id"], r["correct"], r.get("fired") or [])]
    return found, {r["task_id"]: r["correct"] for r in runs}


def bfcl_firings(path: Path) -> list[Firing]:
    """The firings of reactgraph's records in a bfcl.jsonl, each entry scored as BFCL scores it."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["agent"] == "reactgraph" and not r.get("error")]
    entries = {e.id: e for category in {r["category"] for r in records} for e in load_category(category)}
    return [f for r in records for f in entry_firings(entries[r["id"]], r, score(entries[r["id"]], r["calls"]).valid)]


def with_ablations(rows: list[CheckGain], found: list[Firing], ablations: dict[str, Path]) -> list[CheckGain]:
    """``rows`` with each ablated check's turned outcomes read from its ablation run (on the tasks it fired on)."""
    out = []
    for gain in rows:
        if gain.check in ablations:
            without = suite_firings(ablations[gain.check])[1]
            fired_on = {f.task: f.right for f in found if f.check == gain.check}
            gain = ablated(gain, fired_on, without)
        out.append(gain)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, action="append", default=[])
    parser.add_argument("--held-out", type=Path, action="append", default=[])
    parser.add_argument("--bfcl", type=Path, action="append", default=[])
    parser.add_argument("--ablation", action="append", default=[], help="CHECK=eval.json")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    ablations = {k: Path(v) for k, _, v in (a.partition("=") for a in args.ablation)}
    sections, everything = [], []
    for label, paths in (("task suite", args.suite), ("held out", args.held_out)):
        for path in paths:
            found = suite_firings(path)[0]
            everything += found
            rows = with_ablations(gains(found), found, ablations) if label == "task suite" else gains(found)
            sections.append(markdown(rows, f"{label}: {path}"))
    for path in args.bfcl:
        found = bfcl_firings(path)
        everything += found
        sections.append(markdown(gains(found), f"BFCL: {path}"))
    sections.append(markdown(with_ablations(gains(everything), everything, ablations), "all of them"))
    text = "\n\n".join(sections) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
