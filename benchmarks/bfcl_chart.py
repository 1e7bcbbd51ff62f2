"""The BFCL chart of benchmarks/RESULTS.md: accuracy per category and agent from an eval.json of
``reactgraph eval --suite bfcl:...``, with the published figures of the nearest bare model drawn across each group.

    python benchmarks/bfcl_chart.py benchmarks/eval/bfcl-qwen1.5b/eval.json benchmarks/eval/bfcl-qwen1.5b/bfcl-anchors.svg
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reactgraph.evaluation.bfcl.chart import bar_chart

# Qwen2.5-1.5B-Instruct (FC) on BFCL V3, 2025-04-25 (gorilla's gh-pages data_*.csv): bf16 on vLLM, temperature 0.001,
# BFCL's own prompt and one model call per entry.
PUBLISHED = {"live_simple": 0.740, "multiple": 0.870, "parallel": 0.815, "irrelevance": 0.646}
LABEL = "Qwen2.5-1.5B-Instruct FC, BFCL V3 (published)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("svg", type=Path)
    args = parser.parse_args()
    totals = json.loads(args.eval_json.read_text())["totals"]
    groups: dict[str, dict[str, float]] = {}
    for row in totals:
        groups.setdefault(row["category"], {})[row["agent"]] = row["accuracy"]
    marks = {c: PUBLISHED[c] for c in groups if PUBLISHED.get(c)}
    args.svg.write_text(bar_chart("BFCL accuracy, Qwen2.5-Coder-1.5B Q4 (first entries of each category)", groups, marks, LABEL))


if __name__ == "__main__":
    main()
