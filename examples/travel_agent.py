"""A travel assistant on the demo weather and flight service (``reactgraph.testing.DEMO_TOOLS``: fixed, made-up
data, so what the tools say is the same on every run).

    python examples/travel_agent.py "Is it warmer in Rome than in Paris? Which flights go from Paris to Rome on 2026-05-01?"
    python examples/travel_agent.py --model ollama:qwen2.5-coder:1.5b "What is the weather in Tokyo?"

Without --model the agent uses the default model (see "Which model" in docs/models.md).
"""

from __future__ import annotations

import argparse

from langchain_core.language_models import BaseChatModel

from reactgraph import ReActAgent, ReActResult
from reactgraph.config import Limits
from reactgraph.testing import DEMO_TOOLS


def make_agent(model: str | BaseChatModel | None = None) -> ReActAgent:
    """The assistant: the demo tools, a few iterations, runs kept in memory."""
    return ReActAgent(model=model, tools=DEMO_TOOLS, limits=Limits(max_iterations=6), allow_clarification=False, checkpointer=None)


def show(result: ReActResult) -> str:
    """Each step's first call and what it returned, then the answer."""
    lines = [
        f"{call.tool}({', '.join(f'{k}={v!r}' for k, v in call.args.items())}) -> {step.observations[0].content}"
        for step in result.trace.steps
        if step.actions and (call := step.actions[0])
    ]
    return "\n".join([*lines, f"Answer: {result.final_answer}"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question")
    parser.add_argument("--model", help="'provider:model' (default: the default model)")
    args = parser.parse_args(argv)
    print(show(make_agent(args.model).run(args.question)))


if __name__ == "__main__":
    main()
