"""The ``reactgraph`` subcommands, one module per group: ``runs`` (run, resume, runs, trace, cancel), ``live``
(a run shown as it goes), ``queue`` (submit, worker), ``tools``, ``playbook``, ``evaluate`` (eval).
``reactgraph.cli`` parses the arguments and imports only the module of the command that runs: help and usage
errors load none of them, and ``reactgraph tools`` loads the tool registry without LangGraph.

This module is what the commands and the parser share, from the standard library only: the exit codes and
``UsageError``. A bad value that the library reports (``ConfigError``, ``UnknownToolError``, ...) is a usage
error too (``cli.error_exit_code``).
"""

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_WAITING, EXIT_LIMIT = 0, 1, 2, 3, 4


class UsageError(Exception):
    """A bad command-line value (exit code 2)."""
