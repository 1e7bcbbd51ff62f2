"""Text actions: ``Thought: ...`` then ``Action: tool[input]`` (or ``Action: tool`` + ``Action Input:``),
several calls on one line (``a[x], b[y]``), or ``Final Answer: ...``; the tags are configurable."""

from __future__ import annotations

import re
import shlex

from reactgraph.errors import ErrorKind
from reactgraph.state import Action
from reactgraph.tool_calling._binding import bind_call
from reactgraph.tool_calling.json_blocks import (
    FINISH_VERBS,
    bracketed_spans,
    calls_in_block,
    loads_lenient,
    python_call,
    read_json_calls,
)
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, keep_written, reject
from reactgraph.tool_calling.tags import cut_invented, find_tag, outside_fences, tag_pattern, without_thought_tag

NO_ACTION = frozenset({"none", "null", "n/a", "no action", "nothing"})  # "Action: None" from a model about to answer
FIRST_CALL = re.compile(r"\s*([\w.-]+)\s*\[")
NEXT_CALL = re.compile(r"\s*(?:[,;&]|\band\b)\s*([\w.-]+)\s*\[")  # calls after the first need a separator


def read_text_actions(text: str, ctx: ReadContext) -> ParsedReply | None:
    """The action or the final answer the reply's tags introduce; None without either tag."""
    tags = ctx.tags
    own = outside_fences(text)  # tags in a quoted block count only when the reply has none outside it
    action, final = find_tag(own, tags.action), find_tag(own, tags.final_answer)
    if action is None and final is None:
        action, final = find_tag(text, tags.action), find_tag(text, tags.final_answer)
    if action is None and final is None:
        return None
    if final is not None and (action is None or final.start() < action.start()):
        thought = without_thought_tag(text[: final.start()], tags)
        answer = cut_invented(text[final.end() :], tags).strip()
        # a call given as the whole answer (``Final answer: <{"name": ...}>``) is a call, as on an Action line
        if isinstance(found := calls_in_block(answer.strip("<>`'\" \t\n"), ctx), list):
            return ParsedReply(thought=thought, actions=found, source="json")
        return ParsedReply(thought=thought, answer=answer if found is None else found)
    assert action is not None
    thought = without_thought_tag(text[: action.start()], tags)
    rest = cut_invented(text[action.end() :], tags).lstrip()
    line, _, after = rest.partition("\n")
    line = line.strip()
    action_input = re.search(tag_pattern(f"{tags.action} Input").pattern + r"[ \t]*(.*)", after, re.DOTALL)
    if action_input is None and (calls := several_calls(line, ctx)):
        return ParsedReply(thought=thought, actions=calls, source="text")
    parsed = action_line(line, action_input.group(1).strip() if action_input else None, ctx)
    if isinstance(parsed, str):
        return ParsedReply(thought=thought, answer=parsed)
    if "rejection" in parsed and (below := _json_below(rest, ctx)) is not None:
        return ParsedReply(thought=thought, actions=below.actions, answer=below.answer, source=below.source)
    return ParsedReply(thought=thought, actions=[keep_written(parsed, line) if line else parsed], source="text")


def _json_below(rest: str, ctx: ReadContext) -> ParsedReply | None:
    """The call (or finish) written as JSON after an Action tag whose line cannot be read
    (``Action: search`` then a fenced JSON call); None when there is none."""
    found = read_json_calls(rest, ctx)
    if found is None or not (found.answer is not None or any(a["tool"] for a in found.actions)):
        return None
    return found


def several_calls(line: str, ctx: ReadContext) -> list[Action] | None:
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
    read = [action_line(written, None, ctx) for written in segments]
    calls = [call for call in read if not isinstance(call, str)]
    if len(calls) < len(read):  # a Finish among calls: not a set of calls
        return None
    return [keep_written(call, written) for call, written in zip(calls, segments, strict=True)]


def action_line(line: str, action_input: str | None, ctx: ReadContext) -> Action | str:
    """One action line: a call, a final answer (``Finish[answer]``), or a rejection."""
    bracket = re.fullmatch(r"([\w.-]+)\s*\[(.*)\]", line, re.DOTALL)
    if (copied := signature_then_json(line, ctx)) is not None:
        return copied
    if bracket:
        name, raw = bracket.group(1), bracket.group(2)
    elif re.fullmatch(r"[\w.-]+", line) and (action_input is not None or ctx.find(line) is not None):
        name, raw = line, action_input or ""
    elif (call := python_call(line, ctx)) is not None:
        return call
    elif line.startswith(("{", "[")) and (found := _json_on_line(line, ctx)):
        return found if isinstance(found, str) else found[0]
    elif (call := command_line(line, ctx)) is not None:
        return call
    else:
        return reject(ErrorKind.MALFORMED_OUTPUT, _line_problem(line, ctx), ctx)
    if name.lower() in FINISH_VERBS and ctx.find(name) is None:
        return raw.strip()
    raw = raw.strip()
    if raw.startswith("{"):
        value = loads_lenient(raw)
        if isinstance(value, dict):
            return bind_call(name, value, ctx)
    return bind_call(name, raw, ctx)


def signature_then_json(line: str, ctx: ReadContext) -> Action | None:
    """``calculator[<expression>]{"expression": "2 * 3"}``: a tool's signature as the prompt lists it (its parameters'
    names in the brackets, in angle brackets or not), then its arguments as a JSON object: the call with those
    arguments (wrong ones are then an ``invalid_parameters`` error naming the tool's, not an unreadable line); None
    when the line is not that."""
    match = re.fullmatch(r"([\w.-]+)\s*\[([\w\s,<>]*)\]\s*(\{.*\})", line, re.DOTALL)
    spec = ctx.find(match.group(1)) if match else None
    named = re.sub(r"[<>,]", " ", match.group(2)).split() if match else []
    if match is None or spec is None or not set(named) <= set(spec.params):
        return None
    value = loads_lenient(match.group(3))
    if not isinstance(value, dict):
        return None
    action = bind_call(spec.name, value, ctx)
    if action.get("rejection_kind") == ErrorKind.INVALID_PARAMETERS.value and spec.example:
        problem = (f"{spec.signature()} is how the tool list names its input; write the input itself in the "
                   f"brackets, with nothing after them, e.g. {ctx.tags.action}: {spec.name}[{spec.example}]")
        return reject(ErrorKind.INVALID_PARAMETERS, problem, ctx)
    return action


def command_line(line: str, ctx: ReadContext) -> Action | None:
    """A call written as a shell command, ``mv notes.txt archive/`` or ``cd workspace`` (an offered tool's name, then
    its inputs separated by spaces, quoted where they hold one): the inputs in the order of the tool's signature, or
    the one input of a tool that needs one; None when the line is not that (``lookup the key paris`` is prose)."""
    match = re.fullmatch(r"([\w.-]+)\s+(\S.*)", line, re.DOTALL)
    spec = ctx.find(match.group(1)) if match else None
    if match is None or spec is None:
        return None
    try:
        words = shlex.split(match.group(2))
    except ValueError:  # an unclosed quote
        return None
    if spec.takes_positionally(words):
        return bind_call(spec.name, dict(zip(spec.params, words)), ctx)
    if len(words) == 1 and (len(spec.params) == 1 or len(spec.required) == 1):
        return bind_call(spec.name, {(spec.required or spec.params)[0]: words[0]}, ctx)
    return None


def _json_on_line(line: str, ctx: ReadContext) -> list[Action] | str | None:
    """A JSON call on an Action line, also when the model wrote more after it (an invented result)."""
    if (found := calls_in_block(line, ctx)) is not None:
        return found
    spans = bracketed_spans(line)
    return calls_in_block(spans[0], ctx) if spans and line.startswith(spans[0]) else None


def _line_problem(line: str, ctx: ReadContext) -> str:
    shown, action = line[:200] or "(nothing)", ctx.tags.action
    if not line:
        return f"the {action} line is empty"
    if line.strip(" .'\"").lower() in NO_ACTION:
        return f"your reply names no tool to call (to give the answer, use {ctx.tags.final_answer}: instead of {action}:)"
    if "[" in line and "]" not in line:
        return f"the {action} {shown!r} has no closing ']' (cut off?)"
    if re.match(r"[\w.-]+\s*\[.*\]", line):
        return f"the {action} {shown!r} has text after the closing ']'"
    return f"the {action} {shown!r} is not tool_name[input]"
