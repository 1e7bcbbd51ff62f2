"""``reactgraph unlock THREAD``: free a thread whose holder is gone but whose hold has not expired yet (a process
killed on another host, or before its container restarted with another host name); ``resume --force`` does the same
before it resumes. A thread's hold is what keeps two runs of it from overlapping, so freeing it says so, loudly."""

from __future__ import annotations

import argparse

from reactgraph.commands import EXIT_OK
from reactgraph.commands.runs import make_agent, unlocked


def cmd_unlock(args: argparse.Namespace) -> int:
    """reactgraph unlock THREAD [--force]: the thread's hold removed, whoever holds it (with --force also one whose
    process this host sees running)."""
    agent, _ = make_agent(args, with_model=False)  # a file that is not there is not made
    with agent:
        freed = unlocked(agent, args.thread, force=args.force)
        print(f"thread {args.thread} {'is free now' if freed else 'was not held'} in {agent.store.name or 'the checkpointer'}")
    return EXIT_OK
