"""The commands that run the agent or read its checkpoints: ``run``, ``resume``, ``runs``, ``trace``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt
from rich.table import Table

from reactgraph.agent import ReActAgent
from reactgraph.answers.result import ReActResult, TerminationReason
from reactgraph.answers.typed import SignatureError, parse_signature
from reactgraph.commands import EXIT_OK, UsageError
from reactgraph.commands.console import output_console
from reactgraph.commands.live import WAITING, LiveView, last_result, report
from reactgraph.loading import load_model, load_tools
from reactgraph.models.calls import interrupt_calls
from reactgraph.persistence import format_trace
from reactgraph.persistence.base import (
    DEFAULT_CHECKPOINTER,
    CheckpointStoreError,
    RunNotFoundError,
    default_db,
    is_postgres_url,
)
from reactgraph.state import checked_thread_id

QUESTION_WIDTH = 12  # the least width of the runs table's question column


# -- building the agent --------------------------------------------------------------------


def make_agent(args: argparse.Namespace, *, with_model: bool = True) -> tuple[ReActAgent, dict[str, Any]]:
    """The agent the options describe, and the run's config overrides."""
    checkpointer = args.db or DEFAULT_CHECKPOINTER
    if not with_model:  # the reading commands: they never create a SQLite file
        db = args.db or default_db()
        if not is_postgres_url(db) and not Path(db).exists():
            raise CheckpointStoreError(f"checkpoint database {Path(db).absolute()}: no such file (nothing was created)")
        return ReActAgent(checkpointer=checkpointer), {}
    registry, selection = load_tools(args.tools, args.mcp, args.documents, args.db)
    overrides = {
        "max_iterations": args.max_iterations,
        "timeout_seconds": args.timeout,
        "token_budget": args.token_budget,
        "tool_calling": args.tool_calling,
        "tools": selection,
        "approve_tools": tuple(filter(None, (n.strip() for n in args.approve_tools.split(",")))) if args.approve_tools else None,
    }
    try:
        output_schema = parse_signature(args.output_schema) if args.output_schema else None
    except SignatureError as exc:
        raise UsageError(f"--output-schema: {exc}") from None
    agent = ReActAgent(
        model=load_model(args.model), tools=registry, checkpointer=checkpointer, output_schema=output_schema,
        playbook=bool(args.playbook),
    )
    return agent, {k: v for k, v in overrides.items() if v is not None}


# -- commands ------------------------------------------------------------------------------


def drive(
    agent: ReActAgent,
    args: argparse.Namespace,
    overrides: dict[str, Any],
    console: Console,
    query: str | None,
    thread: str | None,
    answer: str | None,
    approvals: dict[str, Any] | None = None,
    interrupting: Callable[[], AbstractContextManager[None]] | None = None,
    fork: dict[str, Any] | None = None,
) -> int:
    """Run (or continue, or ``fork``) until the run ends; when it waits (the model's question, tool calls to
    approve) and there is a terminal, ask the user and continue with what they say. ``interrupting`` is
    what Ctrl-C does while the run is shown (default ``interrupts_calls``: it ends the command)."""
    view = LiveView(console)
    given = (
        ("reactgraph_model", args.model), ("reactgraph_tools", args.tools), ("reactgraph_mcp", args.mcp),
        ("reactgraph_documents", args.documents),
        ("reactgraph_output_schema", args.output_schema), ("reactgraph_playbook", args.playbook),
    )
    labels = {key: value for key, value in given if value}
    while True:
        updates = agent.stream_updates(
            query, thread_id=thread, answer=answer, approvals=approvals, metadata=labels, tokens=not args.json, fork=fork,
            **overrides,
        )
        fork = None  # what follows a pause continues the forked branch
        with (interrupting or interrupts_calls)():
            result = last_result(updates) if args.json else view.follow(updates)
        if result.termination_reason in WAITING and sys.stdin.isatty():
            asker = Console(stderr=True) if args.json else console  # keep --json output clean
            answer, approvals = ask_in_terminal(result, asker)
            query, thread = None, result.thread_id
            continue
        return report(result, args, console)


@contextmanager
def interrupts_calls() -> Iterator[None]:
    """While a run is shown, Ctrl-C also stops the model call in flight (``interrupt_calls``)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def on_interrupt(signum: int, frame: Any) -> None:
        interrupt_calls()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def ask_in_terminal(result: ReActResult, console: Console) -> tuple[str | None, dict[str, Any]]:
    """The user's answer to the model's question (if it asked one) and their decision on each call
    waiting for approval: approve, edit (new arguments as a JSON object) or reject (with a reason)."""
    from reactgraph.tools.approval import Approve, Edit, Reject

    answer = None
    if result.termination_reason is TerminationReason.CLARIFICATION:
        answer = Prompt.ask(f"[bold]The agent asks:[/] {escape(result.termination_detail)}\n[bold]Your answer[/]", console=console)
    decisions: dict[str, Any] = {}
    for call in result.pending_approvals:
        shown = escape(f"{call.tool} {json.dumps(call.args, ensure_ascii=False)}")
        choice = Prompt.ask(f"[bold]The agent wants to run[/] {shown}\n[bold]Approve, edit or reject?[/]", choices=["a", "e", "r"], console=console)
        if choice == "a":
            decisions[call.call_id] = Approve()
        elif choice == "r":
            decisions[call.call_id] = Reject(Prompt.ask("[bold]Why not?[/] (the agent is told)", default="", console=console))
        else:
            while True:
                try:
                    decisions[call.call_id] = Edit(edited_args(Prompt.ask("[bold]New arguments[/] (a JSON object)", console=console)))
                    break
                except UsageError as exc:
                    console.print(f"[red]{escape(str(exc))}[/]")
    return answer, decisions


def edited_args(text: str) -> dict[str, Any]:
    """--edit's JSON object of arguments; UsageError when it is not one."""
    try:
        args = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--edit: not JSON ({exc}): {text!r}") from None
    if not isinstance(args, dict):
        raise UsageError(f"--edit: the arguments must be a JSON object of named values, got {text!r}")
    return args


def cmd_run(args: argparse.Namespace) -> int:
    """reactgraph run QUESTION: a new run, shown live; its thread id first, to resume it by."""
    console = output_console()
    agent, overrides = make_agent(args)
    args.thread = args.thread or uuid.uuid4().hex  # named now: Ctrl-C says how to continue it
    (Console(stderr=True) if args.json else console).print(f"[dim]thread {args.thread}[/]")
    with agent:
        return drive(agent, args, overrides, console, args.question, args.thread, None)


def cmd_resume(args: argparse.Namespace) -> int:
    """reactgraph resume THREAD: continue a crashed or paused run, shown live; --answer answers its
    question, --approve / --reject / --edit decide a call waiting for approval (--call names it); --force frees the
    thread first (``unlocked``)."""
    from reactgraph.answers.waiting import AnswerError

    with ReActAgent(checkpointer=args.db or DEFAULT_CHECKPOINTER) as reader:
        remember(args, reader)
        approvals = decided(args, reader.get_result(args.thread))
        if args.force:
            unlocked(reader, args.thread, force=True)
    agent, overrides = make_agent(args)
    with agent:
        try:
            return drive(agent, args, overrides, output_console(), None, args.thread, args.answer, approvals)
        except AnswerError as exc:
            raise UsageError(str(exc)) from None


def unlocked(agent: ReActAgent, thread_id: str, *, force: bool) -> str | None:
    """Free ``thread_id`` in the agent's database, warning on stderr when it was held: who held it (None: nobody);
    ThreadBusyError when its holder is seen running here, unless ``force``."""
    freed = agent.store.unlock(checked_thread_id(thread_id), force=force)
    if freed is not None:
        print(
            f"reactgraph: warning: freed thread {thread_id!r}, held by {freed}. If that holder still runs, its run "
            "and the next one of the thread may overlap: make sure it is gone",
            file=sys.stderr,
        )
    return freed


def remember(args: argparse.Namespace, reader: ReActAgent) -> None:
    """The --model, --tools, --mcp, --documents, --output-schema and --playbook the run on ``args.thread`` started
    with, where ``args`` gives none."""
    remembered = reader.run_info(args.thread).metadata
    args.model = args.model or remembered.get("reactgraph_model")
    args.tools = args.tools or remembered.get("reactgraph_tools")
    args.mcp = args.mcp or remembered.get("reactgraph_mcp")
    args.documents = args.documents or remembered.get("reactgraph_documents")
    args.output_schema = args.output_schema or remembered.get("reactgraph_output_schema")
    args.playbook = args.playbook or bool(remembered.get("reactgraph_playbook"))


def cmd_fork(args: argparse.Namespace) -> int:
    """reactgraph fork THREAD (--iteration K | --query TEXT | --checkpoint ID) [--turn N]: the thread run again
    from that point with the options given (the others as it started), shown live; the new branch becomes the
    thread's current one."""
    with ReActAgent(checkpointer=args.db or DEFAULT_CHECKPOINTER) as reader:
        remember(args, reader)
    point = {"turn": args.turn, "iteration": args.iteration, "query": args.query, "checkpoint_id": args.checkpoint}
    agent, overrides = make_agent(args)
    console = output_console()
    with agent:
        return drive(agent, args, overrides, console, None, args.thread, None, fork={k: v for k, v in point.items() if v is not None})


def decided(args: argparse.Namespace, result: ReActResult) -> dict[str, Any]:
    """The decision of --approve / --reject / --edit for the call --call names (or the one waiting)."""
    from reactgraph.tools.approval import Approve, Edit, Reject

    if args.approve:
        decision: Any = Approve()
    elif args.reject is not None:
        decision = Reject(args.reject)
    elif args.edit is not None:
        decision = Edit(edited_args(args.edit))
    elif args.call:
        raise UsageError("--call names the call to decide: add --approve, --reject REASON or --edit JSON")
    else:
        return {}
    waiting = [call.call_id for call in result.pending_approvals]
    if args.call is None and len(waiting) != 1:
        raise UsageError(
            f"{len(waiting)} calls wait for approval ({', '.join(waiting)}): name one with --call" if waiting
            else f"run {args.thread} is not waiting for an approval"
        )
    return {args.call or waiting[0]: decision}


def cmd_runs(args: argparse.Namespace) -> int:
    """reactgraph runs: a table (or JSON) of the runs in the checkpoint file; one whose state cannot be read is
    listed ``unreadable`` (and named on stderr), the others as they are."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        runs = agent.list_runs(limit=args.limit)
    if queued := queued_runs(args.db):
        listed = {r.thread_id for r in runs}
        runs = [q for q in queued if q.thread_id not in listed] + runs
        runs = runs[: args.limit] if args.limit else runs
    if unreadable := [r.thread_id for r in runs if r.status == "unreadable"]:
        print(f"reactgraph: warning: the stored state of {len(unreadable)} run(s) cannot be read, left untouched: "
              f"{', '.join(unreadable)} (`reactgraph trace THREAD` says why)", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps([r.model_dump(mode="json") for r in runs], indent=2) + "\n")
        return EXIT_OK
    table = Table(title=f"{len(runs)} run(s) in {agent.store.name or 'the checkpointer'}")
    rows = [
        (r.thread_id, r.question, r.status, r.reason or shortened(r.error or ""), str(r.iterations), str(r.tokens),
         _when(r.started), _when(r.updated))
        for r in runs
    ]
    names = ("thread", "question", "status", "reason", "iterations", "tokens", "started", "updated")
    needed = 1 + 3 * len(names) + QUESTION_WIDTH  # borders and padding, and the question's least width
    for i, name in enumerate(names):
        if name == "question":  # the one column that folds when the terminal is narrow
            table.add_column(name, overflow="fold", min_width=QUESTION_WIDTH)
        else:  # never cut: the thread id is what users copy into trace and resume
            table.add_column(name, no_wrap=True)
            needed += max([len(name), *(len(row[i]) for row in rows)])
    for row in rows:
        table.add_row(*row)
    console = output_console()
    if console.width < needed:  # wider than the terminal rather than cut (rich only narrows a print)
        console = Console(file=console.file, width=needed, highlight=False, soft_wrap=True)
    console.print(table)
    return EXIT_OK


def cmd_trace(args: argparse.Namespace) -> int:
    """reactgraph trace THREAD: the trace of every turn of the thread's conversation as text, JSON or Markdown;
    a run still going says so (running, waiting, interrupted), a failed one gives its error, a queued one says it
    waits for a worker."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        try:
            info = agent.run_info(args.thread)
        except RunNotFoundError:
            queued = next((q for q in queued_runs(args.db) if q.thread_id == args.thread), None)
            if queued is None:
                raise
            info = queued
        try:
            result = agent.get_result(args.thread)
            earlier = [turn for turn in agent.conversation(args.thread) if turn.turn != result.turn]
        except RunNotFoundError:  # queued, or failed before its first checkpoint
            result, earlier = None, []
    sys.stdout.write(format_trace(result, args.format, earlier, info).rstrip("\n") + "\n")
    return EXIT_OK


def queued_runs(db: str | None) -> list[Any]:
    """The runs waiting in the Postgres queue of ``db`` (none for a SQLite file)."""
    url = str(db or default_db())
    if not is_postgres_url(url):
        return []
    from reactgraph.queue import queued_runs as waiting  # procrastinate's tables, read only for a Postgres database

    return waiting(url)


def shortened(text: str, width: int = 60) -> str:
    """``text`` on one line, cut to ``width`` characters (the whole of it is in ``trace``)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _when(value: Any) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S") if value else ""



def cmd_cancel(args: argparse.Namespace) -> int:
    """reactgraph cancel THREAD: ask the run on THREAD, wherever it runs on this database, to stop after its
    current step; a queued run (Postgres) does not start."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        try:
            info = agent.run_info(args.thread)
        except RunNotFoundError:
            db = str(args.db or default_db())
            if not is_postgres_url(db):
                raise
            from reactgraph.queue import is_queued  # procrastinate is loaded only for queued runs

            if not is_queued(db, args.thread):
                raise
            agent.cancel(args.thread)
            print(f"cancel requested for run {args.thread} in {agent.store.name}: it is queued, and will not start")
            return EXIT_OK
        agent.cancel(args.thread)
    state = {
        "running": "it stops after its current step",
        "finished": f"it already finished ({info.reason})",
        "waiting": "it stops after its next step once continued",
        "failed": "it failed; it stops after its next step once resumed",
        "interrupted": "it stops after its next step once resumed",
    }[info.status]
    print(f"cancel requested for run {args.thread} in {agent.store.name}: {state}")
    return EXIT_OK
