"""Measure the agent on a task suite: ``suite`` (tasks, loaded and checked), ``faults`` (injected tool failures),
``runner`` (a task through reactgraph or a peer, ``run_suite``), ``peers`` (the agents run beside it),
``checkers`` (is an answer right), ``report`` and ``calibration`` (totals, tables, charts), ``learning``
(``eval --learn``), ``bfcl`` (the Berkeley Function Calling Leaderboard's entries, scored with its own checker).
The ``reactgraph eval`` command is ``reactgraph.commands.evaluate`` (``commands.benchmark`` for a BFCL suite)."""
