"""The first isolated tool call of a process (issue 30): from ``ReActAgent(...)`` to the run's end, one call of a
tool in a worker process (``tool_isolation="process"``) and a scripted model, each in a fresh Python process, beside
the same run with the tool in the agent's process. Also the act node's own time for the call (the observation's
duration: what the call waited for its worker), and what the fork server imports (``python -X importtime`` of
``reactgraph.tools.isolation.child``; whether LangChain's tracers and LangSmith come with it).

Three small scripts, written to a temporary directory, each a tool at module level and the run under the main guard:

- ``light``: reactgraph imported under the main guard only;
- ``agent at the top``: ``from reactgraph import ReActAgent`` at the top, as most scripts have it (until 5728629 worker
  processes re-ran the main script, as ``multiprocessing`` does, so the fork server imported the agent, LangGraph and
  LangChain too; now a tool of the main script crosses by value and a worker imports nothing of the script);
- ``agent at the top, model 1.5 s``: that script with a model whose first reply takes 1.5 s (a small local model's
  first turn takes longer): the fork server, started as the agent is made, starts meanwhile.

    python benchmarks/first_isolated_call.py            # print the table, add it to first_isolated_call.json
    PYTHONPATH=/path/to/main/src python benchmarks/first_isolated_call.py --label before
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
RESULT = HERE.with_suffix(".json")
SCRIPT = '''{top}import json, os, sys, time


def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


if __name__ == "__main__":
    start = time.perf_counter()
    from langchain_core.messages import AIMessage

    from reactgraph import ReActAgent
    from reactgraph.testing import ScriptedChatModel

    imported = time.perf_counter()

    def first(messages):
        time.sleep({delay})
        return AIMessage("", tool_calls=[{{"name": "word_count", "args": {{"text": "one two three"}}, "id": "c1"}}])

    model = ScriptedChatModel(responses=[first, "Answer: 3"])
    created = time.perf_counter()
    agent = ReActAgent(model=model, tools=[word_count], tool_isolation=sys.argv[1], checkpointer=None)
    result = agent.run("How many words are in 'one two three'?")
    ended = time.perf_counter()
    [observation] = result.trace.steps[0].observations
    assert observation.content == "3", observation
    print(json.dumps({{"imports_ms": (imported - start) * 1000, "run_ms": (ended - created) * 1000,
                      "call_ms": observation.duration * 1000}}))
'''
SCENARIOS = {  # name -> the script's top lines, the model's first reply's delay in seconds
    "light": ("", 0),
    "agent at the top": ("from reactgraph import ReActAgent  # noqa\n", 0),
    "agent at the top, model 1.5 s": ("from reactgraph import ReActAgent  # noqa\n", 1.5),
}


def fresh(script: Path, isolation: str) -> dict[str, float]:
    """One run of ``script`` in a fresh Python process."""
    done = subprocess.run([sys.executable, str(script), isolation], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def importtime() -> dict[str, object]:
    """What importing the worker's module costs, and whether LangSmith and LangChain's tracers come with it."""
    code = "import sys, reactgraph.tools.isolation.child; print(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True)
    rows = [re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line) for line in done.stderr.splitlines()]
    rows = [r for r in rows if r]
    total = next(int(r.group(2)) for r in rows if r.group(4) == "reactgraph.tools.isolation.child" and len(r.group(3)) == 1)
    modules = eval(done.stdout)  # noqa: S307  (our own print of a list of names)
    heaviest = sorted(((int(r.group(2)), r.group(4)) for r in rows if len(r.group(3)) <= 3), reverse=True)[:5]
    return {
        "child_import_ms": total / 1000,
        "modules": len(modules),
        "langsmith": any(m.startswith("langsmith") for m in modules),
        "langchain_core_tracers": any(m.startswith("langchain_core.tracers") for m in modules),
        "langchain_core": any(m.startswith("langchain_core") for m in modules),
        "heaviest_top_level_ms": {name: us / 1000 for us, name in heaviest},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per case (default 5)")
    parser.add_argument("--label", default="after", help="the name of this measurement in the JSON (default after)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    cases: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (top, delay) in SCENARIOS.items():
            script = Path(tmp) / f"script_{len(cases)}.py"
            script.write_text(SCRIPT.format(top=top, delay=delay))
            for isolation in ("process", "none"):
                runs = [fresh(script, isolation) for _ in range(args.repeats)]
                cases[f"{name}, {isolation}"] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    imports = importtime()
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; medians of {args.repeats} fresh processes")
    print("| script, isolation | creation to the run's end, ms | the call in act, ms | the script's imports, ms |")
    print("| --- | ---: | ---: | ---: |")
    for name, numbers in cases.items():
        print(f"| {name} | {numbers['run_ms']:.0f} | {numbers['call_ms']:.0f} | {numbers['imports_ms']:.0f} |")
    print(json.dumps(imports, indent=1))
    if not args.no_write:
        recorded = json.loads(RESULT.read_text()) if RESULT.exists() else {}
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE.parent).stdout
        recorded[args.label] = {
            "commit": commit.strip(), "date": time.strftime("%Y-%m-%d"), "repeats": args.repeats,
            "load_average": [load, os.getloadavg()[0]], "cases": cases, "child_imports": imports,
        }
        RESULT.write_text(json.dumps(recorded, indent=1) + "\n")


if __name__ == "__main__":
    main()
