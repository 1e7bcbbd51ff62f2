"""``reactgraph tools``: the registry with categories and descriptions. It loads the tool registry
(langchain_core's tools), not the agent."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.markup import escape
from rich.table import Table

from reactgraph.commands import EXIT_OK
from reactgraph.commands.console import output_console
from reactgraph.loading import load_tools
from reactgraph.tools.builtin import BUILTINS, builtin_functions

NEEDS = {"documents": "--documents PATH", "root": "a root directory"}  # how a built-in's setup is given


def cmd_tools(args: argparse.Namespace) -> int:
    """reactgraph tools: the registry with categories and descriptions, and the built-ins that need a setting
    this command was not given (search_documents without --documents), saying which."""
    registry, _ = load_tools(args.tools, args.mcp, args.documents)
    rows: list[dict[str, Any]] = [{"name": t.name, "category": t.category, "description": t.description, "needs": None} for t in registry.list()]
    listed = {row["name"] for row in rows}
    unset = [name for name in BUILTINS if name not in listed]
    described = builtin_functions(root=".", documents={}) if unset else {}
    rows += [
        {"name": name, "category": BUILTINS[name].category, "description": described[name].__doc__ or "",
         "needs": NEEDS[BUILTINS[name].needs]}
        for name in unset
    ]
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    table = Table(title=f"{len(rows)} tool(s)")
    for name in ("name", "category", "description"):
        table.add_column(name, overflow="fold")
    for row in rows:
        first = " ".join(row["description"].strip().split("\n\n")[0].split())
        shown = f"(needs {row['needs']}) {first}" if row["needs"] else first
        table.add_row(escape(row["name"]), escape(row["category"]), escape(shown))
    output_console().print(table)
    return EXIT_OK
