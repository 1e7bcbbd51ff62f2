"""What a reply check sees (``Reply``) and what it decides (``Accept``, ``SendBack``, ``Stop``, ``Rewrite``).

A check is a function ``(reply, state, config) -> Decision | None`` (sync or async; one that takes fewer
arguments gets the first ones). None, True or ``Accept()`` let the reply pass to the next check; False sends an
answer back with a message naming the check."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from reactgraph.errors import ErrorKind
from reactgraph.state import Action, TerminationReason, TokenCount
from reactgraph.tools.specs import ToolSpec

Structure = Callable[[str], tuple[BaseModel | None, TokenCount | None]]
"""An answer put into the output schema by one call to the model's structured output, and the call's usage."""


@dataclass
class Reply:
    """The model's reply as think read it, with what the turn offered and showed.

    ``kind`` is ``answer`` (a final answer: ``text``), ``give_up`` (the model says it cannot: ``text``) or
    ``calls`` (``actions``; a call the reader could not read is already a rejection, reported instead of run).
    ``why`` says how the reply was read as an answer or a give-up; ``written`` is the reply's own text."""

    kind: Literal["answer", "give_up", "calls"]
    thought: str
    iteration: int
    text: str | None = None
    why: str = ""
    actions: tuple[Action, ...] = ()
    source: str = "none"
    written: str = ""
    tools: tuple[ToolSpec, ...] = ()
    shown: tuple[tuple[str, str], ...] = ()  # (what, text) the prompt showed that is no answer: errors, instructions
    schema: type[BaseModel] | None = None
    structure: Structure | None = None  # None: the format does not use the model's structured output
    calls: list[dict[str, Any]] = field(default_factory=list)  # model calls the checks made (structured output)

    @property
    def answer(self) -> str | None:
        """The final answer, or None for a give-up or calls."""
        return self.text if self.kind == "answer" else None

    @property
    def give_up(self) -> str | None:
        """The give-up, or None for an answer or calls."""
        return self.text if self.kind == "give_up" else None

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools on offer, in order."""
        return [spec.name for spec in self.tools]


@dataclass(frozen=True)
class Accept:
    """Nothing against the reply: the next check judges it. ``output``: the answer read into the output schema."""

    output: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SendBack:
    """The reply is not accepted: the model is shown ``message`` and asked again.

    ``unverified_answer`` (the default) shows the model its answer or give-up as it gave it and counts against
    ``answer_checks`` (past that bound the answer stands); ``non_answer`` / ``empty_reply`` say the reply is no
    answer at all (``max_parse_retries`` bounds those in a row); ``invalid_output``: not the output schema's shape."""

    message: str
    kind: ErrorKind = ErrorKind.UNVERIFIED_ANSWER


@dataclass(frozen=True)
class Stop:
    """The run ends here with ``reason``, ``detail`` and ``answer``."""

    reason: TerminationReason
    detail: str
    answer: str | None = None


@dataclass(frozen=True)
class Rewrite:
    """The reply's calls replaced by ``actions`` (a call refused with its observation, split, or answered); the
    next check judges the new calls."""

    actions: tuple[Action, ...]


Decision = Accept | SendBack | Stop | Rewrite
Check = Callable[..., Decision | bool | None | Awaitable[Decision | bool | None]]


def rewritten(reply: Reply, actions: Sequence[Action]) -> Rewrite | None:
    """``Rewrite(actions)`` when they differ from the reply's calls, else None (the check had nothing to say)."""
    return Rewrite(tuple(actions)) if list(actions) != list(reply.actions) else None


def acted_before(state: Mapping[str, Any], check: str) -> bool:
    """Whether the reply check named ``check`` acted on an earlier reply of the run (a step's ``checks`` names it)."""
    return any(c.get("check") == check for step in state.get("steps") or [] for c in step.get("checks") or [])
