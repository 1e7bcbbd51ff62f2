"""A three-turn conversation on a real local model, whose third turn needs both earlier answers.

    ../shared/tools/local-model.sh start && python3 ../shared/tools/ollama-shim.py &
    OLLAMA_HOST=http://127.0.0.1:11434 python benchmarks/local_conversation.py [--model ollama:qwen2.5-coder:1.5b]

Prints each turn (question, tool calls, answer, tokens, seconds) and writes them to
benchmarks/eval/local-conversation.json. The default settings, the built-in calculator and percent_of.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from reactgraph import ReActAgent, ToolRegistry

QUESTIONS = (
    "What is 17% of 2,340?",
    "What is 12.5 times 8?",
    "What is the sum of the two results you gave me?",
)
EXPECTED = (397.8, 100, 497.8)
OUT = Path(__file__).parent / "eval" / "local-conversation.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="ollama:qwen2.5-coder:1.5b")
    args = parser.parse_args()
    tools = ToolRegistry.with_builtins(["calculator", "percent_of"])
    turns = []
    with ReActAgent(model=args.model, tools=tools, checkpointer=None) as agent:
        for question, expected in zip(QUESTIONS, EXPECTED, strict=True):
            start = time.perf_counter()
            result = agent.run(question, thread_id="conversation")
            calls = [(a.tool, a.args) for step in result.trace.steps for a in step.actions]
            turn = {
                "turn": result.turn, "question": question, "answer": result.final_answer, "expected": expected,
                "reason": result.termination_reason.value, "calls": calls, "tokens": result.token_usage.total_tokens,
                "seconds": round(time.perf_counter() - start, 1),
            }
            turns.append(turn)
            print(json.dumps(turn, ensure_ascii=False))
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"model": args.model, "turns": turns}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
