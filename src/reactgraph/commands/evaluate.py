"""``reactgraph eval``: the task suite run through reactgraph.evaluation, with the model --model names."""

from __future__ import annotations

import argparse

from reactgraph.cli import EXIT_OK
from reactgraph.commands import output_console
from reactgraph.commands.runs import load_model
from reactgraph.evaluation import command


def cmd_eval(args: argparse.Namespace) -> int:
    """reactgraph eval: run the task suite, print the table, write reports."""
    command.run(args, output_console(), model=load_model(args.model))
    return EXIT_OK
