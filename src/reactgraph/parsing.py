"""Model reply -> thought, actions, or a final answer.

The chain, first match wins:

1. native ``tool_calls`` (and ``invalid_tool_calls``, reported back to the model);
2. JSON tool calls inside the text: bare, fenced, in ``<tool_call>`` tags, several at
   once, with single quotes, trailing commas or Python literals, or Python-style calls
   (``search(query="x")``) of a known tool;
3. text ReAct: ``Thought: ...`` then ``Action: tool[input]`` (or ``Action: tool`` +
   ``Action Input: ...``), or ``Final Answer: ...``; the tags are configurable;
4. otherwise the text is the answer.

What cannot be read (bad or truncated JSON, an unknown tool, missing arguments, an action
line that is not ``tool[input]``) becomes a *rejected action*: act reports its text to the
model as an error observation that shows the expected format, and nothing runs.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from reactgraph.state import Action

# Rejections that mean "the reply could not be read"; max_parse_retries counts these in a row.
PARSE_FAILURE_KINDS = frozenset({"empty_reply", "invalid_parameters", "malformed_output", "tool_not_found", "missing_action"})
MAX_WRITTEN = 300  # characters of a rejected action line kept in the trace
FINISH_VERBS = ("finish", "final_answer", "final answer")
NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
ARGS_KEYS = ("arguments", "args", "parameters", "input", "tool_input", "action_input")


@dataclass(frozen=True)
class ToolSpec:
    """What the parser and the text prompt need to know of one tool."""

    name: str
    description: str = ""
    params: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    types: tuple[str, ...] = ()  # each param's JSON-schema type ("" when not a simple type)

    def takes_positionally(self, values: Sequence[str]) -> bool:
        """Whether comma-separated text inputs are, in order, this tool's params: as many as it takes;
        when it needs at most one, only if each fits its param's type and one beyond the first is a
        number or a yes/no (so ``grep[Hello, world]`` stays one text, ``read_file[a.txt, 1, 5]`` splits)."""
        if len(values) < 2 or not len(self.required) <= len(values) <= len(self.params):
            return False
        if len(self.required) > 1:
            return True
        types = self.types or ("",) * len(self.params)
        typed = any(kind in ("integer", "number", "boolean") for kind in types[1 : len(values)])
        return typed and all(_fits(value, kind) for value, kind in zip(values, types, strict=False))

    def signature(self) -> str:
        """How the text format writes a call: ``name[param, ...]``."""
        return f"{self.name}[{', '.join(self.params)}]" if self.params else f"{self.name}[]"


@dataclass(frozen=True)
class TextFormat:
    """The tags of the text ReAct format."""

    thought: str = "Thought"
    action: str = "Action"
    observation: str = "Observation"
    final_answer: str = "Final Answer"

    @classmethod
    def from_config(cls, cfg: Any) -> TextFormat:
        return cls(cfg.thought_tag, cfg.action_tag, cfg.observation_tag, cfg.final_answer_tag)


@dataclass(frozen=True)
class ParseContext:
    """The tools on offer (empty: any name is accepted) and whether the model uses the text format."""

    tools: tuple[ToolSpec, ...] = ()
    fmt: TextFormat = TextFormat()
    text_mode: bool = False

    def find(self, name: str) -> ToolSpec | None:
        wanted = name.strip().lower()
        return next((t for t in self.tools if t.name.lower() == wanted), None)


@dataclass
class ParsedReply:
    """What a model reply asks for: actions to run, or an answer (``answer`` None when it acts)."""

    thought: str
    actions: list[Action] = field(default_factory=list)
    answer: str | None = None


def tool_specs(tools: Iterable[Any]) -> tuple[ToolSpec, ...]:
    """ToolSpecs of LangChain tools, functions or pydantic models (as bound to a model)."""
    specs = []
    for tool in tools:
        fn = convert_to_openai_tool(tool)["function"]
        params = fn.get("parameters") or {}
        specs.append(
            ToolSpec(
                name=fn["name"],
                description=" ".join((fn.get("description") or "").split()),
                params=tuple(properties := params.get("properties") or {}),
                required=tuple(params.get("required") or ()),
                types=tuple(str(p.get("type", "")) for p in properties.values()),
            )
        )
    return tuple(specs)


def _fits(value: str, kind: str) -> bool:
    if kind == "integer":
        return re.fullmatch(r"[+-]?\d+", value.strip()) is not None
    if kind == "number":
        return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", value.strip()) is not None
    if kind == "boolean":
        return value.strip().lower() in {"true", "false", "yes", "no", "1", "0"}
    return True


def reply_text(message: AIMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p).strip()


def parse_reply(message: AIMessage, ctx: ParseContext | None = None) -> ParsedReply:
    """Native tool calls, else JSON calls in the text, else text ReAct, else the text as the answer."""
    ctx = ctx or ParseContext()
    text = reply_text(message)
    parsed = _native(message, text, ctx) or _json_calls(text, ctx) or _text_react(text, ctx)
    if parsed is None:
        if ctx.text_mode and re.search(rf"(?im)^\s*{re.escape(ctx.fmt.thought)}\s*:", text):
            problem = f"your reply has a {ctx.fmt.thought} but neither an {ctx.fmt.action} nor a {ctx.fmt.final_answer}"
            parsed = ParsedReply(thought=text, actions=[_reject("missing_action", problem, ctx)])
        else:
            return ParsedReply(thought=text, answer=text)
    for index, action in enumerate(parsed.actions):
        action["index"] = index
    return parsed


def expected_format(ctx: ParseContext) -> str:
    """How a reply should look, for the prompt and for error observations."""
    f = ctx.fmt
    tools = ", ".join(t.signature() for t in ctx.tools) or "(see the tool list)"
    if ctx.text_mode:
        return (
            f"To use a tool, reply with these two lines and nothing after them (the {f.observation} comes back to you):\n"
            f"{f.thought}: your reasoning\n{f.action}: tool_name[input]\n\n"
            f"When you know the answer, reply with:\n{f.thought}: your reasoning\n{f.final_answer}: the answer\n\n"
            f"Tools: {tools}. Give the inputs in the order shown, separated by commas; a tool with one input "
            "takes it whole (an expression, a path, a query); several inputs may also be a JSON object of their names."
        )
    return (
        'Call a tool through the tool-calling interface, or write {"name": "<tool>", "arguments": {...}}, '
        f"or reply with the final answer and no tool call. Tools: {tools}."
    )


def format_instructions(ctx: ParseContext) -> str:
    """The text-format part of the system prompt: each tool with its inputs, then the format."""
    lines = ["You have these tools:"]
    for tool in ctx.tools:
        lines.append(f"- {tool.signature()}: {tool.description or '(no description)'}")
    return "\n".join(lines) + "\n\n" + expected_format(ctx)


def render_action(tool: str, args: dict[str, Any]) -> str:
    """An action in the text format: ``tool[value]`` for one string input, else ``tool[{json}]``."""
    if len(args) == 1 and isinstance(value := next(iter(args.values())), str):
        return f"{tool}[{value}]"
    return f"{tool}[{json.dumps(args, ensure_ascii=False)}]" if args else f"{tool}[]"


# -- 1. native tool calls ------------------------------------------------------------------


def _native(message: AIMessage, text: str, ctx: ParseContext) -> ParsedReply | None:
    actions: list[Action] = []
    for call in message.tool_calls or []:
        actions.append({"id": call.get("id") or _new_id(), "tool": call["name"], "args": dict(call.get("args") or {})})
    for bad in getattr(message, "invalid_tool_calls", None) or []:
        name = bad.get("name") or "(unnamed)"
        actions.append(
            {
                "id": bad.get("id") or _new_id(),
                "tool": name,
                "args": {},
                "rejection_kind": "invalid_parameters",
                "rejection": f"Error (invalid_parameters): your call to {name} could not be read "
                f"({bad.get('error') or 'arguments are not valid JSON'}): {bad.get('args')!r}. "
                f"Send the arguments as a JSON object matching the tool's schema.\n{expected_format(ctx)}",
            }
        )
    return ParsedReply(thought=text, actions=actions) if actions else None


# -- 2. JSON (or Python-style) tool calls in the text ------------------------------------------

TAGGED = re.compile(r"<(tool_call|function_call|tool_use|tools)>(.*?)(?:</\1>|$)", re.DOTALL | re.IGNORECASE)
FENCED = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
CALL_SHAPE = re.compile(r"""[{,]\s*["']?(name|tool|tool_name|function)["']?\s*:""")


def _json_calls(text: str, ctx: ParseContext) -> ParsedReply | None:
    """Tool calls written as JSON in the text, in tags, fences or bare; None when there is none."""
    blocks: list[tuple[str, str]] = []  # (block text, the span removed from the thought)
    for match in TAGGED.finditer(text):
        blocks.append((match.group(2), match.group(0)))
    if not blocks:
        blocks = [(m.group(2), m.group(0)) for m in FENCED.finditer(text) if m.group(2).strip()]
    if not blocks:
        blocks = [(span, span) for span in _bracketed_spans(text)]
        blocks += [(line, line) for line in text.splitlines() if _python_call(line.strip(), ctx) is not None]
    actions: list[Action] = []
    thought = text
    broken = False
    for block, whole in blocks:
        found = _calls_in_block(block.strip(), ctx)
        if found is None:
            unreadable = loads_lenient(block.strip()) is None
            broken = broken or (unreadable and (bool(CALL_SHAPE.search(block)) or whole.startswith("<")))
            continue
        thought = thought.replace(whole, " ")
        if isinstance(found, str):
            return ParsedReply(thought=_squash(thought), answer=found)
        actions.extend(found)
    if actions:
        return ParsedReply(thought=_squash(thought), actions=actions)
    if broken or (CALL_SHAPE.search(text) and _unclosed(text)):
        problem = "your tool call is not valid JSON (broken or cut off)"
        return ParsedReply(thought=text, actions=[_reject("malformed_output", problem, ctx)])
    return None


def _squash(thought: str) -> str:
    return " ".join(re.sub(r"</?(tool_call|function_call|tool_use|tools)>", " ", thought).split())


def _calls_in_block(block: str, ctx: ParseContext) -> list[Action] | str | None:
    """The calls in one block (a JSON object, a list of them, or a Python-style call), or the answer
    of a ``{"name": "final_answer", ...}`` object; None if the block holds no call."""
    if (call := _python_call(block, ctx)) is not None:
        return [call]
    value = loads_lenient(block)
    items = value if isinstance(value, list) else [value]
    calls = [_call_from_object(item, ctx) for item in items if isinstance(item, dict)]
    if (answer := next((c for c in calls if isinstance(c, str)), None)) is not None:
        return answer
    return [c for c in calls if isinstance(c, dict)] or None


def _call_from_object(obj: dict[str, Any], ctx: ParseContext) -> Action | str | None:
    """{"name": ..., "arguments": {...}} and its common variants (OpenAI's nested "function", "tool",
    "args", LangChain's "action"/"action_input"); a finish call gives its answer as a string."""
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
    has_args = any(k in obj for k in ARGS_KEYS)
    if name is None or not (has_args or ctx.find(name)):
        return None  # plain data, not a call
    raw = next((obj[k] for k in ARGS_KEYS if k in obj), {})
    if isinstance(raw, str) and raw.strip().startswith(("{", "[")) and (decoded := loads_lenient(raw)) is not None:
        raw = decoded
    if name.strip().lower() in FINISH_VERBS and ctx.find(name) is None:
        values = list(raw.values()) if isinstance(raw, dict) else [raw]
        return str(values[0]).strip() if values else ""
    return _checked_call(name, raw, ctx)


def _python_call(text: str, ctx: ParseContext) -> Action | None:
    """``tool(a, key=value)`` with literal arguments, when ``tool`` is a known tool; else None."""
    match = re.fullmatch(r"(\w+)\s*\((.*)\)", text, re.DOTALL)
    if not match or (spec := ctx.find(match.group(1))) is None:
        return None
    problem = _reject("malformed_output", f"could not read the call {text[:200]!r} (use literal values)", ctx)
    try:
        call = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return problem
    if not isinstance(call, ast.Call):
        return problem
    try:
        positional = [ast.literal_eval(a) for a in call.args]
        named = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        return problem
    if len(positional) > len(spec.params):
        return _reject("invalid_parameters", f"{spec.name} takes {len(spec.params)} input(s), got {len(positional)}", ctx)
    return _checked_call(spec.name, dict(zip(spec.params, positional, strict=False)) | named, ctx)


def _checked_call(name: str, raw: Any, ctx: ParseContext) -> Action:
    """A call to a known tool (any name, when no tools are known) with its arguments, or a rejection."""
    if not ctx.tools:
        args = raw if isinstance(raw, dict) else {"input": raw}
        return {"id": _new_id(), "tool": name.strip(), "args": args}
    spec = ctx.find(name)
    if spec is None:
        names = ", ".join(t.name for t in ctx.tools)
        return _reject("tool_not_found", f"there is no tool {name.strip()!r}; the tools are: {names}", ctx)
    if isinstance(raw, str) and (named := named_inputs(raw, spec.params)):
        raw = named
    if isinstance(raw, dict):
        args = raw
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
        return _reject("invalid_parameters", f"{spec.name} takes {', '.join(spec.params)}: give them as a JSON object", ctx)
    if missing := [p for p in spec.required if p not in args or args[p] in ("", None)]:
        return _reject("invalid_parameters", f"{spec.name} needs {', '.join(missing)} (got {json.dumps(args, default=str)})", ctx)
    return {"id": _new_id(), "tool": spec.name, "args": args}


def named_inputs(raw: str, params: Sequence[str]) -> dict[str, str] | None:
    """``old=80, new=92`` (or ``old: 80``) -> ``{"old": "80", "new": "92"}`` when every input is named
    with one of ``params``; a tool with one input takes the rest of the text whole (commas and all)."""
    if len(params) == 1:
        match = re.fullmatch(rf"\s*{re.escape(params[0])}\s*[=:]\s*(.*?)\s*", raw, re.DOTALL)
        return {params[0]: unquote(match.group(1))} if match else None
    names = "|".join(re.escape(p) for p in params)
    parts = re.split(rf",\s*(?=(?:{names})\s*[=:])", raw.strip())  # a comma inside a value stays
    pairs = [re.fullmatch(r"(\w+)\s*[=:]\s*(.*)", part.strip(), re.DOTALL) for part in parts]
    if not pairs or not all(m and m.group(1) in params for m in pairs):
        return None
    return {m.group(1): unquote(m.group(2).strip()) for m in pairs}


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


def loads_lenient(text: str) -> Any:
    """JSON as small models write it: strict JSON, else without trailing commas, else with doubled
    outer braces undone (``{{...}}``, copied from escaped prompt templates), else a Python literal
    (single quotes, True/None). None when it is none of these."""
    candidates = [text, re.sub(r",\s*([}\]])", r"\1", text)]
    if text.startswith("{{") and text.endswith("}}"):
        candidates.append(text[1:-1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    pythonic = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", candidates[1])))
    try:
        return ast.literal_eval(pythonic)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def _bracketed_spans(text: str) -> list[str]:
    """Top-level ``{...}`` / ``[...]`` spans of ``text`` (quotes respected); an unclosed one runs to the end."""
    spans, depth, start, quote, escaped = [], 0, -1, "", False
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
                spans.append(text[start : i + 1])
    if depth and start >= 0:
        spans.append(text[start:])
    return [s for s in spans if s.startswith("{") or CALL_SHAPE.search(s)]


def _unclosed(text: str) -> bool:
    return text.count("{") > text.count("}")


# -- 3. text ReAct -------------------------------------------------------------------------------


def _text_react(text: str, ctx: ParseContext) -> ParsedReply | None:
    """``Thought: ... Action: tool[input]`` / ``Action Input:`` / ``Final Answer:``; None without tags."""
    f = ctx.fmt
    tag = lambda name: rf"(?im)^[ \t]*{re.escape(name)}(?:[ \t]*\d+)?[ \t]*:"  # noqa: E731
    action = re.search(tag(f.action), text)
    final = re.search(tag(f.final_answer), text)
    if action is None and final is None:
        return None
    if final is not None and (action is None or final.start() < action.start()):
        return ParsedReply(thought=_thought(text[: final.start()], f), answer=_cut(text[final.end() :], f).strip())
    assert action is not None
    thought = _thought(text[: action.start()], f)
    rest = _cut(text[action.end() :], f).lstrip()
    line, _, after = rest.partition("\n")
    line = line.strip()
    action_input = re.search(tag(f"{f.action} Input") + r"[ \t]*(.*)", after, re.DOTALL)
    if action_input is None and (calls := _several_calls(line, ctx)):
        return ParsedReply(thought=thought, actions=calls)
    parsed = _action_line(line, action_input.group(1).strip() if action_input else None, ctx)
    if isinstance(parsed, str):
        return ParsedReply(thought=thought, answer=parsed)
    return ParsedReply(thought=thought, actions=[_keep_written(parsed, line) if line else parsed])


def _keep_written(action: Action, written: str) -> Action:
    """A rejected action keeps what the model wrote (``args.written``): the trace and the next prompt show it."""
    return action if action["tool"] else action | {"args": {"written": written[:MAX_WRITTEN]}}


FIRST_CALL = re.compile(r"\s*([\w.-]+)\s*\[")
NEXT_CALL = re.compile(r"\s*(?:[,;&]|\band\b)\s*([\w.-]+)\s*\[")  # calls after the first need a separator


def _several_calls(line: str, ctx: ParseContext) -> list[Action] | None:
    """``a[x], b[y]`` (or ``;``/``and`` between them) on one Action line: one action each (an unknown
    tool's is a rejection), when the line holds nothing but two or more such calls; else None."""
    segments: list[str] = []
    pos = 0
    while line[pos:].strip():
        start = (NEXT_CALL if segments else FIRST_CALL).match(line, pos)
        if not start:
            return None
        depth, end = 1, start.end()
        while end < len(line) and depth:
            depth += {"[": 1, "]": -1}.get(line[end], 0)
            end += 1
        if depth:
            return None
        segments.append(line[start.start(1) : end])
        pos = end
    if len(segments) < 2:
        return None
    calls = [_action_line(written, None, ctx) for written in segments]
    if any(isinstance(call, str) for call in calls):  # a Finish among calls: not a set of calls
        return None
    return [_keep_written(call, written) for call, written in zip(calls, segments, strict=True)]


def _action_line(line: str, action_input: str | None, ctx: ParseContext) -> Action | str:
    """One action line: a call, a final answer (``Finish[answer]``), or a rejection."""
    bracket = re.fullmatch(r"([\w.-]+)\s*\[(.*)\]", line, re.DOTALL)
    if bracket:
        name, raw = bracket.group(1), bracket.group(2)
    elif re.fullmatch(r"[\w.-]+", line) and (action_input is not None or ctx.find(line) is not None):
        name, raw = line, action_input or ""
    elif (call := _python_call(line, ctx)) is not None:
        return call
    elif line.startswith(("{", "[")) and (found := _calls_in_block(line, ctx)):
        return found if isinstance(found, str) else found[0]
    else:
        return _reject("malformed_output", _line_problem(line, ctx), ctx)
    if name.lower() in FINISH_VERBS and ctx.find(name) is None:
        return raw.strip()
    raw = raw.strip()
    if raw.startswith("{"):
        value = loads_lenient(raw)
        if isinstance(value, dict):
            return _checked_call(name, value, ctx)
    return _checked_call(name, raw, ctx)


def _line_problem(line: str, ctx: ParseContext) -> str:
    shown = line[:200] or "(nothing)"
    if not line:
        return f"the {ctx.fmt.action} line is empty"
    if "[" in line and "]" not in line:
        return f"the {ctx.fmt.action} {shown!r} has no closing ']' (cut off?)"
    if re.match(r"[\w.-]+\s*\[.*\]", line):
        return f"the {ctx.fmt.action} {shown!r} has text after the closing ']'"
    return f"the {ctx.fmt.action} {shown!r} is not tool_name[input]"


def _thought(text: str, f: TextFormat) -> str:
    stripped = re.sub(rf"(?im)^[ \t]*{re.escape(f.thought)}(?:[ \t]*\d+)?[ \t]*:", "", text)
    return stripped.strip()


def _cut(text: str, f: TextFormat) -> str:
    """Drop what the model wrote after the action as if it had run it (an invented observation or next turn)."""
    tags = "|".join(re.escape(t) for t in (f.observation, f.thought))
    found = re.search(rf"(?im)^[ \t]*({tags})(?:[ \t]*\d+)?[ \t]*:", text)
    return text[: found.start()] if found else text


# -- rejections ------------------------------------------------------------------------------------


def _reject(kind: str, problem: str, ctx: ParseContext) -> Action:
    """A rejected action: act shows ``rejection`` to the model as the observation; nothing runs."""
    return {
        "id": _new_id(),
        "tool": "",
        "args": {},
        "rejection_kind": kind,
        "rejection": f"Error ({kind}): {problem}.\n{expected_format(ctx)}",
    }


def parse_failed(actions: Sequence[Action]) -> bool:
    """True when every action of a turn is a rejection for an unreadable reply."""
    return bool(actions) and all(a.get("rejection_kind") in PARSE_FAILURE_KINDS for a in actions)


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"
