"""A run that waits inside each tool call, for the cancel-from-another-process tests, run as its own process.

    python cancel_worker.py DB THREAD SIDE_DIR

The model never answers: every turn it calls ``wait_for_release(n)`` for the next n, up to
max_iterations=4. Each call records n in SIDE_DIR/started, waits until SIDE_DIR/release exists, and
records n in SIDE_DIR/finished. The result is printed as JSON.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call

WAIT_LIMIT = 60.0  # seconds a call waits for the release before it gives up


def main() -> int:
    db, thread, side = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def wait_for_release(n: int) -> str:
        """Wait until the test lets the call finish."""
        with open(side / "started", "a") as log:
            log.write(f"{n}\n")
        deadline = time.monotonic() + WAIT_LIMIT
        while not (side / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with open(side / "finished", "a") as log:
            log.write(f"{n}\n")
        return f"call {n} done"

    turns = iter(range(1, 100))
    model = ScriptedChatModel(responses=[lambda messages: tool_call("wait_for_release", {"n": next(turns)})], repeat_last=True)
    # the call outlasts the default 30 s tool timeout when the cancel is slow to come (a loaded machine): it waits
    agent = ReActAgent(model=model, tools=[wait_for_release], checkpointer=db, max_iterations=4, early_stopping="force",
                       tool_execution={"timeout_seconds": 2 * WAIT_LIMIT})
    result = agent.run("Wait for releases 1, 2, 3, 4, 5, 6, 7 and 8.", thread_id=thread)
    sys.stdout.write(result.model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
