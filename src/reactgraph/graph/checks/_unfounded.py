"""Calls on nothing the run was given (``unfounded_call``): a call none of whose values the question, the earlier
turns, a tool result or your system prompt holds. A small model handed tools that do not fit the question calls the
nearest one on values it makes up: ``calculate_litigation_cost(length_in_days=7, complexity="low")`` for "How many
calories does an apple have?" (BFCL's irrelevance entries). Such a call is not run the first time: the model is told
that nothing it was given holds those values, and asked to call again with the question's values or to answer
without a tool. Made again, the call runs (a value the model rightly worked out, ``add(a=42, b=8)`` for "6*7 + 2*4").
A reply with a founded call is left alone: that call's result may give the others' values. Values that say nothing
are left out: yes/no, 0 and 1, a string without a letter or digit, a parameter's default and its allowed choices
(``type="delete"``); a string counts as given when one of its words is in the given text (``"./config/app.ini"`` for
"config/app.ini")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import PLAIN, numbers_in
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.checks._base import Reply, Rewrite, acted_before, rewritten
from reactgraph.graph.checks._grounding import held_before, held_key, leaves, numbers_of, results
from reactgraph.graph.checks._thousands import misread
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import runs
from reactgraph.tools.specs import ToolSpec

WORD = re.compile(r"[^\W_]{3,}")
"""A word of a string value that may show where it came from (three letters or more)."""
STEM = 6
"""A word longer than this counts as given by its first ``STEM`` letters (another form of the same word)."""
ALNUM = re.compile(r"[^\W_]")
"""A string without a letter or a digit (``"./"``, ``" "``) says nothing of where it came from."""


def unfounded_call(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """The reply's calls, when none of them uses a telling value the given text holds, are not run, unless a check
    held them back before (or the user was asked about guessed values: ``guessed_values``). A reply with one founded
    call is left alone: its result may give the others' values (``multiply(6, 7)`` beside ``add(42, 8)``)."""
    if not reply.actions or acted_before(state, "guessed_values"):
        return None
    given = given_text(state, cfg)
    known = given_numbers(given, state)
    specs = {spec.name: spec for spec in reply.tools}
    held = held_before(state, ErrorKind.UNFOUNDED_CALL, ErrorKind.PREMATURE_CALL)
    unfounded: dict[int, list[Any]] = {}
    for i, action in enumerate(reply.actions):
        spec = specs.get(action.get("tool") or "")
        if not runs(action) or spec is None or action["tool"] == ASK_USER:
            continue
        values = telling_values(action.get("args") or {}, spec)
        if not values or any(is_given(v, given, known) for v in values):
            return None
        if held_key(action) not in held:
            unfounded[i] = values
    out = []
    for i, action in enumerate(reply.actions):
        if i in unfounded:
            shown = ", ".join(json.dumps(v, default=str) for v in unfounded[i][:4])
            problem = prompts.UNFOUNDED_CALL.format(tool=action["tool"], values=shown)
            action = {**action, "rejection_kind": ErrorKind.UNFOUNDED_CALL.value,
                      "rejection": error_text(ErrorKind.UNFOUNDED_CALL, problem=problem)}
        out.append(action)
    return rewritten(reply, out)


def given_text(state: Mapping[str, Any], cfg: AgentConfig) -> str:
    """What the run was given, lowercased: the question, the earlier turns (questions and answers), every tool result,
    and your system prompt (an account number it names)."""
    turns = [str(t.get(k) or "") for t in state.get("turns") or [] for k in ("question", "answer")]
    return "\n".join([state.get("question") or "", *turns, *results(state), cfg.prompt.system_prompt or ""]).lower()


def given_numbers(given: str, state: Mapping[str, Any]) -> set[Decimal]:
    """The numbers of ``given`` (``given_text``), and those the question groups with dots (2340 for "2.340")."""
    return set(numbers_in(given)) | {Decimal(n) for n in misread(state.get("question") or "").values()}


def telling_values(args: Mapping[str, Any], spec: ToolSpec) -> list[Any]:
    """The values of ``args`` that may show where they came from: not yes/no, 0 or 1, a string without a letter or a
    digit (``path="./"``: the suite's impossible-file listed the root so, held back twice), nor a parameter's default
    or one of its allowed choices."""
    free = _free(spec)
    out: list[Any] = []
    for name, value in args.items():
        if value in free.get(name, ()):
            continue
        out += [v for v in leaves(value) if not (v is None or isinstance(v, bool) or (isinstance(v, str) and not ALNUM.search(v)))
                and not (isinstance(v, (int, float)) and Decimal(str(v)) in PLAIN)]
    return out


def is_given(value: Any, given: str, known: set[Decimal]) -> bool:
    """Whether ``given`` holds ``value``: a number as a number (a share as its percent too: 0.25 for "25%", in a string
    as well), a string whole, by one of its numbers, or by one of its words (a long word by its first six letters:
    ``Scientology`` for "Scientologist", ``airports`` for "airport")."""
    if isinstance(value, (int, float)):
        return is_known(Decimal(str(value)), known)
    text = str(value).lower()
    return text in given or mentions(WORD.findall(text), given) or any(is_known(n, known) for n in numbers_of(text))


def mentions(words: list[str], given: str) -> bool:
    """Whether ``given`` holds one of ``words`` (lowercase), a long one by its first ``STEM`` letters."""
    return any(w in given or (len(w) > STEM and w[:STEM] in given) for w in words)


def is_known(number: Decimal, known: set[Decimal]) -> bool:
    """Whether ``number`` is ``known``, or is a share whose percent is (0.25 for "25%")."""
    return number in known or number * 100 in known


def parameter_schemas(spec: ToolSpec) -> dict[str, Mapping[str, Any]]:
    """The tool's parameters' JSON schemas by name ({} when its schema cannot be read)."""
    try:
        properties = json.loads(spec.schema or "{}").get("properties") or {}
    except (ValueError, AttributeError):
        return {}
    return {name: schema for name, schema in properties.items() if isinstance(schema, Mapping)}


def _free(spec: ToolSpec) -> dict[str, list[Any]]:
    """Each parameter's values that say nothing of the question: its default and its allowed choices."""
    free: dict[str, list[Any]] = {name: list(values) for name, values in spec.choices}
    for name, schema in parameter_schemas(spec).items():
        free.setdefault(name, [])
        free[name] += [*schema.get("enum", []), *([schema["default"]] if "default" in schema else [])]
    return free
