"""Tool calls written into a reply's text: JSON objects (bare, fenced, in ``<tool_call>`` tags, several
at once, with single quotes, trailing commas or Python literals), Python-style calls
(``search(query="x")``) of a known tool, and an object of arguments after prose that names the tool. The JSON format reads replies with this; the native and
text formats use it to recover calls a model wrote as text."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.utils.json import parse_partial_json

from reactgraph.errors import ErrorKind
from reactgraph.state import Action
from reactgraph.tool_calling._binding import bind_call
from reactgraph.tool_calling._described import named_arguments
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, reject
from reactgraph.tools.specs import ToolSpec

FINISH_VERBS = ("finish", "final_answer", "final answer")
NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
ARGS_KEYS = ("arguments", "args", "parameters", "input", "tool_input", "action_input")
TAGGED = re.compile(r"<(tool_call|function_call|tool_use|tools)>(.*?)(?:</\1>|$)", re.DOTALL | re.IGNORECASE)
FENCED = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
CALL_SHAPE = re.compile(r"""[{,]\s*["']?(name|tool|tool_name|function)["']?\s*:""")


def read_json_calls(text: str, ctx: ReadContext, *, inline: bool = True) -> ParsedReply | None:
    """Tool calls written as JSON in the text; None when there is none. Blocks are looked for in
    tags, then in fences, then bare; the first of these that holds a call wins. The thought is the
    text before the first call (what a model writes after its call is an invented result), without
    tool definitions it copied from its prompt. ``inline=False``: a block that starts inside a line
    of prose is quoted, not a call (only blocks that start their line count)."""
    broken = False
    for blocks in _block_tiers(text, ctx):
        actions: list[Action] = []
        first = len(text)
        for block, whole, start in blocks:
            if not inline and text[text.rfind("\n", 0, start) + 1 : start].strip():
                continue
            found = calls_in_block(block.strip(), ctx)
            if found is None and (spec := named_arguments(text[:start], loads_lenient(block.strip()), ctx)):
                found = [bind_call(spec.name, loads_lenient(block.strip()), ctx)]  # "I will use `tool`. The arguments are: {...}"
            if found is None:
                unreadable = loads_lenient(block.strip()) is None
                broken = broken or (unreadable and (bool(CALL_SHAPE.search(block)) or whole.startswith("<")))
                continue
            first = min(first, start)
            if isinstance(found, str):
                return ParsedReply(thought=_thought_before(text, first), answer=found)
            actions.extend(found)
        if actions:
            return ParsedReply(thought=_thought_before(text, first), actions=actions, source="json")
    if broken or (inline and CALL_SHAPE.search(text) and text.count("{") > text.count("}")):
        problem = "your tool call is not valid JSON (broken or cut off)"
        return ParsedReply(thought=text, actions=[reject(ErrorKind.MALFORMED_OUTPUT, problem, ctx)], source="json")
    return None


def _block_tiers(text: str, ctx: ReadContext) -> list[list[tuple[str, str, int]]]:
    """Candidate blocks as (block text, the span it came from, where that starts): tagged, fenced,
    then bare spans and Python-style call lines."""
    tagged = [(m.group(2), m.group(0), m.start()) for m in TAGGED.finditer(text)]
    fenced = [(m.group(2), m.group(0), m.start()) for m in FENCED.finditer(text) if m.group(2).strip()]
    bare = [(text[a:b], text[a:b], a) for a, b in span_bounds(text)]
    at = 0
    for line in text.splitlines(keepends=True):
        if python_call(line.strip(), ctx) is not None:
            bare.append((line, line, at))
        at += len(line)
    return [tier for tier in (tagged, fenced, bare) if tier]


def _thought_before(text: str, end: int) -> str:
    """The reasoning before the first call, without copied tool definitions and call tags; its lines
    kept (a success phrase counts at the start of one), their spacing collapsed."""
    before = re.sub(r"<tools>.*?(</tools>|$)", " ", text[:end], flags=re.DOTALL | re.IGNORECASE)
    for span in bracketed_spans(before):
        if _is_definition(loads_lenient(span)):
            before = before.replace(span, " ")
    before = re.sub(r"</?(tool_call|function_call|tool_use|tools|response)>|```\w*", " ", before)
    return "\n".join(" ".join(line.split()) for line in before.splitlines() if line.strip())


def _is_definition(value: Any) -> bool:
    """A tool definition (a JSON schema of arguments), as models copy them from their prompt: not a call."""
    if not isinstance(value, dict):
        return False
    inner: dict[str, Any] = value["function"] if isinstance(value.get("function"), dict) else value
    schema = inner.get("parameters")
    return "arguments" not in inner and isinstance(schema, dict) and ("properties" in schema or schema.get("type") == "object")


def calls_in_block(block: str, ctx: ReadContext) -> list[Action] | str | None:
    """The calls in one block (a JSON object, a list of them, or a Python-style call), or the answer
    of a ``{"name": "final_answer", ...}`` object; None if the block holds no call."""
    if (call := python_call(block, ctx)) is not None:
        return [call]
    value = loads_lenient(block)
    items = value if isinstance(value, list) else [value]
    calls = [_call_from_object(item, ctx) for item in items if isinstance(item, dict)]
    if (answer := next((c for c in calls if isinstance(c, str)), None)) is not None:
        return answer
    return [c for c in calls if isinstance(c, dict)] or None


def _call_from_object(obj: dict[str, Any], ctx: ReadContext) -> Action | str | None:
    """{"name": ..., "arguments": {...}} and its common variants (OpenAI's nested "function", "tool",
    "args", LangChain's "action"/"action_input"); a finish call gives its answer as a string."""
    if _is_definition(obj):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
    has_args = any(k in obj for k in ARGS_KEYS)
    if name is None or not (has_args or ctx.find(name)):
        return None  # plain data, not a call
    raw: Any = next((obj[k] for k in ARGS_KEYS if k in obj), {})
    if isinstance(raw, str) and raw.strip().startswith(("{", "[")) and (decoded := loads_lenient(raw)) is not None:
        raw = decoded
    if name.strip().lower() in FINISH_VERBS and ctx.find(name) is None:
        values = list(raw.values()) if isinstance(raw, dict) else [raw]
        return str(values[0]).strip() if values else ""
    return bind_call(name, raw, ctx)


def python_call(text: str, ctx: ReadContext) -> Action | None:
    """``tool(a, key=value)`` with literal arguments, when ``tool`` is a known tool; else None."""
    match = re.fullmatch(r"(\w+)\s*\((.*)\)", text, re.DOTALL)
    if not match or (spec := ctx.find(match.group(1))) is None:
        return None
    try:
        call = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError):
        call = None
    return call_of_node(call, spec, text, ctx)


def call_of_node(call: ast.expr | None, spec: ToolSpec, text: str, ctx: ReadContext) -> Action:
    """The parsed Python call ``call`` of the tool ``spec`` (its literal arguments bound to the tool's inputs), or a
    rejection quoting ``text`` when it is no call of literals."""
    problem = reject(ErrorKind.MALFORMED_OUTPUT, f"could not read the call {text[:200]!r} (use literal values)", ctx)
    if not isinstance(call, ast.Call):
        return problem
    try:
        positional = [ast.literal_eval(a) for a in call.args]
        named = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return problem
    if len(positional) > len(spec.params):
        return reject(ErrorKind.INVALID_PARAMETERS, f"{spec.name} takes {len(spec.params)} input(s), got {len(positional)}", ctx)
    return bind_call(spec.name, dict(zip(spec.params, positional, strict=False)) | named, ctx)


def loads_lenient(text: str) -> Any:
    """JSON as small models write it: strict JSON, else without trailing commas, else with doubled
    outer braces undone (``{{...}}``, copied from escaped prompt templates), else with up to
    MAX_MISSING_CLOSERS closing brackets added (langchain-core's ``parse_partial_json``) when it ends
    with a closed object or list — only the outer closers are missing; a block cut anywhere else (in
    a string, after a comma, the reply's output cap) would be a guess — else a Python literal (single
    quotes, True/None). None when it is none of these."""
    candidates = [text, re.sub(r",\s*([}\]])", r"\1", text)]
    if text.startswith("{{") and text.endswith("}}"):
        candidates.append(text[1:-1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            pass
    if candidates[1].rstrip().endswith(("}", "]")) and 0 < _missing_closers(candidates[1]) <= MAX_MISSING_CLOSERS:
        try:
            return parse_partial_json(candidates[1])
        except (ValueError, RecursionError):
            pass
    pythonic = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", candidates[1])))
    try:
        return ast.literal_eval(pythonic)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


MAX_MISSING_CLOSERS = 3  # a model that stops a bracket or two early; deeper is no call


def _missing_closers(text: str) -> int:
    """How many brackets ``text`` leaves open at its end; -1 when it stops inside a string."""
    inside = escaped = False
    depth = 0
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
        elif not inside and char in "{[":
            depth += 1
        elif not inside and char in "}]":
            depth -= 1
    return -1 if inside else depth


def bracketed_spans(text: str) -> list[str]:
    """Top-level ``{...}`` / ``[...]`` spans of ``text`` (quotes respected); an unclosed one runs to the end."""
    return [text[start:end] for start, end in span_bounds(text)]


CLOSERS = re.compile(r"(?:[ \t]*(?:```|</tool_call>|</?tools?>)[ \t]*\n?)*")


def through_last_call(text: str, tools: Sequence[str]) -> str:
    """``text`` up to the end of its last JSON block that names one of ``tools`` (with the line's
    rest and closing fences or tags): what a model writes after its call is an invented result, and
    shown back, the model would read it as the tool's. ``text`` whole when no block names a tool."""
    names = [f'"{name}"' for name in tools] + [f"'{name}'" for name in tools]
    ends = [b for a, b in span_bounds(text) if any(name in text[a:b] for name in names)]
    if not ends:
        return text
    end = text.find("\n", ends[-1])
    end = len(text) if end < 0 else end + 1
    closers = CLOSERS.match(text, end)  # it matches the empty string too
    return (text[:end] + (closers.group(0) if closers else "")).rstrip()


def span_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of each of ``bracketed_spans``: objects, and lists that look like they hold a call."""
    bounds, depth, start, quote, escaped = [], 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            escaped, quote = (not escaped and ch == "\\"), ("" if ch == quote and not escaped else quote)
            continue
        if ch in "\"'" and depth and (ch == '"' or not text[i - 1 : i].isalnum()):
            quote = ch
        elif ch in "{[":
            depth, start = depth + 1, (i if depth == 0 else start)
        elif ch in "}]" and depth:
            depth -= 1
            if depth == 0:
                bounds.append((start, i + 1))
    if depth and start >= 0:
        bounds.append((start, len(text)))
    return [(a, b) for a, b in bounds if text[a] == "{" or CALL_SHAPE.search(text, a, b)]
