"""Where the commands print: the console of standard output, wide when it is a pipe or a file."""

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
