"""``reactgraph eval --learn``: a learning pass that fills a playbook, then the measured pass with it.

The suite is split by task: within each category the tasks alternate between the learning half
(the first, third, ...) and the held-out half. The learning pass runs the learning half with the
playbook on; the measured pass runs the held-out half on the playbook it left. ``--held-out`` runs
the held-out half alone, without a playbook: the side to compare with."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore

from reactgraph.evaluation.report import TaskRun
from reactgraph.evaluation.runner import ModelFactory, run_reactgraph
from reactgraph.evaluation.suite import Task

LEARNING, MEASURED = "reactgraph learning", "reactgraph+playbook"


def split_tasks(tasks: Iterable[Task]) -> tuple[list[Task], list[Task]]:
    """(learning half, held-out half), alternating within each category in suite order."""
    seen: dict[str, int] = {}
    halves: tuple[list[Task], list[Task]] = ([], [])
    for task in tasks:
        halves[seen.get(task.category, 0) % 2].append(task)
        seen[task.category] = seen.get(task.category, 0) + 1
    return halves


def run_learning(
    tasks: Iterable[Task],
    model_factory: ModelFactory,
    suite_dir: Path,
    store: BaseStore,
    overrides: dict[str, Any],
    progress: Callable[[TaskRun], None] | None = None,
) -> tuple[list[TaskRun], list[TaskRun]]:
    """The learning half run with the playbook in ``store``, then the held-out half: their runs,
    labelled LEARNING and MEASURED."""
    out: tuple[list[TaskRun], list[TaskRun]] = ([], [])
    for half, label, runs in zip(split_tasks(tasks), (LEARNING, MEASURED), out, strict=True):
        for task in half:
            run = run_reactgraph(task, model_factory(task), suite_dir, overrides, playbook=store)
            runs.append(run := run.model_copy(update={"agent": label}))
            if progress:
                progress(run)
    return out
