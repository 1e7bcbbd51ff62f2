"""The ``reactgraph`` command: run a question and watch the agent think, resume runs, inspect traces.

    reactgraph run "QUESTION" [--model M] [--thread T] [--max-iterations N] [--timeout S]
                              [--token-budget N] [--db PATH] [--tools a,b] [--mcp FILE] [--approve-tools a,b] [--json]
    reactgraph resume THREAD [--answer TEXT] [--approve | --reject REASON | --edit JSON] [--call ID]
                             [...the run options]
    reactgraph runs [--limit N] [--json]
    reactgraph trace THREAD [--format text|json|markdown]
    reactgraph tools [--tools a,b] [--mcp FILE] [--json]

Exit codes: 0 success, 1 error (or the model gave up / the run was cancelled), 2 usage,
3 waiting for an answer or an approval (without a terminal; the command to continue is printed),
4 stopped by a limit (the partial answer is printed).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt
from rich.table import Table

from reactgraph.agent import ReActAgent
from reactgraph.checkpoints import (
    DEFAULT_CHECKPOINTER,
    CheckpointStoreError,
    RunNotFoundError,
    default_db_path,
    format_trace,
)
from reactgraph.config import ConfigError
from reactgraph.evaluation.suite import SuiteError
from reactgraph.model_calls import interrupt_calls
from reactgraph.models import ModelUnavailableError
from reactgraph.result import LIMIT_REASONS, ReActResult, TerminationReason, Token
from reactgraph.tools.mcp import MCPConfigError, MCPServerError, MCPUnavailableError, load_mcp_tools
from reactgraph.tools.registry import (
    RegisteredTool,
    ToolRegistrationError,
    ToolRegistry,
    UnknownToolError,
)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_WAITING, EXIT_LIMIT = 0, 1, 2, 3, 4
PROVIDERS = frozenset(
    {"ollama", "openai", "anthropic", "azure_openai", "google_genai", "google_vertexai", "bedrock", "bedrock_converse",
     "mistralai", "groq", "cohere", "fireworks", "together", "huggingface", "deepseek", "xai", "perplexity", "nvidia",
     "ibm", "openrouter", "litellm", "upstage"}
)  # prefixes that name a chat model provider; any other 'module:name' is a factory to import
WAITING = (TerminationReason.CLARIFICATION, TerminationReason.APPROVAL)
PIPE_WIDTH = 200
QUESTION_WIDTH = 12  # the least width of the runs table's question column
SHOWN_CHARS = 400  # observation text shown live per tool call (the trace keeps it all)


class UsageError(Exception):
    """A bad command-line value (exit code 2)."""


# -- building the agent --------------------------------------------------------------------


def load_object(spec: str) -> Any:
    """The object named by 'package.module:attribute', found on the path or in the current directory
    (as ``python -m`` would)."""
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"cannot import {spec!r}: {exc}") from None


def load_model(spec: str | None) -> str | BaseChatModel | None:
    """--model: 'provider:model' (e.g. 'ollama:qwen2.5:7b'), or 'module:factory' naming a function
    that returns a chat model instance."""
    if spec is None or spec.partition(":")[0] in PROVIDERS or ":" not in spec:
        return spec
    model = load_object(spec)()
    if not isinstance(model, BaseChatModel):
        raise UsageError(f"--model {spec!r}: the factory returned {type(model).__name__}, not a chat model")
    return model


def builtin_tools() -> ToolRegistry:
    """The built-in tools; the file tools may read only the current directory."""
    return ToolRegistry.with_builtins(root=Path.cwd())


def load_tools(spec: str | None, mcp: str | None = None) -> tuple[ToolRegistry, tuple[str, ...] | None]:
    """--tools a,b: built-in tool names, or 'module:attribute' naming a tool, a list of tools or a
    ToolRegistry; --mcp FILE: the tools of the file's MCP servers, added to the selection. Returns the
    registry and the selection (None = every registered tool)."""
    registry = builtin_tools()
    mcp_names = add_mcp_tools(registry, mcp) if mcp else []
    if spec is None:
        return registry, None
    names: list[str] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        if ":" not in item:
            try:
                names += registry.select([item])
            except UnknownToolError as exc:
                raise UsageError(f"--tools: {exc}") from None
            continue
        found = load_object(item)
        tools = found.list() if isinstance(found, ToolRegistry) else found if isinstance(found, list | tuple) else [found]
        for tool in tools:
            if isinstance(tool, RegisteredTool):
                entry = registry.register(tool.name, tool.tool, tool.metadata, policy=tool.policy, replace=True)
            else:
                entry = registry.register(tool, replace=True)
            names.append(entry.name)
    return registry, tuple(names + mcp_names)


def add_mcp_tools(registry: ToolRegistry, path: str) -> list[str]:
    """Register the tools of the MCP servers in the file at ``path`` (category ``mcp:<server>``; a
    built-in of the same name is replaced) and return their names."""
    tools = load_mcp_tools(path)
    return [registry.register(t, {"category": f"mcp:{t.metadata['mcp_server']}"}, replace=True).name for t in tools]


def make_agent(args: argparse.Namespace, *, with_model: bool = True) -> tuple[ReActAgent, dict[str, Any]]:
    """The agent the options describe, and the run's config overrides."""
    checkpointer = args.db or DEFAULT_CHECKPOINTER
    if not with_model:  # the reading commands: they never create a database
        path = Path(args.db) if args.db else default_db_path()
        if not path.exists():
            raise CheckpointStoreError(f"checkpoint database {path.absolute()}: no such file (nothing was created)")
        return ReActAgent(checkpointer=checkpointer), {}
    registry, selection = load_tools(args.tools, args.mcp)
    overrides = {
        "max_iterations": args.max_iterations,
        "timeout_seconds": args.timeout,
        "token_budget": args.token_budget,
        "tool_calling": args.tool_calling,
        "tools": selection,
        "approve_tools": tuple(filter(None, (n.strip() for n in args.approve_tools.split(",")))) if args.approve_tools else None,
    }
    return ReActAgent(model=load_model(args.model), tools=registry, checkpointer=checkpointer), {
        k: v for k, v in overrides.items() if v is not None
    }


# -- showing a run live --------------------------------------------------------------------


class LiveView:
    """Prints each node's update as it arrives, with a spinner while the agent works; the spinner's
    line shows the model's reply as it is written (the end of it, on one line)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.written = ""  # the current turn's reply so far
        self.status_text = ""

    def follow(self, updates: Iterator[Any]) -> ReActResult:
        with self.console.status("[dim]thinking...[/]", spinner="dots") as status:

            def say(text: str) -> None:
                self.status_text = text
                status.update(text)

            for item in updates:
                if isinstance(item, ReActResult):
                    return item
                if isinstance(item, Token):
                    if item.node == "think":
                        self.written += item.text
                        say(f"[dim]thinking:[/] {escape(self.line_end(self.written))}")
                    continue
                node, update = item
                self.show(node, update)
                if node == "think":
                    self.written = ""
                    if update.get("pending_actions"):
                        say("[dim]running tools...[/]")
                elif node in ("observe", "summarize"):
                    say("[dim]thinking...[/]")
        raise RuntimeError("the run ended without a result")

    def line_end(self, text: str) -> str:
        """The end of ``text`` on one line that fits beside the spinner."""
        room = max(20, self.console.width - 16)
        flat = " ".join(text.split())
        return flat if len(flat) <= room else "..." + flat[-(room - 3) :]

    def show(self, node: str, update: dict[str, Any]) -> None:
        """One node's update: think -> thought and tool calls; act -> observation; summarize -> summary."""
        out = self.console.print
        if node == "think":
            if thought := (update.get("thought") or "").strip():
                if not update.get("termination"):
                    out(f"[bold cyan]Thought[/] (iteration {update.get('iteration', '?')}): {escape(thought)}")
            for action in update.get("pending_actions") or []:
                if action.get("tool"):
                    args = json.dumps(action.get("args") or {}, ensure_ascii=False)
                    out(f"  [bold yellow]-> {escape(action['tool'])}[/] {escape(args)}")
            if update.get("tool_format") not in (None, update.get("turn_format")):
                out(f"[dim]the model writes its tool calls as text: the {update['tool_format']} format from the next turn on[/]")
        elif node == "act":
            for outcome in update.get("outcomes") or []:
                text = outcome.get("content", "")
                shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"... [{len(text)} chars]"
                colour = "green" if outcome.get("status") == "ok" else "red"
                label = outcome.get("tool") or "note"
                out(f"  [{colour}]<- {escape(label)}[/]: {escape(shown)}")
        elif node == "summarize" and update.get("summary"):
            out(f"[magenta]Summary updated:[/] {escape(update['summary'])}")


def footer(result: ReActResult) -> str:
    """The one-line footer: reason, iterations, tokens ('~' when estimated), seconds, thread."""
    usage = result.token_usage
    tokens = f"{'~' if usage.estimated else ''}{usage.total_tokens} tokens"
    return (
        f"{result.termination_reason.value} | {result.trace.total_iterations} iterations | {tokens} | "
        f"{result.execution_time:.1f}s | thread {result.thread_id}"
    )


def exit_code(result: ReActResult) -> int:
    """0 success (or custom stop), 1 failure or cancelled, 3 waiting (clarification, approval), 4 a limit."""
    reason = result.termination_reason
    if reason in WAITING:
        return EXIT_WAITING
    if reason in LIMIT_REASONS:
        return EXIT_LIMIT
    if reason in (TerminationReason.FAILURE, TerminationReason.CANCELLED):
        return EXIT_ERROR
    return EXIT_OK


def drive(
    agent: ReActAgent,
    args: argparse.Namespace,
    overrides: dict[str, Any],
    console: Console,
    query: str | None,
    thread: str | None,
    answer: str | None,
    approvals: dict[str, Any] | None = None,
) -> int:
    """Run (or continue) until the run ends; when it waits (the model's question, tool calls to
    approve) and there is a terminal, ask the user and continue with what they say."""
    view = LiveView(console)
    given = (("reactgraph_model", args.model), ("reactgraph_tools", args.tools), ("reactgraph_mcp", args.mcp))
    labels = {key: value for key, value in given if value}
    while True:
        updates = agent.stream_updates(
            query, thread_id=thread, answer=answer, approvals=approvals, metadata=labels, tokens=not args.json, **overrides
        )
        with interrupts_calls():
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


def last_result(updates: Iterator[Any]) -> ReActResult:
    """Consume the updates silently (for --json) and return the result."""
    result: Any = None
    for result in updates:
        pass
    if not isinstance(result, ReActResult):
        raise RuntimeError("the run ended without a result")
    return result


def report(result: ReActResult, args: argparse.Namespace, console: Console) -> int:
    """Print the answer (or the JSON result) and the footer; return the exit code."""
    code = exit_code(result)
    if args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return code
    if result.termination_reason is TerminationReason.CLARIFICATION:
        console.print(f"[bold]The agent asks:[/] {escape(result.termination_detail)}")
        console.print(f"Answer with: reactgraph resume {result.thread_id} --answer \"...\"", markup=False)
    if result.pending_approvals:
        import shlex

        several = len(result.pending_approvals) > 1
        for call in result.pending_approvals:
            call_args = json.dumps(call.args, ensure_ascii=False)
            console.print(f"[bold]Waiting for approval:[/] {escape(f'{call.tool} {call_args}')} (call {escape(call.call_id)})")
            which = f" --call {shlex.quote(call.call_id)}" if several else ""
            console.print(
                f"Decide with: reactgraph resume {result.thread_id}{which} --approve | --reject \"reason\" | --edit {shlex.quote(call_args)}",
                markup=False,
            )
    if result.termination_reason not in WAITING:
        label = "Partial answer" if result.partial else "Answer"
        console.print(f"\n[bold green]{label}:[/] {escape(result.final_answer or '(none)')}")
        if result.termination_reason is not TerminationReason.SUCCESS:
            console.print(f"[yellow]Stopped:[/] {escape(result.termination_detail)}")
    console.print(f"[dim]{escape(footer(result))}[/]")
    return code


# -- commands ------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    """reactgraph run QUESTION: a new run, shown live; its thread id first, to resume it by."""
    agent, overrides = make_agent(args)
    args.thread = args.thread or uuid.uuid4().hex  # named now: Ctrl-C says how to continue it
    (Console(stderr=True) if args.json else console).print(f"[dim]thread {args.thread}[/]")
    with agent:
        return drive(agent, args, overrides, console, args.question, args.thread, None)


def cmd_resume(args: argparse.Namespace, console: Console) -> int:
    """reactgraph resume THREAD: continue a crashed or paused run, shown live; --answer answers its
    question, --approve / --reject / --edit decide a call waiting for approval (--call names it)."""
    from reactgraph.waiting import AnswerError

    with ReActAgent(checkpointer=args.db or DEFAULT_CHECKPOINTER) as reader:
        remembered = reader.run_info(args.thread).metadata  # the --model, --tools and --mcp the run was started with
        approvals = decided(args, reader.get_result(args.thread))
    args.model = args.model or remembered.get("reactgraph_model")
    args.tools = args.tools or remembered.get("reactgraph_tools")
    args.mcp = args.mcp or remembered.get("reactgraph_mcp")
    agent, overrides = make_agent(args)
    with agent:
        try:
            return drive(agent, args, overrides, console, None, args.thread, args.answer, approvals)
        except AnswerError as exc:
            raise UsageError(str(exc)) from None


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


def cmd_runs(args: argparse.Namespace, console: Console) -> int:
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
    if console.width < needed:  # wider than the terminal rather than cut (rich only narrows a print)
        console = Console(file=console.file, width=needed, highlight=False, soft_wrap=True)
    console.print(table)
    return EXIT_OK


def cmd_trace(args: argparse.Namespace, console: Console) -> int:
    """reactgraph trace THREAD: the run's trace as text, JSON or Markdown."""
    agent, _ = make_agent(args, with_model=False)
    with agent:
        result = agent.get_result(args.thread)
    sys.stdout.write(format_trace(result, args.format).rstrip("\n") + "\n")
    return EXIT_OK


def cmd_tools(args: argparse.Namespace, console: Console) -> int:
    """reactgraph tools: the registry with categories and descriptions."""
    registry, _ = load_tools(args.tools, args.mcp)
    entries = registry.list()
    if args.json:
        rows = [{"name": t.name, "category": t.category, "description": t.description} for t in entries]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    table = Table(title=f"{len(entries)} tool(s)")
    for name in ("name", "category", "description"):
        table.add_column(name, overflow="fold")
    for t in entries:
        table.add_row(t.name, t.category, " ".join(t.description.strip().split("\n\n")[0].split()))
    console.print(table)
    return EXIT_OK


def cmd_eval(args: argparse.Namespace, console: Console) -> int:
    """reactgraph eval: run the task suite (reactgraph.evaluation), print the table, write reports."""
    from reactgraph.evaluation import command

    command.run(args, console, model=load_model(args.model))
    return EXIT_OK


def _when(value: Any) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S") if value else ""


# -- arguments -----------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    main_parser = argparse.ArgumentParser(prog="reactgraph", description="A ReAct agent as a LangGraph state machine.")
    sub = main_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--db", metavar="PATH", help="checkpoint file (default: $REACTGRAPH_DB or ./.reactgraph/checkpoints.sqlite)")
        return p

    def with_mcp(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--mcp", metavar="FILE", type=lambda path: str(Path(path).absolute()),
            help="also the tools of these MCP servers: a JSON file, {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}} "
            "(as Claude Desktop's) or langchain-mcp-adapters' connections (needs reactgraph[mcp])",
        )

    def with_run_options(p: argparse.ArgumentParser) -> None:
        with_db(p)
        p.add_argument("--model", metavar="M", help="'provider:model' (default ollama:qwen2.5:7b) or 'module:factory'")
        p.add_argument("--max-iterations", type=int, metavar="N")
        p.add_argument("--timeout", type=float, metavar="S", help="wall-clock budget in seconds")
        p.add_argument("--token-budget", type=int, metavar="N")
        p.add_argument(
            "--tool-calling", choices=("auto", "native", "text", "json"),
            help="how the model calls tools (default auto: native, then text once the model writes its calls as text)",
        )
        p.add_argument("--tools", metavar="a,b", help="built-in tool names (see `reactgraph tools`), or 'module:attribute' of your own tools")
        with_mcp(p)
        p.add_argument("--approve-tools", metavar="a,b", help="tools whose calls wait for your approval before they run ('*' = all)")
        p.add_argument("--json", action="store_true", help="print the structured result instead of the live view")

    run = sub.add_parser("run", help="answer a question, showing each step live")
    run.add_argument("question")
    run.add_argument("--thread", metavar="T", help="thread id (default: a new one)")
    with_run_options(run)
    run.set_defaults(func=cmd_run)

    resume = sub.add_parser("resume", help="continue a run after a crash, or answer its question (same --model/--tools by default)")
    resume.add_argument("thread")
    resume.add_argument("--answer", help="the answer to the question the run is waiting on")
    decision = resume.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="run the call waiting for approval")
    decision.add_argument("--reject", metavar="REASON", help="do not run it; the agent is told why")
    decision.add_argument("--edit", metavar="JSON", help="run it with these arguments instead (a JSON object)")
    resume.add_argument("--call", metavar="ID", help="the call to decide, when several wait (ids as printed)")
    with_run_options(resume)
    resume.set_defaults(func=cmd_resume)

    runs = with_db(sub.add_parser("runs", help="list the runs in the checkpoint file"))
    runs.add_argument("--limit", type=int, metavar="N")
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(func=cmd_runs)

    trace = with_db(sub.add_parser("trace", help="print a run's trace"))
    trace.add_argument("thread")
    trace.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    trace.set_defaults(func=cmd_trace)

    tools = sub.add_parser("tools", help="list the tools with their categories and descriptions")
    tools.add_argument("--tools", metavar="a,b", help="also load these 'module:attribute' tools")
    with_mcp(tools)
    tools.add_argument("--json", action="store_true")
    tools.set_defaults(func=cmd_tools)

    from reactgraph.evaluation.command import add_arguments as eval_arguments

    evaluate = sub.add_parser("eval", help="measure the agent on the task suite (optionally beside the prebuilt agent)")
    eval_arguments(evaluate)
    evaluate.set_defaults(func=cmd_eval)
    return main_parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``reactgraph`` command; returns the exit code."""
    args = parser().parse_args(argv)
    # A pipe or file gets wide tables instead of rich's 80-column default (COLUMNS still wins).
    width = None if sys.stdout.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH
    console = Console(highlight=False, soft_wrap=True, width=width)
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        return args.func(args, console)
    except (UsageError, ConfigError, ToolRegistrationError, UnknownToolError, SuiteError, MCPConfigError) as exc:
        errors.print(f"reactgraph: usage error: {exc}", markup=False)
        return EXIT_USAGE
    except (ModelUnavailableError, CheckpointStoreError, RunNotFoundError, MCPServerError, MCPUnavailableError) as exc:
        errors.print(f"reactgraph: {exc}", markup=False)
        return EXIT_ERROR
    except KeyboardInterrupt:
        thread = getattr(args, "thread", None)
        how = f"continue with `reactgraph resume {thread}`" if thread else "nothing was started"
        errors.print(f"reactgraph: interrupted; {how}", markup=False)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
