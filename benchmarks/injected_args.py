"""What LangChain's injected arguments cost a tool call (issue 44): a run of tool turns whose tool takes
``runtime: ToolRuntime`` (the act task reads the run's state, ToolNode's code fills the argument) beside the same
run whose tool takes only the model's argument, and one whose tool takes ``InjectedToolCallId`` (invoked with its
whole tool call). A scripted model calls the tool once per turn; the three kinds alternate run after run, so a
noisy moment of the shared machine hurts them alike. The cost grows with the state the task reads: runs of 10 and 30
turns.

    python benchmarks/injected_args.py            # print the table and write benchmarks/injected_args.json
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Annotated

from langchain.tools import InjectedToolCallId, ToolRuntime, tool

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call

OUT = Path(__file__).with_suffix(".json")
REPEATS = 5


@tool
def plain(text: str) -> str:
    """Echo the text."""
    return text


@tool
def with_runtime(text: str, runtime: ToolRuntime) -> str:
    """Echo the text and the size of the chat."""
    return f"{text} {len(runtime.state['messages'])}"


@tool
def with_call_id(text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Echo the text and the call's id."""
    return f"{text} {call_id}"


def run_seconds(tool_obj, turns: int) -> float:
    """Seconds of one run of ``turns`` tool turns (each a call with another argument), then an answer."""
    replies = [tool_call(tool_obj.name, {"text": f"t{i}"}) for i in range(turns)] + ["Final Answer: done"]
    agent = ReActAgent(ScriptedChatModel(responses=replies), [tool_obj], checkpointer=None, max_iterations=turns + 1,
                       summary_every=0, stall_threshold=turns + 2)
    start = time.perf_counter()
    result = agent.run("echo")
    elapsed = time.perf_counter() - start
    assert result.final_answer == "done", result.termination_detail
    return elapsed


def main() -> None:
    kinds = {"plain": plain, "ToolRuntime": with_runtime, "InjectedToolCallId": with_call_id}
    rows = []
    for turns in (10, 30):
        seconds: dict[str, list[float]] = {name: [] for name in kinds}
        for name, tool_obj in kinds.items():  # warm-up
            run_seconds(tool_obj, 2)
        for _ in range(REPEATS):
            for name, tool_obj in kinds.items():
                seconds[name].append(run_seconds(tool_obj, turns))
        base = statistics.median(seconds["plain"]) / turns
        for name in kinds:
            per_turn = statistics.median(seconds[name]) / turns
            rows.append({"turns": turns, "tool": name, "ms_per_turn": round(per_turn * 1000, 2),
                         "extra_ms_per_turn": round((per_turn - base) * 1000, 2)})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    OUT.write_text(json.dumps({"commit": commit, "repeats": REPEATS, "rows": rows}, indent=2) + "\n")
    print(f"{'turns':>5} {'tool':<20} {'ms/turn':>8} {'extra':>8}")
    for row in rows:
        print(f"{row['turns']:>5} {row['tool']:<20} {row['ms_per_turn']:>8} {row['extra_ms_per_turn']:>8}")


if __name__ == "__main__":
    main()
