"""``reactgraph eval --suite bfcl:CATEGORY[,...]``: BFCL entries through reactgraph and its peers, each run kept
in ``--out``/bfcl.jsonl as it ends (an interrupted eval picks up there), a progress bar with the entries done and
the time left, then the report scored with BFCL's checker: a table printed, eval.json, eval.md and bfcl.svg
written. (Its options are parsed in reactgraph.cli; ``evaluate`` hands a ``bfcl:`` suite here.)"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from reactgraph.config import ConfigError
from reactgraph.evaluation.bfcl.calls import ServerLog
from reactgraph.evaluation.bfcl.chart import bar_chart
from reactgraph.evaluation.bfcl.entries import Entry, categories, select
from reactgraph.evaluation.bfcl.journal import Journal
from reactgraph.evaluation.bfcl.report import BfclReport, scored, summary
from reactgraph.evaluation.bfcl.runs import BARE, RunEntry, run_entry
from reactgraph.evaluation.bfcl.scoring import score

PREFIX = "bfcl:"


def is_bfcl(suite: object) -> bool:
    return str(suite or "").startswith(PREFIX)


def refuse_suite_options(args: argparse.Namespace) -> None:
    """The task suite's options that mean nothing for BFCL are an error, not ignored."""
    used = [flag for flag, on in (("--repeat", args.repeat != 1), ("--learn", args.learn), ("--held-out", args.held_out),
                                  ("--baseline", args.baseline)) if on]
    if used:
        raise ConfigError(f"--suite bfcl: does not take {', '.join(used)} (a BFCL eval resumes from --out instead)")


def chosen_entries(args: argparse.Namespace, agents: Sequence[str] = ()) -> list[Entry]:
    """The entries ``args`` choose (``--suite bfcl:...``, ``--offset``, ``--limit``, ``--only``), its other options
    checked (``agents``: the bare agent takes single-turn categories only)."""
    refuse_suite_options(args)
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit takes a number of entries of 1 or more, got {args.limit}")
    if args.offset < 0:
        raise ConfigError(f"--offset takes a number of entries to skip, 0 or more, got {args.offset}")
    only = [i.strip() for i in (args.only or "").split(",") if i.strip()]
    entries = select(categories(str(args.suite)[len(PREFIX):]), limit=args.limit, only=only, offset=args.offset)
    if BARE in agents and (multi := sorted({e.category for e in entries if e.multi_turn})):
        raise ConfigError(f"--agents {BARE}: BFCL's prompt mode is run on single-turn categories only, not {', '.join(multi)}")
    return entries


def run_bfcl(
    args: argparse.Namespace,
    console: Console,
    model: BaseChatModel,
    agents: list[str],
    overrides: Mapping[str, Any],
    entries: list[Entry],
    run: RunEntry = run_entry,
) -> BfclReport:
    """Run ``entries`` with each of ``agents``, skipping the runs ``--out`` already holds; then report."""
    journal = Journal(args.out, args.model)
    server_log = ServerLog(args.server_log) if args.server_log else None
    todo = [(entry, agent) for entry in entries for agent in agents if not journal.done(agent, entry.id)]
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        job = bar.add_task("bfcl", total=len(entries) * len(agents), completed=len(entries) * len(agents) - len(todo))
        for entry, agent in todo:
            bar.update(job, description=f"{agent} {entry.id}")
            record = run(entry, agent, model, overrides, args.model, server_log)
            journal.add(record)
            bar.update(job, advance=1)
            if not console.is_terminal:  # no live bar in a log: one line per run instead
                verdict = "error" if record["error"] else ("right" if score(entry, record["calls"]).valid else "wrong")
                console.print(f"{agent} {entry.id}: {verdict} ({record['seconds']:.1f} s)")
    report = BfclReport(scored(entries, list(journal.records.values())), agents)
    show(report, console, f"{args.model} on {len(entries)} BFCL entries")
    write(report, entries, args)
    return report


def show(report: BfclReport, console: Console, title: str) -> None:
    table = Table(*BfclReport.HEADERS, title=title)
    for row in report.rows():
        table.add_row(*row)
    console.print(table)


def write(report: BfclReport, entries: list[Entry], args: argparse.Namespace) -> None:
    """eval.json, eval.md (with the command that made it) and bfcl.svg in ``--out``."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = f"reactgraph eval --suite {args.suite} --model {args.model}" + (f" --base-url {args.base_url}" if args.base_url else "")
    command += (f" --offset {args.offset}" if args.offset else "") + (f" --limit {args.limit}" if args.limit is not None else "")
    command += (f" --only {args.only}" if args.only else "") + (f" --server-log {args.server_log}" if args.server_log else "")
    command += (f" --agents {args.agents}" if args.agents else "") + (f" --compare {args.compare}" if args.compare else "")
    command += "".join(f" --set {pair}" for pair in args.overrides)
    (out / "eval.json").write_text(report.to_json() + "\n")
    (out / "eval.md").write_text(
        f"# BFCL: {args.model}\n\n{stamp}; command: `{command}`; {len(entries)} entries, raw replies in bfcl.jsonl\n\n"
        f"Accuracy: the first calls the agent executed, scored with BFCL's AST checker (irrelevance: right with no "
        f"call); first reply: the calls of the model's first reply. Multi-turn: every call of the conversation, run "
        f"again by BFCL's multi-turn checker beside the ground truth (states and results after each turn); no first "
        f"reply figure.\n\n{report.to_markdown()}\n"
    )
    (out / "bfcl.svg").write_text(bar_chart(f"BFCL accuracy: {args.model}", summary(report)))
