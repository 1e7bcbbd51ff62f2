"""Calculations made too early: a calculation on numbers that neither the question nor any tool result so far holds,
made in the same reply as a call that looks something up (an offered tool whose arguments have no number: a search,
a file read, a sub-agent's task; a question to the user is none). A calculation is a call of a built-in calculation
tool (the calculator, the area and percent tools) or any call whose every argument is a number or an arithmetic
expression (a user's ``multiply(a=5, b=3)``). A small model often writes the lookup and the arithmetic on its result
together, the arithmetic on numbers it guessed (``search_documents(query=...)`` beside ``calculator(expression="10 *
50")``): such a call is not run, and its observation asks for it again once the lookup's result is there, with the
numbers it gives. A call with any other argument (a name, a unit) is never held back, and a call of your own tool
held back once runs when made again (a die's sides are the model's own choice). A built-in calculation beside a
lookup that writes names where numbers go (``calculator(expression="Revenue - Costs")``) waits the same way. The
reply check: ``premature_call``."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import PLAIN, is_calculation, numbers_in
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, runs
from reactgraph.tools.builtin import BUILTINS
from reactgraph.tools.builtin.calculator import CONSTANTS, FUNCTIONS
from reactgraph.tools.execution import call_key

CALCULATIONS = frozenset(name for name, builtin in BUILTINS.items() if builtin.category == "basic")
"""The built-in tools that compute from the numbers they are given."""


def known_numbers(state: Mapping[str, Any]) -> set[Decimal]:
    """The numbers of the question and of every tool result of the run so far."""
    return {n for text in [state.get("question") or "", *results(state)] for n in numbers_in(text)}


def results(state: Mapping[str, Any]) -> list[str]:
    """The text of every tool result of the run so far (the ok observations)."""
    return [o.get("content") or "" for step in state.get("steps") or [] for o in step.get("observations") or []
            if o.get("status") == "ok"]


def premature(actions: Sequence[Action], known: set[Decimal], offered: set[str], held: frozenset[str] = frozenset()) -> list[Action]:
    """``actions``, each calculation whose numbers are not all ``known``, or a built-in one that writes names where
    numbers go, turned into a premature_call rejection when another call of the same reply is a lookup (a call of an
    ``offered`` tool, not a built-in calculation, with no number in its arguments). A call of another tool that was
    held back before (its ``held_key`` in ``held``) runs."""
    lookable = offered - {ASK_USER} - CALCULATIONS
    lookups = [a["tool"] for a in actions if runs(a) and a["tool"] in lookable and next(numbers_of(a.get("args")), None) is None]
    if not lookups:
        return list(actions)
    out = []
    for action in actions:
        builtin = runs(action) and action["tool"] in CALCULATIONS
        calculation = builtin or (runs(action) and is_calculation(action.get("args") or {}) and held_key(action) not in held)
        guessed = sorted({n for n in numbers_of(action.get("args")) if n not in known and n not in PLAIN}) if calculation else []
        names = _names(action.get("args")) if builtin else []
        if guessed or names:
            problem = prompts.PREMATURE_CALL.format(
                tool=action["tool"],
                numbers="on numbers that neither the question nor a tool result holds" if guessed else "on names, not numbers",
                lookups=", ".join(sorted(set(lookups))),
            )
            action = {**action, "rejection_kind": ErrorKind.PREMATURE_CALL.value,
                      "rejection": error_text(ErrorKind.PREMATURE_CALL, problem=problem)}
        out.append(action)
    return out


def premature_call(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """A calculation on guessed numbers (or on names) made beside a lookup is not run (``premature``)."""
    if len(reply.actions) < 2:
        return None
    held = held_before(state, ErrorKind.PREMATURE_CALL, ErrorKind.UNFOUNDED_CALL)
    return rewritten(reply, premature(reply.actions, known_numbers(state), set(reply.tool_names), held))


def held_before(state: Mapping[str, Any], *kinds: ErrorKind) -> frozenset[str]:
    """The ``call_key`` (the tool cache's) of each call of the run that a reply check held back with one of ``kinds``."""
    held = {kind.value for kind in kinds}
    ids = {o.get("call_id") for step in state.get("steps") or [] for o in step.get("observations") or [] if o.get("error_kind") in held}
    return frozenset(held_key(a) for step in state.get("steps") or [] for a in step.get("actions") or [] if a.get("id") in ids)


def held_key(action: Mapping[str, Any]) -> str:
    """``call_key`` of an action: the same call made again has the same key."""
    return call_key(action.get("tool") or "", action.get("args") or {})


def _names(value: Any) -> list[str]:
    """The names an argument's strings use where numbers go (not the calculator's functions and constants), in order."""
    found: list[str] = []
    for text in _strings(value):
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        found += [n.id for n in ast.walk(tree)
                  if isinstance(n, ast.Name) and id(n) not in called and n.id not in CONSTANTS and n.id not in FUNCTIONS]
    return list(dict.fromkeys(found))


def _strings(value: Any) -> Iterable[str]:
    """The strings in an argument value, at any depth."""
    return (leaf for leaf in leaves(value) if isinstance(leaf, str))


def numbers_of(value: Any) -> Iterator[Decimal]:
    """The numbers in an argument value: numbers themselves and the numbers written in strings, at any depth."""
    for leaf in leaves(value):
        if isinstance(leaf, str):
            yield from numbers_in(leaf)
        elif isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
            yield Decimal(str(leaf))


def leaves(value: Any) -> Iterable[Any]:
    """The values in an argument value that are not mappings, lists or tuples, at any depth."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaves(item)
    else:
        yield value
