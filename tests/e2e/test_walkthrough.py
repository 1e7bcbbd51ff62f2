"""The walkthrough suite (``reactgraph eval --suite walkthrough``: the docs' examples as a user runs them) on a
real model at OLLAMA_HOST, one test per task. Run only when asked, and slow on a small local model (minutes a task):
``REACTGRAPH_E2E=1 OLLAMA_HOST=http://127.0.0.1:11434 python -m pytest tests/e2e/test_walkthrough.py -q``.

The model is conftest.py's (REACTGRAPH_E2E_MODEL, else the one a run given no model uses), made as
``reactgraph eval`` makes it; a task that misses fails with what went wrong in each turn (evaluation.judging).
"""

from __future__ import annotations

import pytest

from reactgraph import cli
from reactgraph.config import AgentConfig
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import load_suite, shipped_suite
from reactgraph.models.resolve import resolve_model

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1800)]

WALKTHROUGH = shipped_suite("walkthrough")
TASKS = load_suite(WALKTHROUGH)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_readme_s_example_gives_what_the_readme_shows(model_name, task):
    model = resolve_model(f"ollama:{model_name}", AgentConfig())
    [run] = run_suite([task], lambda t: model, WALKTHROUGH, command=cli.main).runs
    assert run.correct, "\n".join([*run.problems, f"answer: {run.answer!r}", *map(str, run.steps)])
