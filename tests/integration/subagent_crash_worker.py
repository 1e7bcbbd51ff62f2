"""A parent run that delegates to a sub-agent, run as its own process (test_subagent_crash.py).

    python subagent_crash_worker.py DB THREAD SIDE_DIR [--block] [--resume]

The child calls fetch(a), then fetch(b), then answers; the parent answers with the child's answer.
fetch records each execution in SIDE_DIR/executions.log; with ``--block`` fetch(b) writes
SIDE_DIR/blocked and waits there until the test kills the process; ``--resume`` continues THREAD.
Both models are ScriptedChatModels whose replies depend only on the prompt, so a new process
continues where the killed one stopped. The result is printed as JSON.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from reactgraph import ReActAgent, ToolRegistry
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call

CHILD_ANSWER = "Child: A-VALUE, B-VALUE"
ANSWER = "The values are A-VALUE and B-VALUE."


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("thread")
    parser.add_argument("side", type=Path)
    parser.add_argument("--block", action="store_true")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    def fetch(key: str) -> str:
        """Fetch the value stored under a key."""
        if key == "b" and args.block:
            (args.side / "blocked").write_text("b")
            while True:  # the test kills the process here
                time.sleep(0.05)
        with open(args.side / "executions.log", "a") as log:
            log.write(f"{key}\n")
            log.flush()
            os.fsync(log.fileno())
        return f"{key.upper()}-VALUE"

    child_model = ScriptedChatModel(
        responses=[by_prompt(
            ("B-VALUE", CHILD_ANSWER),
            ("A-VALUE", tool_call("fetch", {"key": "b"}, thought="Now b.", id="call_b")),
            default=tool_call("fetch", {"key": "a"}, thought="First a.", id="call_a"),
        )],
        repeat_last=True,
    )
    parent_model = ScriptedChatModel(
        responses=[by_prompt(
            (CHILD_ANSWER, ANSWER),
            default=tool_call("fetcher", {"task": "Fetch keys a and b."}, thought="The fetcher does it.", id="call_child"),
        )],
        repeat_last=True,
    )
    child = ReActAgent(model=child_model, tools=[fetch], checkpointer=None)
    registry = ToolRegistry()
    registry.register_agent(child, "fetcher", "Fetches the values of keys.")
    agent = ReActAgent(model=parent_model, tools=registry, checkpointer=args.db)
    result = agent.resume(args.thread) if args.resume else agent.run("What are the values of a and b?", thread_id=args.thread)
    sys.stdout.write(result.model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
