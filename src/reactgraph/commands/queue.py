"""The commands of queued runs on Postgres: ``submit`` (queue a run) and ``worker`` (run queued runs)."""

from __future__ import annotations

import argparse
import logging
import sys

from reactgraph.commands import EXIT_OK
from reactgraph.queue import lost_database, run_worker, submit


def cmd_submit(args: argparse.Namespace) -> int:
    """reactgraph submit QUESTION --db postgresql://...: queue the run; print its thread id."""
    approve = tuple(filter(None, (n.strip() for n in args.approve_tools.split(",")))) if args.approve_tools else None
    thread = submit(
        args.question, args.db, thread_id=args.thread, model=args.model, tools=args.tools, mcp=args.mcp, documents=args.documents,
        output_schema=args.output_schema, max_iterations=args.max_iterations, timeout_seconds=args.timeout,
        token_budget=args.token_budget, tool_calling=args.tool_calling, approve_tools=approve,
        playbook=args.playbook or None,
    )
    sys.stdout.write(f"{thread}\n")
    return EXIT_OK


def cmd_worker(args: argparse.Namespace) -> int:
    """reactgraph worker --db postgresql://...: run queued runs until SIGINT / SIGTERM, logging each run's end."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("reactgraph.queue").setLevel(logging.INFO)
    for handler in logging.getLogger().handlers:
        handler.addFilter(without_lost_database_tracebacks)
    run_worker(args.db, concurrency=args.concurrency, stalled_after=args.stalled_after, reconnect_within=args.reconnect_within)
    return EXIT_OK


def without_lost_database_tracebacks(record: logging.LogRecord) -> bool:
    """A lost database (a restart) logged in one line, without its traceback: the worker reconnects."""
    if record.exc_info and lost_database(record.exc_info[1]):
        record.exc_info, record.exc_text = None, None
    return True
