"""The task suite: JSON files of tasks, validated with pydantic."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reactgraph.answers.result import TerminationReason


class Expectation(BaseModel):
    """How an answer is checked: exact text, a number within tolerance, substrings, or a named check."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["exact", "numeric", "contains", "none_of", "check"]
    value: Any = None
    tolerance: float = Field(default=0.01, ge=0, description="numeric: the absolute tolerance")
    check: str | None = Field(default=None, description="kind 'check': the name of a function in checkers.CHECKS")


class Fault(BaseModel):
    """A failure injected into one tool: ``failures`` transient errors, or permanent."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    mode: Literal["transient", "permanent"]
    failures: int = Field(default=2, ge=1, description="transient: how many calls fail before it works")


class Task(BaseModel):
    """One task of the suite."""

    model_config = ConfigDict(extra="forbid")

    id: str
    category: str
    question: str
    tools: list[str]
    expect: Expectation | None = Field(default=None, description="None: only the termination reason is checked")
    expected_reason: TerminationReason = TerminationReason.SUCCESS
    fault: Fault | None = None
    config: dict[str, Any] = Field(default_factory=dict, description="AgentConfig overrides for this task")


class SuiteError(ValueError):
    """A suite file is missing or invalid; the message names the file and the problem."""


def shipped_suite() -> Path:
    """The suite that ships with reactgraph as package data: its task files, and the files/ and docs/
    its tasks' tools read (a real directory: a wheel installs as files)."""
    return Path(str(resources.files("reactgraph.evaluation") / "tasks"))


def load_suite(path: str | Path) -> list[Task]:
    """Tasks from a JSON file (a list of tasks) or every ``*.json`` file of a directory, in name order."""
    path = Path(path)
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise SuiteError(f"no task files at {path}")
    tasks: list[Task] = []
    for file in files:
        try:
            tasks += [Task.model_validate(item) for item in json.loads(file.read_text())]
        except (json.JSONDecodeError, ValidationError, TypeError) as exc:
            raise SuiteError(f"{file}: {exc}") from None
    ids = [t.id for t in tasks]
    if dupes := sorted({i for i in ids if ids.count(i) > 1}):
        raise SuiteError(f"duplicate task ids in {path}: {', '.join(dupes)}")
    return tasks
