"""The BFCL charts of benchmarks/results/bfcl.md: accuracy per category and agent from an eval.json of
``reactgraph eval --suite bfcl:...``, with the published figures of the nearest bare model drawn across each group;
``--with`` adds the groups of other eval.json files (another slice of the same categories), each named by its label.

    python benchmarks/bfcl_chart.py benchmarks/eval/bfcl-qwen1.5b/eval.json benchmarks/eval/bfcl-qwen1.5b/bfcl-anchors.svg
    python benchmarks/bfcl_chart.py A/eval.json out.svg --label 0-24 --with B/eval.json:100-124 --title "..."
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reactgraph.evaluation.bfcl.chart import WIDTH, bar_chart

# Qwen2.5-1.5B-Instruct (FC) on BFCL V3, 2025-04-25 (gorilla's gh-pages data_*.csv): bf16 on vLLM, temperature 0.001,
# BFCL's own prompt and one model call per entry.
PUBLISHED = {"live_simple": 0.740, "multiple": 0.870, "parallel": 0.815, "irrelevance": 0.646}
LABEL = "Qwen2.5-1.5B-Instruct FC, BFCL V3 (published)"
TITLE = "BFCL accuracy, Qwen2.5-Coder-1.5B Q4 (first entries of each category)"


def groups_of(eval_json: Path, label: str) -> dict[str, dict[str, float]]:
    """category (with `` label`` when given) -> agent -> accuracy."""
    groups: dict[str, dict[str, float]] = {}
    for row in json.loads(eval_json.read_text())["totals"]:
        groups.setdefault(f"{row['category']} {label}".strip(), {})[row["agent"]] = row["accuracy"]
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("svg", type=Path)
    parser.add_argument("--label", default="", help="the first eval.json's slice, added to its categories' names")
    parser.add_argument("--with", dest="others", action="append", default=[], metavar="EVAL_JSON:LABEL")
    parser.add_argument("--title", default=TITLE)
    args = parser.parse_args()
    if args.others and not args.label:
        parser.error("--with needs --label for the first eval.json")
    groups, labelled = groups_of(args.eval_json, args.label), {args.label: args.eval_json}
    for other in args.others:
        path, _, label = other.rpartition(":")
        labelled[label] = Path(path)
        groups |= groups_of(Path(path), label)
    if args.others:  # the slices side by side: each category's groups next to each other
        groups = dict(sorted(groups.items(), key=lambda item: (item[0].rsplit(" ", 1)[0], list(labelled).index(item[0].rsplit(" ", 1)[1]))))
    marks = {g: PUBLISHED[g.split(" ")[0]] for g in groups if PUBLISHED.get(g.split(" ")[0])}
    width = max(WIDTH, 70 * len(groups))
    args.svg.write_text(bar_chart(args.title, groups, marks, LABEL, width=width))


if __name__ == "__main__":
    main()
