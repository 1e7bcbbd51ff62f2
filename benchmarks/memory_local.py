"""The docs' long-term memory example (docs/tools.md, "Bringing your create_agent tools"), as written there, on the
local model (issue 44): a fact told on one thread, recalled on another. Each repeat runs the block afresh (a new agent,
a new store) and records the calls each thread made and the answer.

    ../shared/tools/local-model.sh start && python3 ../shared/tools/ollama-shim.py &
    OLLAMA_HOST=http://127.0.0.1:11434 flock /tmp/reactgraph-model.lock nice python benchmarks/memory_local.py [--repeats 3]

Each repeat's runs are checkpointed to a file of their own (``REACTGRAPH_DB``), so no repeat sees another's threads.
Writes benchmarks/eval/memory-local.json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from reactgraph import ReActAgent

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "eval" / "memory-local.json"
PAGE = "docs/tools.md"


def page_block() -> str:
    """The python block of docs/tools.md that defines ``save_fact``."""
    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / PAGE).read_text(), flags=re.DOTALL | re.MULTILINE)
    return next(block for block in blocks if "def save_fact" in block)


def calls(result) -> list[list]:
    return [[a.tool, a.args, o.content] for step in result.trace.steps for a, o in zip(step.actions, step.observations, strict=False)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    code = compile(page_block(), PAGE, "exec", dont_inherit=True)
    runs = []
    for repeat in range(args.repeats):
        os.environ["REACTGRAPH_DB"] = str(Path(tempfile.mkdtemp(prefix="memory-local-")) / "checkpoints.sqlite")
        namespace = {"ReActAgent": ReActAgent, "__name__": "readme"}
        started = time.time()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)  # noqa: S102 - the docs' own block
        agent = namespace["agent"]
        told, asked = agent.get_result("monday"), namespace["result"]
        run = {
            "repeat": repeat + 1,
            "model": agent.config.model if agent._picked_model is None else agent._picked_model,
            "told": {"calls": calls(told), "answer": told.final_answer, "reason": told.termination_reason.value},
            "asked": {"calls": calls(asked), "answer": asked.final_answer, "reason": asked.termination_reason.value},
            "recalled": "green" in (asked.final_answer or "").lower(),
            "seconds": round(time.time() - started, 1),
        }
        runs.append(run)
        print(json.dumps(run, ensure_ascii=False))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    summary = {"commit": commit, "recalled": sum(r["recalled"] for r in runs), "of": len(runs), "runs": runs}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    print(f"recalled on the other thread: {summary['recalled']} of {summary['of']}")


if __name__ == "__main__":
    main()
