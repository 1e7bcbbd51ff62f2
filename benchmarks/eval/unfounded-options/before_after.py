"""A BFCL run made with ``unfounded_options`` in the defaults, each entry scored as it ran and without the check: the
calls the check was given at the step that ran (its record on the step keeps them), scored again with BFCL's checker.

    python benchmarks/eval/unfounded-options/before_after.py benchmarks/eval/unfounded-options/bfcl-120-127
"""

import glob
import json
import sys
from collections import Counter

from reactgraph.evaluation.bfcl.entries import load_category
from reactgraph.evaluation.bfcl.scoring import score
from reactgraph.evaluation.bfcl.tools import entry_tools

CATEGORIES = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple", "irrelevance"]


def main(out: str) -> None:
    entries = {e.id: e for category in CATEGORIES for e in load_category(category)}
    right = {(r["agent"], r["id"]): r["right"] for r in json.load(open(f"{out}/eval.json"))["runs"]}
    totals: Counter = Counter()
    for path in sorted(glob.glob(f"{out}/**/bfcl.jsonl", recursive=True)):
        for line in open(path):
            record = json.loads(line)
            if record["agent"] != "reactgraph":
                continue
            entry = entries[record["id"]]
            now = before = right[("reactgraph", record["id"])]
            acted = [c for c in record.get("checks", []) if c["check"] == "unfounded_options"]
            ran = [c for c in acted if c["step"] == record.get("executed_step")]
            if ran:
                names = entry_tools(entry)[1]
                before = score(entry, [{"name": names.get(c["name"], c["name"]), "args": c["args"]} for c in ran[0]["calls"]]).valid
                print(record["id"], "without:", before, "with:", now, [c["args"] for c in ran[0]["calls"]], "->", [c["args"] for c in record["calls"]])
            elif acted:
                print(record["id"], "acted on a step whose calls did not run")
            totals[(record["category"], "without")] += before
            totals[(record["category"], "with")] += now
    for category in CATEGORIES:
        bare = sum(v for (agent, i), v in right.items() if agent == "bare" and entries[i].category == category)
        print(f"{category}: with {totals[(category, 'with')]}, without {totals[(category, 'without')]}, bare {bare}")


if __name__ == "__main__":
    main(sys.argv[1])
