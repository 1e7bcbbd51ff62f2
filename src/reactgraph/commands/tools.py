"""``reactgraph tools``: the registry with categories and descriptions. It loads the tool registry
(langchain_core's tools), not the agent."""

from __future__ import annotations

import argparse
import json
import sys

from rich.table import Table

from reactgraph.commands import EXIT_OK
from reactgraph.commands.console import output_console
from reactgraph.loading import load_tools


def cmd_tools(args: argparse.Namespace) -> int:
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
    output_console().print(table)
    return EXIT_OK
