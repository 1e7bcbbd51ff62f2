"""The fault-injection suite: every case tries one fault and says what happened.

Each module here (``replies``, ``storage``, ``tools``) defines ``CASES``: a list of :class:`Case`.
A case's ``run()`` returns when the agent survived the fault with nothing lost; it raises
:class:`Lost` when the run went on but something was lost or hijacked (data, a file's bytes,
the model's own words); any other exception escaping it is a crash. ``test_faults.py`` runs
every case under pytest; ``benchmarks/robustness.py`` runs them all and reports the counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


class Lost(AssertionError):
    """The agent went on, but lost or let something speak for the model."""


@dataclass(frozen=True)
class Case:
    category: str
    name: str
    run: Callable[[], None]

    @property
    def id(self) -> str:
        return f"{self.category}:{self.name}"


def all_cases() -> list[Case]:
    """Every case of every fault module, in a fixed order."""
    from tests.faults import replies, storage, tools

    return [*replies.CASES, *storage.CASES, *tools.CASES]
