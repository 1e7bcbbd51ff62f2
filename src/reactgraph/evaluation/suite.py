"""The task suites: JSON files of tasks, validated with pydantic. Two ship with reactgraph (``SHIPPED``): the
default suite (one question per task, built-in tools, the eval's non-interactive settings) and the walkthrough (the
README's and docs' examples as a user runs them: their own tools, follow-up turns, answers to a paused run, through the Python
API, the compiled or served graph, or the command line)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reactgraph.answers.result import TerminationReason


class Expectation(BaseModel):
    """How an answer is checked: exact text, a number within tolerance, substrings, or a named check."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["exact", "numeric", "contains", "any_of", "none_of", "fields", "check"]
    value: Any = Field(default=None, description="fields: the typed answer's field -> its value (a list: any of them)")
    tolerance: float = Field(default=0.01, ge=0, description="numeric: the absolute tolerance")
    check: str | None = Field(default=None, description="kind 'check': the name of a function in checkers.CHECKS")


class Fault(BaseModel):
    """A failure injected into one tool: ``failures`` transient errors, or permanent."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    mode: Literal["transient", "permanent"]
    failures: int = Field(default=2, ge=1, description="transient: how many calls fail before it works")


class ExpectedCall(BaseModel):
    """A call that must have run in a turn, and gave a result: the tool, and the arguments that matter."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    args: dict[str, Any] = Field(default_factory=dict, description="each must be given so (text compared without case)")


class Outcome(BaseModel):
    """What one turn of a task must give."""

    model_config = ConfigDict(extra="forbid")

    expect: Expectation | None = Field(default=None, description="None: only the termination reason is checked")
    expected_reason: TerminationReason = TerminationReason.SUCCESS
    ran: list[ExpectedCall] = Field(default_factory=list, description="calls that must have run in the turn")
    waiting: list[str] = Field(default_factory=list, description="tools whose calls must wait for approval at its end")
    checked: list[str] = Field(default_factory=list, description="reply checks that must have acted in the turn (sent back, stopped, rewrote)")


class Turn(Outcome):
    """A turn after a task's first, on the same thread: a follow-up question, the answer to the question the run
    waits on, or the decision on the call that waits for approval."""

    question: str | None = None
    answer: str | None = None
    approval: Literal["approve", "reject"] | None = None

    @model_validator(mode="after")
    def _one_input(self) -> Turn:
        if sum(given is not None for given in (self.question, self.answer, self.approval)) != 1:
            raise ValueError("a turn gives one of question, answer or approval")
        return self


class SubAgent(BaseModel):
    """A sub-agent the task's agent may call (``registry.register_agent``), on the task's model, with built-in tools
    reading the suite's ``root`` and searching its ``documents`` (directories of the suite)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str
    tools: list[str] | None = Field(default=None, description="built-in names (None: all that root and documents allow)")
    root: str | None = Field(default="docs", description="the file tools' root (None: no file tools)")
    documents: str | None = Field(default=None, description="what search_documents searches (None: no search)")
    config: dict[str, Any] = Field(default_factory=dict, description="the sub-agent's AgentConfig options")


def is_spec(name: str) -> bool:
    """'module:attribute' rather than a built-in tool's name."""
    module, sep, attribute = name.partition(":")
    return bool(sep) and all(part.isidentifier() for part in [*module.split("."), attribute])


class Task(Outcome):
    """One task of a suite: its first question with what must come of it (``expect``, ``expected_reason``, ``ran``,
    ``waiting``), then the turns after it (``then``) on the same thread, driven as ``driver`` says."""

    id: str
    category: str
    question: str
    tools: list[str] = Field(
        default_factory=list, description="built-in names, or 'module:attribute' naming a tool or a list of tools"
    )
    fault: Fault | None = None
    config: dict[str, Any] = Field(
        default_factory=dict, description="AgentConfig options for this task (the served graph's run context)"
    )
    then: list[Turn] = Field(default_factory=list, description="the turns after the first, in order")
    driver: Literal["agent", "graph", "served", "cli", "chat"] = Field(
        default="agent",
        description="agent: ReActAgent.run and resume; graph: agent.graph.invoke with chat messages; served: the "
        "served graph (reactgraph.server.make_graph: its tools, its defaults) with chat messages; cli: "
        "`reactgraph run` (resume) per turn, in-process; chat: one `reactgraph chat` session, a line per question",
    )
    options: list[str] = Field(default_factory=list, description="cli, chat: the command's options (--tools a,b ...)")
    interactive: bool = Field(
        default=False,
        description="agent, graph: the product's defaults, as a user's run has them (ask_user offered), not the eval's "
        "non-interactive ones (served, cli and chat tasks always run so)",
    )
    subagents: list[SubAgent] = Field(default_factory=list)
    middleware: str | None = Field(default=None, description="'module:factory' returning a list of middleware")
    reply_checks: list[str] = Field(
        default_factory=list, description="'module:attribute' check functions, run after the run's reply_checks"
    )
    output_schema: str | None = Field(default=None, description="a signature string typing the answer")

    @field_validator("reply_checks")
    @classmethod
    def _specs(cls, names: list[str]) -> list[str]:
        if bad := [n for n in names if not is_spec(n)]:
            raise ValueError(f"not 'module:attribute': {', '.join(bad)}")
        return names

    @model_validator(mode="after")
    def _drivable(self) -> Task:
        if self.driver == "chat" and any(turn.question is None for turn in self.then):
            raise ValueError("a chat task's turns are questions (a chat line each)")
        if self.options and self.driver not in ("cli", "chat"):
            raise ValueError("options are a cli or chat task's")
        if self.driver in ("cli", "chat") and (self.tools or self.subagents or self.middleware or self.reply_checks
                                               or self.output_schema or self.config or self.fault):
            raise ValueError("a cli or chat task is set up by its options alone")
        if self.driver == "served" and (self.tools or self.subagents or self.middleware or self.reply_checks):
            raise ValueError("a served task has the served graph's tools (config 'tools' selects among them)")
        return self

    def turns(self) -> list[Turn]:
        """Every turn, the first included."""
        first = Turn(question=self.question, **self.model_dump(include=set(Outcome.model_fields)))
        return [first, *self.then]


class SuiteError(ValueError):
    """A suite file is missing or invalid; the message names the file and the problem."""


# The suites shipped with reactgraph, by the name `reactgraph eval --suite NAME` takes: the directory under tasks/.
SHIPPED = {"default": "", "walkthrough": "walkthrough"}


def shipped_suite(name: str = "default") -> Path:
    """A suite that ships with reactgraph as package data: its task files, and the files/ and docs/ its tasks'
    tools read (a real directory: a wheel installs as files)."""
    if name not in SHIPPED:
        raise SuiteError(f"no shipped suite {name!r}; the shipped suites: {', '.join(SHIPPED)}")
    return Path(str(resources.files("reactgraph.evaluation") / "tasks")) / SHIPPED[name]


def suite_path(suite: str | Path | None) -> Path:
    """What ``--suite`` names: a shipped suite by name (None: the default one), else a file or directory (a
    directory that has a shipped suite's name is written ``./NAME``)."""
    if suite is None or str(suite) in SHIPPED:
        return shipped_suite(str(suite or "default"))
    return Path(suite)


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
