"""The commands that run the agent or read its checkpoints: ``run``, ``resume``, ``runs``, ``trace``."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt
from rich.table import Table

from reactgraph.agent import ReActAgent
from reactgraph.checkpoints import DEFAULT_CHECKPOINTER, CheckpointStoreError, default_db_path, format_trace
from reactgraph.cli import EXIT_OK, UsageError
from reactgraph.commands import output_console
from reactgraph.commands.live import LiveView, last_result, report
from reactgraph.commands.loading import load_object, load_tools
from reactgraph.result import TerminationReason

PROVIDERS = frozenset(
    {"ollama", "openai", "anthropic", "azure_openai", "google_genai", "google_vertexai", "bedrock", "bedrock_converse",
     "mistralai", "groq", "cohere", "fireworks", "together", "huggingface", "deepseek", "xai", "perplexity", "nvidia",
     "ibm", "openrouter", "litellm", "upstage"}
)  # prefixes that name a chat model provider; any other 'module:name' is a factory to import
QUESTION_WIDTH = 12  # the least width of the runs table's question column


# -- building the agent --------------------------------------------------------------------


def load_model(spec: str | None) -> str | BaseChatModel | None:
    """--model: 'provider:model' (e.g. 'ollama:qwen2.5:7b'), or 'module:factory' naming a function
    that returns a chat model instance."""
    if spec is None or spec.partition(":")[0] in PROVIDERS or ":" not in spec:
        return spec
    model = load_object(spec)()
    if not isinstance(model, BaseChatModel):
        raise UsageError(f"--model {spec!r}: the factory returned {type(model).__name__}, not a chat model")
    return model


def make_agent(args: argparse.Namespace, *, with_model: bool = True) -> tuple[ReActAgent, dict[str, Any]]:
    """The agent the options describe, and the run's config overrides."""
    checkpointer = args.db or DEFAULT_CHECKPOINTER
    if not with_model:  # the reading commands: they never create a database
        path = Path(args.db) if args.db else default_db_path()
        if not path.exists():
            raise CheckpointStoreError(f"checkpoint database {path.absolute()}: no such file (nothing was created)")
        return ReActAgent(checkpointer=checkpointer), {}
    registry, selection = load_tools(args.tools)
    overrides = {
        "max_iterations": args.max_iterations,
        "timeout_seconds": args.timeout,
        "token_budget": args.token_budget,
        "tool_calling": args.tool_calling,
        "tools": selection,
    }
    return ReActAgent(model=load_model(args.model), tools=registry, checkpointer=checkpointer), {
        k: v for k, v in overrides.items() if v is not None
    }


# -- commands ------------------------------------------------------------------------------


def drive(agent: ReActAgent, args: argparse.Namespace, overrides: dict[str, Any], console: Console, query: str | None, thread: str | None, answer: str | None) -> int:
    """Run (or continue) until the run ends; when the model asks a question and there is a
    terminal, ask the user and continue with the answer."""
    view = LiveView(console)
    labels = {key: value for key, value in (("reactgraph_model", args.model), ("reactgraph_tools", args.tools)) if value}
    while True:
        updates = agent.stream_updates(query, thread_id=thread, answer=answer, metadata=labels, **overrides)
        result = last_result(updates) if args.json else view.follow(updates)
        if result.termination_reason is TerminationReason.CLARIFICATION and sys.stdin.isatty():
            question = escape(result.termination_detail)
            asker = Console(stderr=True) if args.json else console  # keep --json output clean
            answer = Prompt.ask(f"[bold]The agent asks:[/] {question}\n[bold]Your answer[/]", console=asker)
            query, thread = None, result.thread_id
            continue
        return report(result, args, console)


def cmd_run(args: argparse.Namespace) -> int:
    """reactgraph run QUESTION: a new run, shown live; its thread id first, to resume it by."""
    console = output_console()
    agent, overrides = make_agent(args)
    args.thread = args.thread or uuid.uuid4().hex  # named now: Ctrl-C says how to continue it
    (Console(stderr=True) if args.json else console).print(f"[dim]thread {args.thread}[/]")
    with agent:
        return drive(agent, args, overrides, console, args.question, args.thread, None)


def cmd_resume(args: argparse.Namespace) -> int:
    """reactgraph resume THREAD: continue a crashed or paused run, shown live."""
    with ReActAgent(checkpointer=args.db or DEFAULT_CHECKPOINTER) as reader:
        remembered = reader.run_info(args.thread).metadata  # the --model and --tools the run was started with
    args.model = args.model or remembered.get("reactgraph_model")
    args.tools = args.tools or remembered.get("reactgraph_tools")
    agent, overrides = make_agent(args)
    with agent:
        return drive(agent, args, overrides, output_console(), None, args.thread, args.answer)


def cmd_runs(args: argparse.Namespace) -> int:
    """reactgraph runs: a table (or JSON) of the runs in the checkpoint file."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        runs = agent.list_runs(limit=args.limit)
    if args.json:
        sys.stdout.write(json.dumps([r.model_dump(mode="json") for r in runs], indent=2) + "\n")
        return EXIT_OK
    table = Table(title=f"{len(runs)} run(s) in {agent.db_path or 'the checkpointer'}")
    rows = [
        (r.thread_id, r.question, r.status, r.reason or "", str(r.iterations), str(r.tokens), _when(r.started), _when(r.updated))
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
    """reactgraph trace THREAD: the run's trace as text, JSON or Markdown."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        result = agent.get_result(args.thread)
    sys.stdout.write(format_trace(result, args.format).rstrip("\n") + "\n")
    return EXIT_OK


def _when(value: Any) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S") if value else ""

