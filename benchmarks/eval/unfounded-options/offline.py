"""The recorded BFCL calls of every reactgraph run passed through ``unfounded_options`` and scored again with BFCL's
checker: which entries it turns (right to wrong, wrong to right), by category and tool-calling format. A replay of the
check on recorded calls, exact for the single-turn entries (the check runs after the model's reply and before its
calls do, and a single-turn entry is scored on the first calls that ran).

    python benchmarks/eval/unfounded-options/offline.py ['benchmarks/eval/**/bfcl.jsonl']
"""

import glob
import json
import sys
from collections import Counter
from decimal import Decimal

from reactgraph.answers.confidence import numbers_in
from reactgraph.evaluation.bfcl.entries import load_category
from reactgraph.evaluation.bfcl.scoring import score
from reactgraph.evaluation.bfcl.tools import entry_tools, tool_name
from reactgraph.graph.checks._options import optional_schemas, unfounded_option
from reactgraph.tools.specs import tool_specs

CATEGORIES = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple", "irrelevance"]


def replayed(call: dict, specs: dict, given: str, known: set[Decimal]) -> dict:
    spec = specs.get(tool_name(call["name"]))
    if spec is None or not isinstance(call["args"], dict):
        return call
    options = optional_schemas(spec)
    args = {k: v for k, v in call["args"].items() if k not in options or not unfounded_option(k, v, options[k], given, known)}
    return {"name": call["name"], "args": args}


def main(pattern: str) -> None:
    entries = {e.id: e for category in CATEGORIES for e in load_category(category)}
    counts: Counter = Counter()
    seen = set()
    for path in sorted(glob.glob(pattern, recursive=True)):
        run = path.split("/")[2]
        for line in open(path):
            record = json.loads(line)
            if record["agent"] != "reactgraph" or record["id"] not in entries or (run, record["id"]) in seen:
                continue
            seen.add((run, record["id"]))
            entry = entries[record["id"]]
            specs = {spec.name: spec for spec in tool_specs(entry_tools(entry)[0])}
            given = entry.question.lower()
            known = set(numbers_in(given))
            new = [replayed(call, specs, given, known) for call in record["calls"]]
            before, after = score(entry, record["calls"]).valid, score(entry, new).valid
            counts[(record["category"], "python" if "python" in run else "default", before, after, new != record["calls"])] += 1
            if before != after:
                print(run, record["id"], before, "->", after, [c["args"] for c in record["calls"]], "->", [c["args"] for c in new])
    print("(category, format, right before, right after, changed): entries")
    for key, n in sorted(counts.items(), key=str):
        print(key, n)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/eval/**/bfcl.jsonl")
