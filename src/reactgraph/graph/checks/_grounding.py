"""Calculations made too early: a calculation on numbers that neither the question nor any tool result so far holds,
made in the same reply as a call that looks something up (an offered tool whose arguments have no number: a search,
a file read, a sub-agent's task; a question to the user is none). A calculation is a call of a built-in calculation
tool (the calculator, the area and percent tools) or any call whose every argument is a number or an arithmetic
expression (a user's ``multiply(a=5, b=3)``). A small model often writes the lookup and the arithmetic on its result
together, the arithmetic on numbers it guessed (``search_documents(query=...)`` beside ``calculator(expression="10 *
50")``): such a call is not run, and its observation asks for it again once the lookup's result is there, with the
numbers it gives. A call with any other argument (a name, a unit) is never held back, and a call of your own tool
held back once runs when made again (a die's sides are the model's own choice). A built-in calculation beside a
lookup that writes names where numbers go (``calculator(expression="Revenue - Costs")``) waits the same way. Once a
run, a calculation made with no lookup beside it, before an offered lookup has run, waits when one of its numbers is
not one arithmetic step from the known ones (the model wrote "let's assume the researcher returns 5", then called
``multiply(a=5, b=3)``). The reply check: ``premature_call``."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import PLAIN, is_calculation, numbers_in
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.checks._base import Reply, Rewrite, acted_before, rewritten
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, runs
from reactgraph.tools.builtin import BUILTINS
from reactgraph.tools.builtin.calculator import CONSTANTS, FUNCTIONS
from reactgraph.tools.execution import call_key
from reactgraph.tools.specs import ToolSpec

CALCULATIONS = frozenset(name for name, builtin in BUILTINS.items() if builtin.category == "basic")
"""The built-in tools that compute from the numbers they are given."""
NUMERIC = frozenset({"integer", "number", "boolean"})
"""The JSON-schema types of the inputs a calculation takes."""
NAMED = 3
"""At most this many lookups not run yet are named to the model."""


def known_numbers(state: Mapping[str, Any]) -> set[Decimal]:
    """The numbers of the question, of the thread's earlier turns (questions and answers) and of every tool result of
    the run so far."""
    turns = [str(t.get(k) or "") for t in state.get("turns") or [] for k in ("question", "answer")]
    return {n for text in [state.get("question") or "", *turns, *results(state)] for n in numbers_in(text)}


def results(state: Mapping[str, Any]) -> list[str]:
    """The text of every tool result of the run so far (the ok observations)."""
    return [o.get("content") or "" for step in state.get("steps") or [] for o in step.get("observations") or []
            if o.get("status") == "ok"]


def lookup_tools(specs: Iterable[ToolSpec]) -> frozenset[str]:
    """The offered tools that look something up: not a built-in calculation nor ``ask_user``, taking no input or one
    that is not a number or a yes/no (a query, a path, a sub-agent's task)."""
    return frozenset(spec.name for spec in specs if spec.name not in CALCULATIONS and spec.name != ASK_USER
                     and (not spec.types or any(kind not in NUMERIC for kind in spec.types)))


def premature(actions: Sequence[Action], known: set[Decimal], lookable: frozenset[str], held: frozenset[str] = frozenset(),
              unused: Sequence[str] = ()) -> list[Action]:
    """``actions``, each calculation whose numbers are not all ``known``, or a built-in one that writes names where
    numbers go, turned into a premature_call rejection when another call of the same reply is a lookup (a call of a
    ``lookable`` tool that is no calculation). A call of another tool that was held back before (its ``held_key`` in
    ``held``) runs. With no lookup in the reply, a calculation on a number not one step from the ``known`` ones waits
    once for the lookups not run yet (``unused``)."""
    lookups = [a["tool"] for a in actions if runs(a) and a["tool"] in lookable and not is_calculation(a.get("args") or {})]
    if not lookups and not unused:
        return list(actions)
    out = []
    for action in actions:
        builtin = runs(action) and action["tool"] in CALCULATIONS
        calculation = (builtin and bool(lookups)) or (runs(action) and (builtin or is_calculation(action.get("args") or {}))
                                                      and held_key(action) not in held)
        numbers = set(numbers_of(action.get("args"))) if calculation else set()
        guessed = sorted(n for n in numbers if n not in known and n not in PLAIN and (lookups or not derived(n, known | PLAIN)))
        names = _names(action.get("args")) if builtin and lookups else []
        if guessed or names:
            problem = prompts.PREMATURE_CALL.format(
                tool=action["tool"],
                numbers="on numbers that neither the question nor a tool result holds" if guessed else "on names, not numbers",
                lookups=", ".join(sorted(set(lookups))),
            ) if lookups else prompts.LOOKUP_FIRST.format(tool=action["tool"], lookups=", ".join(unused[:NAMED]))
            action = {**action, "rejection_kind": ErrorKind.PREMATURE_CALL.value,
                      "rejection": error_text(ErrorKind.PREMATURE_CALL, problem=problem)}
        out.append(action)
    return out


def derived(number: Decimal, known: set[Decimal]) -> bool:
    """Whether ``number`` is one sum, difference, product, quotient or percentage of two ``known`` numbers."""
    for a in known:
        if number - a in known or a - number in known or number + a in known:
            return True
        if a and (number / a in known or number * a in known or number * 100 / a in known):
            return True
    return False


def premature_call(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """A calculation on guessed numbers (or on names) made beside a lookup, or on numbers from nowhere before the
    offered lookups ran (once a run), is not run (``premature``)."""
    held = held_before(state, ErrorKind.PREMATURE_CALL, ErrorKind.UNFOUNDED_CALL)
    lookable = lookup_tools(reply.tools)
    ran = {a.get("tool") for step in state.get("steps") or [] for a in step.get("actions") or [] if runs(a)}
    unused = [] if acted_before(state, "premature_call") else sorted(lookable - ran)
    known = known_numbers(state) | set(numbers_in(cfg.prompt.system_prompt or ""))
    return rewritten(reply, premature(reply.actions, known, lookable, held, unused))


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
