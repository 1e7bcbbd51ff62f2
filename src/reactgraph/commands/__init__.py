"""The ``reactgraph`` subcommands, one module per group: ``runs`` (run, resume, runs, trace, cancel), ``holds``
(unlock), ``live``
(a run shown as it goes), ``queue`` (submit, worker), ``tools``, ``playbook``, ``evaluate`` (eval).
``reactgraph.cli`` parses the arguments and imports only the module of the command that runs: help and usage
errors load none of them, and ``reactgraph tools`` loads the tool registry without LangGraph.

This module is what the commands and the parser share, from the standard library only: the exit codes and
``UsageError``. A bad value that the library reports (``ConfigError``, ``UnknownToolError``, ...) is a usage
error too (``cli.error_exit_code``).
"""

# The exit codes of every command, each one thing:
EXIT_OK = 0  # answered (or the command did what it was asked)
EXIT_ERROR = 1  # an error: the model or the database cannot be used, a run failed with an exception
EXIT_USAGE = 2  # a bad option or value (argparse's own code too)
EXIT_WAITING = 3  # the run waits for an answer or an approval (without a terminal; the command to continue is printed)
EXIT_NO_ANSWER = 4  # the run ended without an answer: a limit (the partial answer is printed), a stall, a cancel, the model gave up
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it); the command to continue the run is printed


class UsageError(Exception):
    """A bad command-line value (exit code 2)."""
