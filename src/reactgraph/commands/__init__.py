"""The ``reactgraph`` subcommands, one module per group. ``reactgraph.cli`` parses the arguments and
imports only the module of the command that runs: help and usage errors load none of them, and
``reactgraph tools`` loads the tool registry without LangGraph."""

from __future__ import annotations

import os
import sys

from rich.console import Console

PIPE_WIDTH = 200


def output_console() -> Console:
    """The console of standard output. A pipe or file gets wide tables instead of rich's 80-column
    default (COLUMNS still wins)."""
    width = None if sys.stdout.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH
    return Console(highlight=False, soft_wrap=True, width=width)
