"""Calls a reply talks about instead of making: the tool named in prose, its arguments beside it.

Small models (Qwen2.5-Coder-1.5B on BFCL, recorded) announce a call in prose and give only its arguments as
JSON ("I will use the `Movies_1_FindMovies` function. The arguments are: ```json {...}```"): ``named_arguments``
reads that as the call. Or they list the calls they would make ("1. **FindEvents** function: - City: New York")
and stop: ``described_calls`` tells the reader that such a reply is no answer, so the model is asked to make the
call (or to answer) instead of the list being taken as the final answer.

A tool counts as named by its name, that name spelled out in words when it has three parts or more
(``protein_info_get_sequence_and_3D``: "Protein Info Get Sequence And 3D"), or the last part of a long API-style
name when that part is a CamelCase word of its own (``Events_3_FindEvents``: ``FindEvents``); an input, by its name or that name with spaces for
underscores (``Event Type: Music``)."""

from __future__ import annotations

import re
from typing import Any

from reactgraph.errors import ErrorKind
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, reject
from reactgraph.tools.specs import ToolSpec

MIN_SPELLED_PARTS = 3  # "Protein Info Get Sequence And 3D" names protein_info_get_sequence_and_3D; "GitHub star" is no name
CAMEL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
# "- City: New York", "* **city**: New York", "2. `event_type` = Music": a parameter given a value, in a list or on a line
ITEM = r"(?im)^[ \t]*(?:[-*+•]|\d+[.)])?[ \t]*(?:\*\*|`|\*)?{name}(?:\*\*|`|\*)?[ \t]*(?:\*\*)?[ \t]*[:=][ \t]*\S"


def names_of(spec: ToolSpec) -> list[str]:
    """The ways a reply may name ``spec``."""
    names = [spec.name]
    parts = [p for p in re.split(r"[_.]", spec.name) if p]
    if len(parts) >= MIN_SPELLED_PARTS:
        names.append(" ".join(parts))
    last = parts[-1] if parts else spec.name
    if last != spec.name and CAMEL.fullmatch(last):
        names.append(last)
    return list(dict.fromkeys(names))


def last_named(text: str, ctx: ReadContext) -> ToolSpec | None:
    """The tool on offer that ``text`` names last (None when it names none)."""
    best: tuple[int, ToolSpec] | None = None
    for spec in ctx.tools:
        for name in names_of(spec):
            for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w])", text, re.IGNORECASE):
                if best is None or match.start() > best[0]:
                    best = (match.start(), spec)
    return best[1] if best else None


def named_arguments(before: str, value: Any, ctx: ReadContext) -> ToolSpec | None:
    """The tool a JSON object of arguments is for, when the prose ``before`` it names that tool last and the
    object's keys are all among the tool's inputs; else None."""
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) for k in value):
        return None
    spec = last_named(before, ctx)
    if spec is None or not set(value) <= set(spec.params):
        return None
    return spec


def described_calls(text: str, ctx: ReadContext) -> list[str]:
    """The tools on offer that ``text`` names and gives values for (each of its required inputs, at least one
    input, as a ``name: value`` line or list item), in the order of the tool list."""
    described = []
    for spec in ctx.tools:
        if not spec.params or not any(re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text, re.IGNORECASE) for n in names_of(spec)):
            continue
        given = [p for p in spec.params if _item(p, text)]
        if given and all(p in given for p in spec.required):
            described.append(spec.name)
    return described


def _item(param: str, text: str) -> bool:
    spelled = "|".join(re.escape(s) for s in dict.fromkeys([param, param.replace("_", " ")]))
    return re.search(ITEM.format(name=f"(?:{spelled})"), text) is not None


def answer_unless_described(text: str, ctx: ReadContext) -> ParsedReply:
    """A reply without any call: its text is the answer, unless it describes calls instead of making them (then a
    rejection that asks for the call, the reply kept as ``unanswered`` so that a give-up still ends the run)."""
    if tools := described_calls(text, ctx):
        problem = f"your reply describes a call to {', '.join(tools)} instead of making it; make the call, or answer"
        return ParsedReply(thought=text, actions=[reject(ErrorKind.MISSING_ACTION, problem, ctx)], unanswered=text)
    return ParsedReply(thought=text, answer=text)
