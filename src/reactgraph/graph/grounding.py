"""Calculations made too early: a call of a built-in calculation tool (the calculator, the area and percent tools)
on numbers that neither the question nor any tool result so far holds, made in the same reply as a call that looks
something up (an offered tool whose arguments have no number: a search, a file read; a question to the user is
none). A small model often writes the lookup and the arithmetic on its result together, the arithmetic on numbers
it guessed (``search_documents(query=...)`` beside ``calculator(expression="10 * 50")``): such a call is not run, and
its observation asks for it again once the lookup's result is there, with the numbers it gives. Other tools' calls
are never held back: a number among their arguments may be the user's or the model's own choice (a die's sides)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import numbers_in
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, runs
from reactgraph.tools.builtin import BUILTINS

CALCULATIONS = frozenset(name for name, builtin in BUILTINS.items() if builtin.category == "basic")
"""The built-in tools that compute from the numbers they are given."""
PLAIN = frozenset({Decimal(0), Decimal(1)})
"""Numbers any call may use without having read them anywhere."""


def known_numbers(state: Mapping[str, Any]) -> set[Decimal]:
    """The numbers of the question and of every tool result of the run so far."""
    texts = [state.get("question") or ""]
    texts += [o.get("content") or "" for step in state.get("steps") or [] for o in step.get("observations") or []
              if o.get("status") == "ok"]
    return {n for text in texts for n in numbers_in(text)}


def premature(actions: Sequence[Action], known: set[Decimal], offered: set[str]) -> list[Action]:
    """``actions``, each calculation whose numbers are not all ``known`` turned into a premature_call rejection
    when another call of the same reply is a lookup (a call of an ``offered`` tool with no number in its arguments)."""
    lookable = offered - {ASK_USER}
    lookups = [a["tool"] for a in actions if runs(a) and a["tool"] in lookable and next(_numbers(a.get("args")), None) is None]
    if not lookups:
        return list(actions)
    out = []
    for action in actions:
        calculation = runs(action) and action["tool"] in CALCULATIONS
        guessed = sorted({n for n in _numbers(action.get("args")) if n not in known and n not in PLAIN}) if calculation else []
        if guessed:
            problem = prompts.PREMATURE_CALL.format(
                tool=action["tool"], numbers=", ".join(str(n) for n in guessed), lookups=", ".join(sorted(set(lookups)))
            )
            action = {**action, "rejection_kind": ErrorKind.PREMATURE_CALL.value,
                      "rejection": error_text(ErrorKind.PREMATURE_CALL, problem=problem)}
        out.append(action)
    return out


def _numbers(value: Any) -> Iterable[Decimal]:
    """The numbers in an argument value: numbers themselves and the numbers written in strings, at any depth."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        yield Decimal(str(value))
    elif isinstance(value, str):
        yield from numbers_in(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _numbers(item)
