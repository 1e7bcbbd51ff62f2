"""The Berkeley Function Calling Leaderboard (BFCL) in the eval: its entries and its own checker, run through
reactgraph and its peers (``reactgraph eval --suite bfcl:CATEGORY[,...]``).

- ``package``: BFCL's code and data (the ``bfcl-eval`` package, pinned, installed without its dependencies),
  imported with its model registry left out;
- ``entries``: a category's entries and their ground truth, chosen by ``--limit`` / ``--only``;
- ``tools``: an entry's functions as tools (OpenAI-style names, JSON schemas as BFCL converts them);
- ``runs``: one entry through one agent, what it called and replied, as a JSON-lines record;
- ``scoring``: a record judged by BFCL's AST checker (irrelevance: right only without any call);
- ``report``: accuracy, entries, tokens, seconds and errors per category and agent; ``chart`` draws them.

Multi-turn categories (``multi_turn_base``) need a conversation per entry on one thread (issue 26) and are
not offered yet: ``entries.categories`` refuses them by name. Where they plug in: an entry with several user
turns, its tools made from instances of its API classes (built from its initial configuration, under a model name
fresh for each run, since BFCL caches instances by model name and entry id), each turn one turn of the
conversation; the record keeps each turn's calls (structured, so BFCL's executor is given call strings we build,
never model text), and ``scoring`` hands them to BFCL's multi-turn checker. ``runs.run_entry`` is the one place
that would dispatch on the kind of entry.
"""
