"""The Python format: tools described in the system prompt with their JSON schemas, calls written as one Python
list, ``[tool(a=1, b="x"), other(c=2)]`` (the Berkeley Function Calling Leaderboard's prompt format, which small
models such as Qwen2.5 are trained on), anything else the answer.

A reply is read as that list first (bare or in a code fence; the calls in it may be quoted, or name and arguments
pairs: ``calls_in``), then as the native format reads text (JSON calls,
``Action:`` lines, a lone ``tool(a=1)``). Shown back: the calls as the list, then each result after its call,
``tool(a=1) returned: 2``. Under ``Observation:`` the local model called again with the result as the argument
(``[calculator(expression='10063')]``) in 4 of 5 recorded arithmetic follow-ups; after its call it answered in 5."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from langchain_core.messages import AIMessage

from reactgraph import prompts
from reactgraph.state import Action
from reactgraph.tool_calling._binding import bind_call
from reactgraph.tool_calling._json_calls import JsonFormat
from reactgraph.tool_calling._native import calls_else_answer
from reactgraph.tool_calling.json_blocks import call_of_node
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, keep_written, observed_text, rendered
from reactgraph.tool_calling.tags import Tags, shown_observation
from reactgraph.tools.specs import ToolSpec

FENCE = re.compile(r"^```[ \t]*\w*[ \t]*\n(.*?)\n?```$", re.DOTALL)


class PythonFormat(JsonFormat):
    name = "python"
    tools_header = prompts.PYTHON_TOOLS_HEADER

    def listed(self, spec: ToolSpec) -> dict[str, Any]:
        """A tool as BFCL's prompt lists it: its name, description and the JSON schema of its inputs."""
        return {"name": spec.name, "description": spec.description, "parameters": json.loads(spec.schema or "{}")}

    def expected(self, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
        return prompts.PYTHON_EXPECTED

    def parse(self, reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
        if (actions := call_list(text, ctx)) is not None:
            return ParsedReply(thought="", actions=actions, source="python")
        return calls_else_answer(reply, text, ctx)

    def shown_results(self, step: dict[str, Any], ctx: ReadContext) -> str:
        """Each result after the call that made it (a rejected call's problem as it is)."""
        return "\n".join(
            shown_observation(observed_text(obs, self.name), ctx.tags, f"{rendered(a['tool'], a['args'])} returned" if a["tool"] else ctx.tags.observation)
            for a, obs in zip(step["actions"], step["observations"], strict=False)
        )

    def shown_reply(self, step: dict[str, Any], ctx: ReadContext) -> str:
        """The turn's calls as the list (a rejected one as the model wrote it), else its thought."""
        shown = [rendered(a["tool"], a["args"]) if a["tool"] else a["args"].get("written", "") for a in step["actions"]]
        return "[" + ", ".join(filter(None, shown)) + "]" if any(shown) else step.get("thought", "")


def call_list(text: str, ctx: ReadContext) -> list[Action] | None:
    """The calls of a reply that is one Python list of calls (``calls_in``; a code fence around it allowed); None
    when the reply is anything else. A call whose arguments are not literals, or of a tool not on offer, is a rejection."""
    body = text.strip()
    if fenced := FENCE.fullmatch(body):
        body = fenced.group(1).strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    try:
        value = ast.parse(body, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    if not isinstance(value, ast.List) or not (calls := calls_in(value.elts, ctx)):
        return None
    actions: list[Action] = []
    for call in calls:
        name, written = ast.unparse(call.func), ast.unparse(call)
        if spec := ctx.find(name):
            actions.append(keep_written(call_of_node(call, spec, written, ctx), written))
        else:
            actions.append(bind_call(name, {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}, ctx))
    return actions


def calls_in(items: list[ast.expr], ctx: ReadContext) -> list[ast.Call] | None:
    """The calls a list holds, in the three ways the local model writes them: calls, ``[f(a=1), g(b=2)]``; calls
    of tools on offer quoted as strings, ``["f(a=1)"]`` (several in one string too); name and arguments pairs of tools
    on offer, ``["f", {"a": 1}]`` or ``[["f", {"a": 1}], ["g", {"b": 2}]]``. None (or no call, for an empty list) when
    it holds anything else."""
    if all(isinstance(e, ast.Call) for e in items):
        return [e for e in items if isinstance(e, ast.Call)]
    texts = [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(texts) == len(items):
        quoted = [call for text in texts for call in quoted_calls(text)]
        return quoted if quoted and all(ctx.find(ast.unparse(c.func)) for c in quoted) else None
    if all(isinstance(e, ast.List | ast.Tuple) and len(e.elts) == 2 for e in items):  # [["f", {"a": 1}], ...]
        items = [part for e in items if isinstance(e, ast.List | ast.Tuple) for part in e.elts]
    paired = [paired_call(name, args, ctx) for name, args in zip(items[::2], items[1::2], strict=False)]
    return [c for c in paired if c] if len(items) % 2 == 0 and all(paired) else None


def quoted_calls(text: str) -> list[ast.Call]:
    """The calls one quoted string holds (``f(a=1)`` or ``f(a=1), g(b=2)``); none when it holds anything else."""
    try:
        value = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return []
    items = value.elts if isinstance(value, ast.Tuple) else [value]
    calls = [e for e in items if isinstance(e, ast.Call)]
    return calls if len(calls) == len(items) else []


def paired_call(name: ast.expr, args: ast.expr, ctx: ReadContext) -> ast.Call | None:
    """``"f", {"a": 1}`` as the call ``f(a=1)`` when ``f`` is a tool on offer and every key a string; else None."""
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and ctx.find(name.value) and isinstance(args, ast.Dict)):
        return None
    keys = [k.value for k in args.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if len(keys) != len(args.keys):
        return None
    return ast.Call(func=ast.Name(id=name.value), args=[], keywords=[ast.keyword(arg=k, value=v) for k, v in zip(keys, args.values, strict=True)])
