"""Answer checkers: exact, numeric with tolerance, contains, none_of, and small named checks."""

from __future__ import annotations

import re
from collections.abc import Callable

from reactgraph.answers.confidence import numbers_in
from reactgraph.evaluation.suite import Expectation


def _normal(text: str) -> str:
    return " ".join(text.lower().strip().strip(".").split())


def _is_refusal(answer: str) -> bool:
    """The answer declines instead of inventing a result."""
    return bool(re.search(r"cannot|can't|unable|not possible|no (tool|way)|don't have|do not have", answer, re.IGNORECASE))


CHECKS: dict[str, Callable[[str], bool]] = {"refusal": _is_refusal}


def check_answer(expect: Expectation | None, answer: str | None) -> bool:
    """True when ``answer`` meets ``expect`` (no expectation: any answer, or none, is right)."""
    if expect is None:
        return True
    if answer is None:
        return False
    if expect.kind == "exact":
        return _normal(answer) == _normal(str(expect.value))
    if expect.kind == "contains":
        wanted = expect.value if isinstance(expect.value, list) else [expect.value]
        return all(str(w).lower() in answer.lower() for w in wanted)
    if expect.kind == "none_of":
        return not any(str(w).lower() in answer.lower() for w in expect.value)
    if expect.kind == "numeric":
        target = float(expect.value)
        return any(abs(float(n) - target) <= expect.tolerance for n in numbers_in(answer))
    if expect.check not in CHECKS:
        raise ValueError(f"unknown check {expect.check!r}; known: {', '.join(CHECKS)}")
    return CHECKS[expect.check](answer)
