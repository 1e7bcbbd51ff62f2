"""``tool_calling="auto"``: which format a turn uses, and when a run changes format.

A run starts native when the model has tool calling (or in the format the agent learnt for this
model in an earlier run). When a native turn's calls were written into the reply's text — JSON,
``<tool_call>`` tags or text actions, read or not — the model does not use the API: the run goes on
in the text format from the next turn, and the agent remembers that for the model. A model that
calls natively stays native. ``native``, ``text`` and ``json`` are fixed choices."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from reactgraph.tool_calling._base import Format
from reactgraph.tool_calling._json_calls import JsonFormat
from reactgraph.tool_calling._native import NativeFormat
from reactgraph.tool_calling._python_calls import PythonFormat
from reactgraph.tool_calling.reading import ParsedReply, ReadContext
from reactgraph.tool_calling.tags import Tags
from reactgraph.tool_calling.text import TextFormat
from reactgraph.tools.specs import ToolSpec

FORMATS: dict[str, Format] = {f.name: f for f in (NativeFormat(), TextFormat(), JsonFormat(), PythonFormat())}
FALLBACK = "text"  # where auto goes when the model does not use its tool-calling API


def starting_format(tool_calling: str, learned: str | None) -> str:
    """A run's first format: the configured one; for auto, what was learnt of the model, else native."""
    if tool_calling != "auto":
        return tool_calling
    return learned or "native"


def next_format(tool_calling: str, current: str, parsed: ParsedReply) -> str:
    """The format of the next turn: auto leaves native once the model writes its calls as text."""
    if tool_calling == "auto" and current == "native" and parsed.source in ("json", "text"):
        return FALLBACK
    return current


def prepare(
    model: BaseChatModel, tools: list[Any], specs: tuple[ToolSpec, ...], tags: Tags, name: str, tool_calling: str
) -> tuple[Runnable, Format, ReadContext]:
    """The model bound for format ``name``, the format and its reading context. A model without tool
    calling gets the text format under auto (native raises NotImplementedError); a turn without
    tools calls the model as it is."""
    fmt = FORMATS[name]
    ctx = fmt.context(specs, tags)
    if not tools:
        return model, fmt, ctx
    try:
        return fmt.bind(model, tools, ctx), fmt, ctx
    except NotImplementedError:
        if tool_calling != "auto":
            raise
    fmt = FORMATS[FALLBACK]
    ctx = fmt.context(specs, tags)
    return fmt.bind(model, tools, ctx), fmt, ctx
