"""Answer checkers: exact, numeric with tolerance, contains, any_of, none_of, a typed answer's fields, and small named
checks; and whether the calls a turn must make ran."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from reactgraph.answers.confidence import numbers_in
from reactgraph.answers.result import ReActStep
from reactgraph.evaluation.suite import Expectation, ExpectedCall


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
    if expect.kind == "any_of":
        return any(str(w).lower() in answer.lower() for w in expect.value)
    if expect.kind == "fields":
        return _fields_match(answer, expect.value, expect.tolerance)
    if expect.kind == "none_of":
        return not any(str(w).lower() in answer.lower() for w in expect.value)
    if expect.kind == "numeric":
        target = float(expect.value)
        return any(abs(float(n) - target) <= expect.tolerance for n in numbers_in(answer))
    if expect.check not in CHECKS:
        raise ValueError(f"unknown check {expect.check!r}; known: {', '.join(CHECKS)}")
    return CHECKS[expect.check](answer)


def _fields_match(answer: str, wanted: dict[str, Any], tolerance: float) -> bool:
    """The typed answer (its JSON text) has each wanted field: a number within ``tolerance``, a text without case, a
    list of such values any one of them."""
    try:
        given = json.loads(answer)
    except json.JSONDecodeError:
        return False
    if not isinstance(given, dict):
        return False

    def same(value: Any, want: Any) -> bool:
        if isinstance(want, list):
            return any(same(value, w) for w in want)
        if isinstance(want, int | float) and not isinstance(want, bool):
            return isinstance(value, int | float) and abs(value - want) <= tolerance
        return str(value).strip().lower() == str(want).strip().lower()

    return all(name in given and same(given[name], want) for name, want in wanted.items())


def missing_calls(wanted: Sequence[ExpectedCall], steps: Sequence[ReActStep]) -> list[ExpectedCall]:
    """The wanted calls that no call of ``steps`` made with a result (an ok observation): the same tool, each wanted
    argument given so (text compared without case and surrounding space, numbers as numbers)."""
    made = [
        (action.tool, action.args)
        for step in steps
        for action in step.actions
        if any(o.call_id == action.id and o.status == "ok" for o in step.observations)
    ]
    return [call for call in wanted if not any(tool == call.tool and _args_match(args, call.args) for tool, args in made)]


def _args_match(given: dict[str, Any], wanted: dict[str, Any]) -> bool:
    def norm(value: Any) -> Any:
        if isinstance(value, str):
            try:
                return float(value.replace(",", ""))
            except ValueError:
                return value.strip().lower()
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

    return all(name in given and norm(given[name]) == norm(want) for name, want in wanted.items())
