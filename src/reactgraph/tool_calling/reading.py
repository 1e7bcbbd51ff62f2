"""What every format's reader shares: the context of a reply, the reading of it, and rejections.

A reply is read into a ``ParsedReply``: a thought plus actions to run, or a final answer. What
cannot be read becomes a *rejected action*: act reports its text to the model as an error
observation that shows the expected format, and nothing runs.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage

from reactgraph import prompts
from reactgraph.errors import DEFAULT_TEXT, ErrorKind
from reactgraph.state import Action
from reactgraph.tool_calling.tags import Tags
from reactgraph.tools.content import media_blocks, media_names
from reactgraph.tools.specs import ToolSpec

# Rejections that mean "the reply could not be read"; max_parse_retries counts these in a row.
PARSE_FAILURE_KINDS = frozenset(
    {
        ErrorKind.EMPTY_REPLY,
        ErrorKind.INVALID_PARAMETERS,
        ErrorKind.MALFORMED_OUTPUT,
        ErrorKind.TOOL_NOT_FOUND,
        ErrorKind.MISSING_ACTION,
        ErrorKind.NON_ANSWER,
    }
)
MAX_WRITTEN = 300  # characters of a rejected action line kept in the trace
MAX_ARG_DEPTH = 20  # levels of lists and objects in a call's arguments

# Where a reply's calls came from: the model's tool-calling API, or its text (JSON, tags, text actions).
Source = Literal["native", "json", "text", "python", "none"]


@dataclass(frozen=True)
class ReadContext:
    """The tools on offer (empty: any name is accepted), the text tags, and how a reply should
    look in the current format (``hint``, shown with the newest unreadable reply)."""

    tools: tuple[ToolSpec, ...] = ()
    tags: Tags = Tags()
    hint: str = ""

    def find(self, name: str) -> ToolSpec | None:
        wanted = name.strip().lower()
        return next((t for t in self.tools if t.name.lower() == wanted), None)

    def tool_list(self) -> str:
        return ", ".join(t.signature() for t in self.tools) or "(see the tool list)"


@dataclass
class ParsedReply:
    """What a model reply asks for: actions to run, or an answer (``answer`` None when it acts).
    ``source`` says where its calls were found (``none`` for an answer or an unreadable reply
    without any call in it)."""

    thought: str
    actions: list[Action] = field(default_factory=list)
    answer: str | None = None
    source: Source = "none"
    # a reply that ended without an action or an answer (a text-format Thought alone): think takes
    # it as the final reply when it gives up in so many words, else sends it back
    unanswered: str | None = None


def observed_text(obs: dict[str, Any], fmt: str) -> str:
    """An observation's text as a text-only format shows it: with a note naming the images (or other media) the
    tool returned, which the format leaves out."""
    if not (media := media_blocks(obs.get("value"))):
        return obs["content"]
    return f"{obs['content']}\n{prompts.LEFT_OUT.format(media=media_names(media), format=fmt)}"


def observed_content(obs: dict[str, Any]) -> str | list[Any]:
    """An observation's content as a format that sends images shows it (native): its text, then the images (or
    other media) the tool returned."""
    if not (media := media_blocks(obs.get("value"))):
        return obs["content"]
    return [{"type": "text", "text": obs["content"]}, *media]


def rendered(tool: str, args: dict[str, Any]) -> str:
    """A call as a Python call (the python format's list writes it so): ``tool(a=1, b='x')``."""
    return f"{tool}(" + ", ".join(f"{name}={value!r}" for name, value in args.items()) + ")"


def reply_text(message: AIMessage) -> str:
    """The reply's text content (text parts joined), stripped."""
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p).strip()


def reject(kind: ErrorKind, problem: str, ctx: ReadContext) -> Action:
    """A rejected action: act shows ``rejection`` to the model as the observation; nothing runs. The
    prompt adds the expected format after the newest one (``ReadContext.hint``), in the format the
    next turn uses."""
    return {"id": new_id(), "tool": "", "args": {}, "rejection_kind": kind.value, "rejection": DEFAULT_TEXT.format(kind=kind.value, problem=problem)}


def keep_written(action: Action, written: str) -> Action:
    """A rejected action keeps what the model wrote (``args.written``): the trace and the next prompt show it."""
    return action if action["tool"] else action | {"args": {"written": written[:MAX_WRITTEN]}}


def parse_failed(actions: Sequence[Action]) -> bool:
    """True when every action of a turn is a rejection for an unreadable reply."""
    return bool(actions) and all(a.get("rejection_kind") in PARSE_FAILURE_KINDS for a in actions)


def numbered(parsed: ParsedReply, ctx: ReadContext) -> ParsedReply:
    """The reply with its actions numbered in order (act and observe keep that order); a call whose
    arguments a checkpoint cannot hold becomes a rejection; a call that repeats an earlier one of the
    same reply exactly is dropped (small models write one call many times)."""
    seen: set[str] = set()
    distinct: list[Action] = []
    for action in parsed.actions:
        if "rejection" not in action and (problem := argument_problem(action["args"])):
            action = reject(ErrorKind.MALFORMED_OUTPUT, f"the arguments of your call to {action['tool'] or 'a tool'} {problem}", ctx)
        key = json.dumps([action["tool"], action["args"]], sort_keys=True, default=str)
        if action["tool"] and key in seen:
            continue
        seen.add(key)
        distinct.append(action)
    parsed.actions = distinct
    for index, action in enumerate(parsed.actions):
        action["index"] = index
    return parsed


def argument_problem(value: Any, depth: int = 0) -> str | None:
    """Why a call's arguments are no plain JSON data a checkpoint can store and compare (nested
    deeper than ``MAX_ARG_DEPTH``, a number past 64 bits, NaN or Infinity, a set or other Python
    value, a key that is not a string), or None when they are."""
    if depth > MAX_ARG_DEPTH:
        return f"are nested deeper than {MAX_ARG_DEPTH} levels"
    if value is None or isinstance(value, (str, bool)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "hold a value that is not a finite number (NaN or Infinity)"
    if isinstance(value, int):
        return None if -(2**63) <= value < 2**64 else "hold a number too large for 64 bits (write it as a string)"
    items: Iterable[Any]
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return "have a key that is not a string"
        items = value.values()
    else:
        return f"hold a value that is not JSON ({type(value).__name__})"
    return next(filter(None, (argument_problem(item, depth + 1) for item in items)), None)


def new_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"
