"""``reactgraph eval``: the task suite run through reactgraph.evaluation with the model --model names, a live
progress bar, the table printed, reports written. (Its options are parsed in reactgraph.cli.)"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from reactgraph.commands import EXIT_OK
from reactgraph.commands.benchmark import chosen_entries, is_bfcl, run_bfcl
from reactgraph.commands.console import output_console
from reactgraph.config import DEFAULT_MODEL, AgentConfig, ConfigError, make_config
from reactgraph.evaluation.bfcl.report import BfclReport
from reactgraph.evaluation.bfcl.runs import AGENTS as BFCL_AGENTS
from reactgraph.evaluation.learning import run_learning, split_tasks
from reactgraph.evaluation.report import RELIABILITY_HEADERS, SuiteReport, TaskRun
from reactgraph.evaluation.runner import RUNNERS, run_suite
from reactgraph.evaluation.suite import Task, load_suite, suite_path
from reactgraph.loading import load_model
from reactgraph.models.resolve import resolve_model
from reactgraph.playbook import Playbook, close_store, sqlite_store
from reactgraph.playbook.book import STORE_FILE


def cmd_eval(args: argparse.Namespace) -> int:
    """reactgraph eval: run the task suite, print the table, write reports."""
    run(args, output_console(), model=load_model(args.model))
    return EXIT_OK


def parse_overrides(pairs: list[str]) -> dict[str, object]:
    """KEY=VALUE pairs; VALUE is read as JSON when it parses, else as a string."""
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set takes KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def chosen_agents(args: argparse.Namespace, known: Collection[str] = tuple(RUNNERS)) -> list[str]:
    """The agents to run: --agents (each one of ``known``), else reactgraph (and the --compare agent)."""
    if not args.agents:
        return ["reactgraph"] + ([args.compare] if args.compare else [])
    if args.compare:
        raise ConfigError("give --agents or --compare, not both")
    agents = list(dict.fromkeys(a.strip() for a in args.agents.split(",") if a.strip()))
    unknown = [a for a in agents if a not in known]
    if unknown or not agents:
        raise ConfigError(f"--agents: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return agents


def load_baseline(path: Path) -> list[TaskRun]:
    """The runs of an earlier eval.json."""
    try:
        return SuiteReport.model_validate({"runs": json.loads(path.read_text())["runs"]}).runs
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"--baseline {path}: not a readable eval.json ({type(exc).__name__}: {exc})") from None


def build_model(spec: str, base_url: str | None, cfg: AgentConfig) -> BaseChatModel:
    """The model to evaluate, with ``cfg``'s temperature and output cap; with ``base_url``, an
    OpenAI-compatible endpoint (the cap sent as ``max_tokens``, which llama.cpp and vLLM read)."""
    if base_url is None:
        return resolve_model(spec, cfg)
    from langchain.chat_models import init_chat_model

    cap: dict[str, Any] = {} if cfg.model_settings.max_output_tokens is None else {"extra_body": {"max_tokens": cfg.model_settings.max_output_tokens}}
    key = os.environ.get("OPENAI_API_KEY", "local")
    return init_chat_model(spec, base_url=base_url, api_key=key, temperature=cfg.model_settings.temperature, **cap)


def run(
    args: argparse.Namespace, console: Console | None = None, model: str | BaseChatModel | None = None
) -> SuiteReport | BfclReport:
    """Run the suite as ``args`` say; ``model`` (an instance or spec) replaces ``args.model`` when given.
    Without ``args.model`` or ``args.suite``: the default model, the default suite shipped with reactgraph; a shipped
    suite's name (``walkthrough``) runs that suite; a ``bfcl:CATEGORY[,...]`` suite runs BFCL's entries
    (``commands.benchmark``)."""
    console = console or Console()
    args.model = args.model or DEFAULT_MODEL
    overrides = parse_overrides(args.overrides)
    cfg = make_config(**overrides)  # a bad --set fails here, before any model call
    if is_bfcl(args.suite):
        agents = chosen_agents(args, BFCL_AGENTS)
        entries = chosen_entries(args, agents)
        model = model if isinstance(model, BaseChatModel) else build_model(model or args.model, args.base_url, cfg)
        return run_bfcl(args, console, model, agents, overrides, entries)
    if used := [f for f, on in (("--limit", args.limit is not None), ("--offset", args.offset), ("--server-log", args.server_log)) if on]:
        verb = "is" if len(used) == 1 else "are"
        raise ConfigError(f"{', '.join(used)} {verb} for a BFCL suite (--suite bfcl:CATEGORY); the task suite takes --only")
    args.suite_given, args.suite = args.suite, suite_path(args.suite)
    tasks = load_suite(args.suite)
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        tasks = [t for t in tasks if t.id in wanted or t.category in wanted]
    if args.held_out:
        tasks = split_tasks(tasks)[1]
    agents = chosen_agents(args)
    if args.learn and (agents != ["reactgraph"] or args.repeat != 1 or args.held_out):
        raise ConfigError("--learn runs reactgraph once per task: not with --agents, --compare, --repeat or --held-out")
    baseline = load_baseline(args.baseline) if args.baseline else []
    model = model if isinstance(model, BaseChatModel) else build_model(model or args.model, args.base_url, cfg)
    suite_dir = args.suite if args.suite.is_dir() else args.suite.parent
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console) as bar:
        job = bar.add_task("eval", total=len(tasks) * len(agents) * args.repeat)

        def advance(r: TaskRun) -> None:
            mark = "[green]ok" if r.correct else "[red]miss"
            bar.update(job, advance=1, description=f"{r.agent} {r.task_id} {mark}[/]")
            if not console.is_terminal:  # no live bar in a log: one line per run instead
                console.print(f"{r.agent} {r.task_id}: {'ok' if r.correct else 'miss'} ({r.reason}, {r.seconds:.1f} s)")
            for problem in r.problems:  # what went wrong, as it happens
                bar.console.print(f"  [red]{escape(problem)}[/]")

        if args.learn:
            learnt, measured = learn(tasks, model, suite_dir, overrides, args, advance)
            report, tasks = SuiteReport(runs=measured), split_tasks(tasks)[1]
            console.print(f"learning pass: {sum(r.correct for r in learnt)}/{len(learnt)} right; playbook in {args.out}")
        else:
            report = run_suite(
                tasks, lambda task: model, suite_dir, agents=agents, repeat=args.repeat, overrides=overrides,
                progress=advance, command=getattr(args, "command_line", None),
            )
    wanted = {t.id for t in tasks}
    report = SuiteReport(runs=report.runs + [r for r in baseline if r.task_id in wanted and r.agent not in agents])
    table = Table(*report.headers(), title=f"{args.model} on {len(tasks)} tasks")
    for row in report.rows():
        table.add_row(*row)
    console.print(table)
    for line in report.total_lines():
        console.print(line)
    for agent in report.agents():
        if rows := report.reliability_rows(agent):
            buckets = Table(*RELIABILITY_HEADERS, title=f"{agent}: confidence by bucket")
            for row in rows:
                buckets.add_row(*row)
            console.print(buckets)
    write_reports(report, args)
    return report


def learn(
    tasks: list[Task], model: BaseChatModel, suite_dir: Path, overrides: dict[str, object], args: argparse.Namespace,
    advance: Callable[[TaskRun], None],
) -> tuple[list[TaskRun], list[TaskRun]]:
    """The learning pass and the measured pass on a new playbook in ``--out``/playbook.sqlite (exported
    beside it as playbook.json)."""
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / STORE_FILE
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    store = sqlite_store(path)
    try:
        runs = run_learning(tasks, lambda task: model, suite_dir, store, overrides, advance)
        (args.out / "playbook.json").write_text(Playbook(store).export_json() + "\n")
    finally:
        close_store(store)
    return runs


def write_reports(report: SuiteReport, args: argparse.Namespace) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    (args.out / "eval.json").write_text(report.to_json())
    command = f"reactgraph eval --model {args.model}" + (f" --base-url {args.base_url}" if args.base_url else "")
    command += f" --repeat {args.repeat}" + (f" --compare {args.compare}" if args.compare else "")
    command += (f" --agents {args.agents}" if args.agents else "") + (f" --baseline {args.baseline}" if args.baseline else "")
    command += "".join(f" --set {pair}" for pair in args.overrides) + (f" --only {args.only}" if args.only else "")
    command += (" --learn" if args.learn else "") + (" --held-out" if args.held_out else "")
    command += f" --suite {args.suite_given}" if getattr(args, "suite_given", None) else ""
    (args.out / "eval.md").write_text(f"# Eval: {args.model}\n\n{stamp}; command: `{command}`\n\n{report.to_markdown()}\n")


