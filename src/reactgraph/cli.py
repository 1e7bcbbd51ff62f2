"""The ``reactgraph`` command: run a question and watch the agent think, resume runs, inspect traces.

    reactgraph chat [--thread T] [...the run options]
    reactgraph run "QUESTION" [--model M] [--thread T] [--max-iterations N] [--timeout S]
                              [--token-budget N] [--db PATH|URL] [--tools a,b] [--mcp FILE] [--approve-tools a,b]
                              [--output-schema SIGNATURE] [--playbook] [--json]
    reactgraph resume THREAD [--answer TEXT] [--approve | --reject REASON | --edit JSON] [--call ID]
                             [...the run options]
    reactgraph fork THREAD [--turn N] (--iteration K | --query TEXT | --checkpoint ID) [...the run options]
    reactgraph submit "QUESTION" --db postgresql://... [--thread T] [...the run options]
    reactgraph worker --db postgresql://... [--concurrency N] [--stalled-after S] [--reconnect-within S]
    reactgraph runs [--limit N] [--json]
    reactgraph trace THREAD [--format text|json|markdown]
    reactgraph cancel THREAD
    reactgraph unlock THREAD [--force]
    reactgraph tools [--tools a,b] [--mcp FILE] [--json]
    reactgraph playbook list|show ID|remove ID|clear|export|import FILE [--name N] [--db PATH]
    reactgraph eval [--model M] [--suite PATH | bfcl:CATEGORY,...] [--offset N] [--limit N] [--only ids] [--compare prebuilt|create_agent] [--learn | --held-out] [...]

This module holds every command's options; the commands themselves live in reactgraph.commands, each module
imported only when its command runs, and the exit codes in reactgraph.commands (standard library only).

Exit codes (reactgraph.commands): 0 answered, 1 error, 2 usage, 3 waiting for an answer or an approval
(without a terminal; the command to continue is printed), 4 ended without an answer (a limit: the partial
answer is printed; a stall, a cancel, the model gave up), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

# Only the standard library and reactgraph's light modules here: `--help` and usage errors must not wait for
# LangChain or LangGraph. Each command names its handler as 'module:function' (reactgraph.commands), imported
# when it runs.
from reactgraph.commands import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE, UsageError
from reactgraph.evaluation.peers import PEERS

# -- arguments -----------------------------------------------------------------------------

EXIT_CODES = """exit codes:
  0    answered
  1    error (the model or the database cannot be used, a failure inside a run)
  2    usage error (a bad option or value)
  3    the run waits for an answer or an approval (the command to continue is printed)
  4    the run ended without an answer (a limit: the partial answer is printed; a stall, a cancel, a give-up)
  130  interrupted (Ctrl-C); `reactgraph resume THREAD` continues the run"""


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    main_parser = argparse.ArgumentParser(
        prog="reactgraph", description="A ReAct agent as a LangGraph state machine.", epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    main_parser.add_argument("--version", action=Version, nargs=0, help="show the version and exit")
    sub = main_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_commands in (add_run_commands, add_reading_commands, add_queue_commands, add_tools_command,
                         add_playbook_command, add_eval_command):
        add_commands(sub)
    return main_parser


class Version(argparse.Action):
    """--version: the installed distribution's version (``reactgraph.__version__``, which hatch builds it from)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        from importlib.metadata import version

        sys.stdout.write(f"reactgraph {version('reactgraph')}\n")
        parser.exit()


def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument(
        "--db", metavar="PATH|URL",
        help="checkpoint file or postgresql:// URL (default: $REACTGRAPH_DB or ./.reactgraph/checkpoints.sqlite)",
    )
    return p


def with_mcp(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mcp", metavar="FILE", type=lambda path: str(Path(path).absolute()),
        help="also the tools of these MCP servers: a JSON file, {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}} "
        "(as Claude Desktop's) or langchain-mcp-adapters' connections (needs reactgraph[mcp])",
    )


def with_documents(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--documents", metavar="PATH", type=lambda path: str(Path(path).absolute()),
        help="a file or directory of text documents for the search_documents tool (full-text search)",
    )


def with_run_options(p: argparse.ArgumentParser, *, live: bool = True) -> None:
    """The options of a run (run, resume, submit): database, model, limits, tools, approval, typed answer, playbook."""
    with_db(p)
    p.add_argument("--model", metavar="M", help="'provider:model' (default ollama:qwen2.5:7b) or 'module:factory'")
    p.add_argument("--max-iterations", type=int, metavar="N")
    p.add_argument("--timeout", type=float, metavar="S", help="wall-clock budget in seconds")
    p.add_argument("--token-budget", type=int, metavar="N")
    p.add_argument(
        "--tool-calling", choices=("auto", "native", "text", "json", "python"),
        help="how the model calls tools (default auto: native, then text once the model writes its calls as text)",
    )
    p.add_argument("--tools", metavar="a,b", help="built-in tool names (see `reactgraph tools`), or 'module:attribute' of your own tools")
    with_documents(p)
    with_mcp(p)
    p.add_argument("--approve-tools", metavar="a,b", help="tools whose calls wait for your approval before they run ('*' = all)")
    p.add_argument(
        "--output-schema", metavar="SIGNATURE",
        help="type the answer, e.g. 'question -> answer: float, unit: str' (str, int, float, bool, list[T], "
        "dict[str, T], T | None); the typed output is printed as JSON",
    )
    p.add_argument(
        "--playbook", action="store_true",
        help="show strategies learnt from earlier runs and learn from this one (kept beside the runs: see --db)",
    )
    if live:
        p.add_argument("--json", action="store_true", help="print the structured result instead of the live view")


def add_run_commands(sub: argparse._SubParsersAction) -> None:
    """run, chat, resume and fork (reactgraph.commands.runs, reactgraph.commands.chat)."""
    run = sub.add_parser("run", help="answer a question, showing each step live")
    run.add_argument("question")
    run.add_argument("--thread", metavar="T", help="thread id: an existing one goes on with its conversation (default: a new one)")
    with_run_options(run)
    run.set_defaults(handler="reactgraph.commands.runs:cmd_run")

    chat = sub.add_parser("chat", help="a conversation on one thread: each question a turn, shown live (/new, /exit)")
    chat.add_argument("--thread", metavar="T", help="the thread to go on with (default: a new one)")
    with_run_options(chat, live=False)
    chat.set_defaults(handler="reactgraph.commands.chat:cmd_chat")

    resume = sub.add_parser("resume", help="continue a run after a crash, or answer its question (same --model/--tools by default)")
    resume.add_argument("thread")
    resume.add_argument("--answer", help="the answer to the question the run is waiting on")
    decision = resume.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="run the call waiting for approval")
    decision.add_argument("--reject", metavar="REASON", help="do not run it; the agent is told why")
    decision.add_argument("--edit", metavar="JSON", help="run it with these arguments instead (a JSON object)")
    resume.add_argument("--call", metavar="ID", help="the call to decide, when several wait (ids as printed)")
    resume.add_argument(
        "--force", action="store_true",
        help="free the thread first (as `reactgraph unlock --force`) when a holder that is gone still holds it",
    )
    with_run_options(resume)
    resume.set_defaults(handler="reactgraph.commands.runs:cmd_resume")

    fork = sub.add_parser(
        "fork", help="run part of a thread again from a chosen point, with other options (the old branch is kept)",
    )
    fork.add_argument("thread")
    fork.add_argument("--turn", type=int, metavar="N", help="the turn of the thread's conversation (default: the last)")
    point = fork.add_mutually_exclusive_group(required=True)
    point.add_argument("--iteration", type=int, metavar="K", help="from just after iteration K of the turn (0: from its start)")
    point.add_argument("--query", metavar="TEXT", help="ask the turn anew with this question")
    point.add_argument("--checkpoint", metavar="ID", help="from this checkpoint of the thread's history")
    with_run_options(fork)
    fork.set_defaults(handler="reactgraph.commands.runs:cmd_fork")


def add_reading_commands(sub: argparse._SubParsersAction) -> None:
    """runs, trace, cancel and unlock: the commands that read (or mark) the runs in a database (reactgraph.commands.runs,
    reactgraph.commands.holds)."""
    runs = with_db(sub.add_parser("runs", help="list the runs in the checkpoint file"))
    runs.add_argument("--limit", type=int, metavar="N")
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(handler="reactgraph.commands.runs:cmd_runs")

    trace = with_db(sub.add_parser("trace", help="print a run's trace"))
    trace.add_argument("thread")
    trace.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    trace.set_defaults(handler="reactgraph.commands.runs:cmd_trace")

    cancel = with_db(sub.add_parser("cancel", help="stop a run after its current step (from any process on the same database)"))
    cancel.add_argument("thread")
    cancel.set_defaults(handler="reactgraph.commands.runs:cmd_cancel")

    unlock = with_db(sub.add_parser(
        "unlock", help="free a thread whose holder is gone (killed on another host) before its hold expires",
    ))
    unlock.add_argument("thread")
    unlock.add_argument(
        "--force", action="store_true", help="also when its holder still runs on this host (its run may then overlap)",
    )
    unlock.set_defaults(handler="reactgraph.commands.holds:cmd_unlock")


def add_queue_commands(sub: argparse._SubParsersAction) -> None:
    """submit and worker: queued runs on Postgres (reactgraph.commands.queue)."""
    submit = sub.add_parser("submit", help="queue a run for the workers on a Postgres database; prints its thread id")
    submit.add_argument("question")
    submit.add_argument("--thread", metavar="T", help="thread id (default: a new one)")
    with_run_options(submit, live=False)
    submit.set_defaults(handler="reactgraph.commands.queue:cmd_submit")

    worker = with_db(sub.add_parser("worker", help="run queued runs from a Postgres database until SIGINT / SIGTERM"))
    worker.add_argument("--concurrency", type=int, default=1, metavar="N", help="runs at a time (default 1)")
    worker.add_argument(
        "--stalled-after", type=float, default=30.0, metavar="S",
        help="take up the runs of a worker silent for this many seconds (default 30)",
    )
    worker.add_argument(
        "--reconnect-within", type=float, default=120.0, metavar="S",
        help="when the database goes away, try to reconnect for this many seconds before exiting with 1 (default 120)",
    )
    worker.set_defaults(handler="reactgraph.commands.queue:cmd_worker")


def add_tools_command(sub: argparse._SubParsersAction) -> None:
    """tools (reactgraph.commands.tools)."""
    tools = sub.add_parser("tools", help="list the tools with their categories and descriptions")
    tools.add_argument("--tools", metavar="a,b", help="also load these 'module:attribute' tools")
    with_documents(tools)
    with_mcp(tools)
    tools.add_argument("--json", action="store_true")
    tools.set_defaults(handler="reactgraph.commands.tools:cmd_tools")


def add_playbook_command(sub: argparse._SubParsersAction) -> None:
    """playbook and its actions (reactgraph.commands.playbook)."""
    book = sub.add_parser("playbook", help="the strategies and pitfalls learnt from earlier runs (--playbook)")
    actions = book.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (("list", "the bullets, a line each"), ("show", "one bullet, every field"), ("clear", "remove every bullet"),
                       ("remove", "remove one bullet"), ("export", "the bullets as JSON"), ("import", "merge bullets from a JSON export")):
        action = with_db(actions.add_parser(name, help=text))
        action.add_argument("--name", default="default", help="the playbook (default: default)")
        if name in ("show", "remove"):
            action.add_argument("bullet", metavar="ID")
        if name == "import":
            action.add_argument("file", type=Path)
        if name == "export":
            action.add_argument("--out", type=Path, help="write to this file (default: standard output)")
        if name == "list":
            action.add_argument("--section", choices=("strategies", "pitfalls", "observations"))
            action.add_argument("--json", action="store_true")
        action.set_defaults(handler="reactgraph.commands.playbook:cmd_playbook")


def add_eval_command(sub: argparse._SubParsersAction) -> None:
    """eval (reactgraph.commands.evaluate)."""
    evaluate = sub.add_parser("eval", help="measure the agent on the task suite (optionally beside the prebuilt agent)")
    evaluate.add_argument("--model", help="'provider:model' (default ollama:qwen2.5:7b) or 'module:factory'")
    evaluate.add_argument("--base-url", help="endpoint for an OpenAI-compatible server (with --model openai:NAME)")
    evaluate.add_argument(
        "--suite",
        help="a suite shipped with reactgraph by name: default (the default), walkthrough (the docs' examples as a user "
        "runs them); a task file or directory (./NAME for one named as a shipped suite); or bfcl:CATEGORY[,CATEGORY...] "
        "for the Berkeley Function Calling Leaderboard's entries (needs reactgraph[bench], see docs/evaluation.md)",
    )
    evaluate.add_argument(
        "--limit", type=int, help="BFCL: the first N entries of each category (the same ones every run)"
    )
    evaluate.add_argument(
        "--offset", type=int, default=0, metavar="N",
        help="BFCL: skip the first N entries of each category (--offset 100 --limit 25: entries 100-124, a held-out slice)",
    )
    evaluate.add_argument(
        "--server-log", type=Path, metavar="PATH",
        help="BFCL: llama.cpp's server log (llama-cpp-python, verbose): the prompt tokens each model call evaluated "
        "and the share its prompt cache served",
    )
    evaluate.add_argument("--repeat", type=int, default=1, help="runs per task (default 1)")
    evaluate.add_argument(
        "--compare", choices=PEERS,
        help="also run a peer on the same tasks: prebuilt (LangGraph's create_react_agent) or create_agent (LangChain's)",
    )
    evaluate.add_argument(
        "--agents",
        help=f"comma-separated agents to run instead: reactgraph, {', '.join(PEERS)} (e.g. --agents prebuilt); for BFCL "
        "also bare (the model alone, asked once with BFCL's own prompt)",
    )
    evaluate.add_argument(
        "--baseline", type=Path, help="an eval.json from an earlier run: its runs are reported beside this run's"
    )
    evaluate.add_argument("--only", help="comma-separated task ids or categories to run (BFCL: entry ids)")
    evaluate.add_argument(
        "--learn", action="store_true",
        help="a learning pass on half the tasks (alternate tasks of each category) fills a playbook, then the other "
        "half is measured with it (agent 'reactgraph+playbook'); the playbook is kept in --out",
    )
    evaluate.add_argument(
        "--held-out", action="store_true", help="run only the half of the tasks that --learn measures (no playbook)"
    )
    evaluate.add_argument("--out", type=Path, default=Path("eval-results"), help="where the JSON and Markdown reports go")
    evaluate.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="an AgentConfig option for every task, e.g. --set tool_calling=text (JSON values: --set limits.max_iterations=6)",
    )
    # command_line: how the eval runs its cli and chat tasks' commands in-process (the commands sit below this module)
    evaluate.set_defaults(handler="reactgraph.commands.evaluate:cmd_eval", command_line=main)


def handler(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The function of the chosen command, its module imported now."""
    module, _, name = args.handler.partition(":")
    return getattr(importlib.import_module(module), name)


def error_exit_code(exc: Exception) -> int | None:
    """EXIT_USAGE for a bad value, EXIT_ERROR for a model or checkpoint store that fails, None for
    anything else (a bug, shown with its traceback)."""
    if isinstance(exc, UsageError):
        return EXIT_USAGE
    # Imported only once a command failed: these modules load LangChain and LangGraph.
    from reactgraph.answers.waiting import RunWaitingError
    from reactgraph.config import ConfigError
    from reactgraph.errors import MissingExtraError
    from reactgraph.evaluation.suite import SuiteError
    from reactgraph.models.resolve import ModelUnavailableError
    from reactgraph.persistence.base import CheckpointStoreError, RunNotFoundError, ThreadBusyError
    from reactgraph.persistence.reading import ForkError
    from reactgraph.playbook import PlaybookError
    from reactgraph.state import InvalidInputError
    from reactgraph.tools.base import ToolRegistrationError
    from reactgraph.tools.mcp import MCPConfigError, MCPServerError
    from reactgraph.tools.registry import UnknownToolError

    if isinstance(
        exc,
        ConfigError | ToolRegistrationError | UnknownToolError | SuiteError | MCPConfigError | PlaybookError | RunWaitingError
        | ForkError | InvalidInputError,
    ):
        return EXIT_USAGE
    if isinstance(
        exc, ModelUnavailableError | CheckpointStoreError | RunNotFoundError | ThreadBusyError | MCPServerError | MissingExtraError
    ):
        return EXIT_ERROR
    return None


class Stderr(logging.StreamHandler):
    """A handler writing each message alone on the stderr of the moment."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


def show_notes() -> None:
    """What the library tells a user as a warning (the model chosen for them when the default is not pulled) is
    shown on stderr, once however often ``main`` runs."""
    notes = logging.getLogger("reactgraph.models.resolve")
    if not any(isinstance(h, Stderr) for h in notes.handlers):
        notes.addHandler(Stderr())


def load_env_file(path: Path = Path(".env")) -> None:
    """The variables of ``.env`` in the current directory (API keys, OLLAMA_HOST, REACTGRAPH_DB, LangSmith's), as
    ``langgraph dev`` reads them; a variable already set in the environment wins."""
    if path.is_file():
        from dotenv import load_dotenv

        load_dotenv(path, override=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``reactgraph`` command; returns the exit code."""
    args = parser().parse_args(argv)
    load_env_file()
    show_notes()
    try:
        return handler(args)(args)
    except KeyboardInterrupt:
        thread = getattr(args, "thread", None)
        how = f"continue with `reactgraph resume {thread}`" if thread else "nothing was started"
        if str(getattr(args, "suite", None) or "").startswith("bfcl:"):
            how = f"the runs that ended are kept in {args.out}; the same command picks up where it stopped"
        print(f"reactgraph: interrupted; {how}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        code = error_exit_code(exc)
        if code is None:
            raise
        print(f"reactgraph: {'usage error: ' if code == EXIT_USAGE else ''}{exc}", file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())
