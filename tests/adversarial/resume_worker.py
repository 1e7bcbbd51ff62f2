"""A process that resumes a paused thread with an approval, for the one-run-per-thread tests.

    python -m tests.adversarial.resume_worker DB THREAD SIDE_DIR

Its ``send`` tool records each run in SIDE_DIR/sent, then waits until SIDE_DIR/release exists, so the test
can act while this process holds the thread. Prints the run's termination reason, or the error's class.

``HOLDER_HOST`` in its environment names the host it runs on as its holds say (a pod's name before a restart gave it
another); ``HOLD_LEASE_SECONDS`` shortens the lease of its holds.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from reactgraph import Approve, ReActAgent
from reactgraph.testing import ScriptedChatModel

WAIT_LIMIT = 600.0  # seconds a call waits for the release before it gives up (a bound: each test releases it)


def sender(side: Path):
    def send(to: str) -> str:
        """Send the report to someone."""
        with open(side / "sent", "a") as log:
            log.write(f"{to}\n")
        deadline = time.monotonic() + WAIT_LIMIT
        while not (side / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return f"sent to {to}"

    return send


def agent_on(db: str, side: Path) -> ReActAgent:
    """An agent whose ``send`` waits for the release, however long the test takes to give it: with the default 30 s
    tool timeout, a loaded machine (a CLI taking that long to start) saw the call time out, the run end and its hold
    go before the test looked ("thread mail was not held")."""
    model = ScriptedChatModel(responses=["Sent."], repeat_last=True)
    return ReActAgent(model=model, tools=[sender(side)], checkpointer=db, approve_tools=("send",), summary_every=0,
                      tool_execution={"timeout_seconds": 2 * WAIT_LIMIT})


def main() -> int:
    db, thread, side = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    if host := os.environ.get("HOLDER_HOST"):
        socket.gethostname = lambda: host
    if lease := os.environ.get("HOLD_LEASE_SECONDS"):
        try:
            from reactgraph.persistence import holds
        except ImportError:  # a version before leases (issue 42): its holds never expire
            pass
        else:
            holds.LEASE_SECONDS = float(lease)
    with agent_on(db, side) as agent:
        try:
            result = agent.resume(thread, approval=Approve())
        except Exception as exc:
            print(type(exc).__name__)
            return 0
    print(result.termination_reason.value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
