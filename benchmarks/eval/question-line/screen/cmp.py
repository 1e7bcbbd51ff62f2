"""cmp.py BASE_DIR... -- NEW_DIR...: the first-reply screen entry by entry, the base runs against the new: right
answers and first replies with a call per category (for irrelevance, a call is a wrong reply), completion tokens and
model seconds, and the entries the new runs lost."""

import json
import sys


def load(dirs: list[str]) -> dict[str, dict]:
    """The runs of each directory's eval.json, by entry id."""
    return {r["id"]: r for d in dirs for r in json.load(open(f"{d}/eval.json"))["runs"]}


def called(run: dict) -> bool:
    """Whether the first reply made a call."""
    return not run["right"] if run["category"] == "irrelevance" else run["error_type"] != "no_call"


def main(argv: list[str]) -> None:
    i = argv.index("--")
    a, b = load(argv[:i]), load(argv[i + 1 :])
    ids = [k for k in b if k in a]
    for cat in sorted({b[k]["category"] for k in ids}) + ["all"]:
        ks = [k for k in ids if cat == "all" or b[k]["category"] == cat]
        right = [sum(runs[k]["right"] for k in ks) for runs in (a, b)]
        calls = [sum(called(runs[k]) for k in ks) for runs in (a, b)]
        print(f"{cat:15} n={len(ks):3} right {right[0]:3} -> {right[1]:3}   call {calls[0]:3} -> {calls[1]:3}")
    tokens = [sum(runs[k]["completion_tokens"] for k in ids) for runs in (a, b)]
    seconds = [sum(runs[k]["model_seconds"] for k in ids) for runs in (a, b)]
    print(f"completion tokens {tokens[0]} -> {tokens[1]}, model seconds {seconds[0]:.0f} -> {seconds[1]:.0f}")
    print("lost:", [k for k in ids if a[k]["right"] and not b[k]["right"]])


if __name__ == "__main__":
    main(sys.argv[1:])
