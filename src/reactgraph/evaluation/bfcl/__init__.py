"""The Berkeley Function Calling Leaderboard (BFCL) in the eval: its entries and its own checker, run through
reactgraph and its peers (``reactgraph eval --suite bfcl:CATEGORY[,...]``).

- ``package``: BFCL's code and data (the ``bfcl-eval`` package, pinned, installed without its dependencies),
  imported with its model registry left out;
- ``entries``: a category's entries and their ground truth, chosen by ``--limit`` / ``--only``;
- ``tools``: an entry's functions as tools (OpenAI-style names, JSON schemas as BFCL converts them);
- ``runs``: one entry through one agent, what it called and replied, as a JSON-lines record;
- ``scoring``: a record judged by BFCL's AST checker (irrelevance: right only without any call);
- ``report``: accuracy, entries, tokens, seconds and errors per category and agent; ``chart`` draws them.

Multi-turn (``multi_turn_base``): ``multi_turn`` holds a run's live API instances (BFCL's executor, a fresh model
name per run and per scoring: BFCL caches instances by model name and entry id) and builds the call strings from
structured calls; ``runs`` runs each user turn as a turn of one conversation on one thread; ``scoring`` hands the
calls of each turn to BFCL's multi-turn checker.
"""
