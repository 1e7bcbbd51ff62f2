"""A real ReAct run for the fault-injection test, run as its own process.

    python crash_worker.py DB THREAD SIDE_DIR [--block-at POINT] [--resume] [--approve] [--isolated]

Tools record every execution in SIDE_DIR/executions.log before they return. With
``--block-at`` the process stops at that point (writing SIDE_DIR/blocked first) and waits
there until the test kills it; ``--resume`` continues THREAD from its checkpoint; with ``--approve``
every fetch waits for approval, which the worker gives, recording each call id it was asked about
in SIDE_DIR/approvals.log; with ``--isolated`` fetch (crash_tools.py) runs in worker processes,
each recording its process id in SIDE_DIR/pids. The model is
a ScriptedChatModel whose replies depend only on the prompt, so a new process continues the
script where the killed one stopped. The result is printed as JSON.

Plan: iteration 1 calls fetch(a) and fetch(b) in parallel, iteration 2 fetch(c), then a
summary, iteration 3 fetch(d), iteration 4 answers.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from crash_tools import block, fetch

from reactgraph import AgentConfig, Approve, PendingApproval, ReActAgent
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistry

BLOCK_POINTS = ("mid_parallel_act", "before_act", "after_observe", "during_summarize")
ANSWER = "The values are A-VALUE, B-VALUE, C-VALUE and D-VALUE."
SUMMARY_MARK = "You keep the running notes"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("thread")
    parser.add_argument("side", type=Path)
    parser.add_argument("--block-at", choices=BLOCK_POINTS)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--approve", action="store_true")
    parser.add_argument("--isolated", action="store_true")
    args = parser.parse_args()
    os.environ["CRASH_SIDE"] = str(args.side)
    os.environ["CRASH_BLOCK_AT"] = args.block_at or ""

    def summarizer(messages):
        block("during_summarize")
        return "Notes: fetched the first three keys."

    def answer(messages):
        block("after_observe")  # observe of iteration 3 is checkpointed; think has not replied
        return ANSWER

    model = ScriptedChatModel(
        responses=[
            by_prompt(
                (SUMMARY_MARK, summarizer),
                ("D-VALUE", answer),
                ("C-VALUE", tool_call("fetch", {"key": "d"}, thought="Last key.", id="call_d")),
                ("B-VALUE", tool_call("fetch", {"key": "c"}, thought="Now the third key.", id="call_c")),
                default=tool_calls([("fetch", {"key": "a"}), ("fetch", {"key": "b"})], thought="Fetch two keys.", ids=["call_a", "call_b"]),
            )
        ],
        repeat_last=True,
    )
    def approve(call: PendingApproval) -> Approve:
        with open(args.side / "approvals.log", "a") as log:
            log.write(f"{call.call_id}\n")
        return Approve()

    approval = {"approve_tools": ("fetch",), "on_approval": approve} if args.approve else {}
    tools = ToolRegistry()
    tools.register(fetch, policy=ToolPolicy(isolation="process" if args.isolated else "none"))
    # the tool's settings reach a worker process only through the environment variables isolated_env allows
    allowed = (*AgentConfig().isolated_env, "CRASH_SIDE", "CRASH_BLOCK_AT")
    agent = ReActAgent(model=model, tools=tools, checkpointer=args.db, summary_every=2, keep_recent_steps=5, isolated_env=allowed)
    if args.resume:
        result = agent.resume(args.thread, on_approval=approval.get("on_approval"))
    else:
        result = agent.run("Fetch the four keys a, b, c and d and report their values.", thread_id=args.thread, **approval)
    sys.stdout.write(result.model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
