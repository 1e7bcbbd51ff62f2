"""Argument binding: the inputs a model wrote for a tool -> that tool's named arguments.

Inputs arrive as a JSON object (the fields of a tool's one object input are that input), or as text: ``a=1, b=2``
(named), ``1, 2`` (in the order of the tool's signature), or one whole value for a tool with one input."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from typing import Any

from reactgraph.errors import ErrorKind
from reactgraph.state import Action
from reactgraph.tool_calling.reading import ReadContext, new_id, reject
from reactgraph.tools.specs import ToolSpec, option_tool, unknown_tool


def bind_call(name: str, raw: Any, ctx: ReadContext) -> Action:
    """A call to a known tool (any name, when no tools are known) with its arguments, or a rejection."""
    if not ctx.tools:
        args = raw if isinstance(raw, dict) else {"input": raw}
        return {"id": new_id(), "tool": name.strip(), "args": args}
    spec = ctx.find(name)
    if spec is None and (option := option_tool(name, raw, ctx.tools)):  # count(text=...) for text(operation="count")
        spec, param, value = option
        raw = {**raw, param: value}
    if spec is None:  # rejected, with the name and inputs the model gave: the trace shows what it asked for
        rejected = reject(ErrorKind.TOOL_NOT_FOUND, unknown_tool(name.strip(), ctx.tools), ctx)
        return rejected | {"tool": name.strip(), "args": raw if isinstance(raw, dict) else {"input": raw}}
    if isinstance(raw, str) and (named := named_inputs(raw, spec.params)):
        raw = named
    if isinstance(raw, dict):
        args = fields_as_object(raw, spec) or raw
    elif isinstance(raw, str) and len(spec.params) > 1 and spec.takes_positionally(parts := positional_inputs(raw)):
        args = dict(zip(spec.params, parts))  # tool[a, b] in the order the prompt's signature lists them
    elif len(spec.params) == 1 or len(spec.required) == 1:
        param = spec.required[0] if spec.required else spec.params[0]
        args = {param: unquote(raw.strip()) if isinstance(raw, str) else raw}
    elif not spec.params:
        args = {}
    elif isinstance(raw, str) and not spec.required and len(parts := positional_inputs(raw)) <= 1:
        args = dict(zip(spec.params, parts))  # no input, or the first one, of a tool whose inputs are all optional
    else:
        return reject(ErrorKind.INVALID_PARAMETERS, f"{spec.name} takes {', '.join(spec.params)}: give them as a JSON object", ctx)
    if missing := [p for p in spec.required if p not in args or args[p] in ("", None)]:
        problem = f"{spec.name} needs {', '.join(missing)} (got {json.dumps(args, default=str)})"
        if spec.example:
            problem += f"; its one input, whole, as in {json.dumps({spec.params[0]: spec.example})}"
        return reject(ErrorKind.INVALID_PARAMETERS, problem, ctx)
    return {"id": new_id(), "tool": spec.name, "args": args}


def fields_as_object(raw: dict[str, Any], spec: ToolSpec) -> dict[str, Any] | None:
    """Inputs written as the fields of a tool's one object input -> that input: ``f(mode="COOL")`` for ``f(body)``,
    ``body`` an object with a ``mode`` field, is ``{"body": {"mode": "COOL"}}``. None unless every input the model
    wrote is a field the object's schema names."""
    if len(spec.params) != 1 or spec.types[:1] != ("object",) or not raw or spec.params[0] in raw:
        return None
    fields = json.loads(spec.schema)["properties"][spec.params[0]].get("properties") or {}
    return {spec.params[0]: raw} if fields and set(raw) <= set(fields) else None


def named_inputs(raw: str, params: Sequence[str]) -> dict[str, str] | None:
    """``old=80, new=92`` (or ``old: 80``) -> ``{"old": "80", "new": "92"}`` when every input is named
    with one of ``params``; a tool with one input takes the rest of the text whole (commas and all)."""
    if len(params) == 1:
        match = re.fullmatch(rf"\s*{re.escape(params[0])}\s*[=:]\s*(.*?)\s*", raw, re.DOTALL)
        return {params[0]: unquote(match.group(1))} if match else None
    names = "|".join(re.escape(p) for p in params)
    parts = re.split(rf",\s*(?=(?:{names})\s*[=:])", raw.strip())  # a comma inside a value stays
    pairs = [re.fullmatch(r"(\w+)\s*[=:]\s*(.*)", part.strip(), re.DOTALL) for part in parts]
    named = [m for m in pairs if m and m.group(1) in params]
    if not pairs or len(named) < len(pairs):
        return None
    return {m.group(1): unquote(m.group(2).strip()) for m in named}


def positional_inputs(raw: str) -> list[str]:
    """``a, "b, c", d`` -> ``["a", "b, c", "d"]``: comma-separated inputs, double quotes respected."""
    try:
        row = next(csv.reader([raw], skipinitialspace=True), [])
    except csv.Error:
        return []
    return [unquote(value.strip()) for value in row]


def unquote(value: str) -> str:
    """``"x"`` -> ``x`` when the whole value is one quoted string (``"a" or "b"`` stays as it is)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" and value[0] not in value[1:-1]:
        return value[1:-1]
    return value
