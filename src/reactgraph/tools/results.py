"""What a tool's return value becomes in a call's outcome: the text the model sees (``content.to_text``, cut to the
run's byte limit), the value itself when it is not text (``value``: a dict, a number, a list, content blocks, a
pydantic model as JSON data), and a LangGraph ``Command`` when the tool returned one (``command``: act carries it
out). A tool invoked with its whole tool call (``injection.as_tool_call``) answers with a ToolMessage: its content
is the text, its artifact (``response_format="content_and_artifact"``) the value.

The value is kept as JSON data only when it fits in the run's byte limit, as the text does: the trace and the
checkpoints hold no more than that of any call. An image (content blocks) is shown to a model that takes it only
when kept: one too big to keep is named in the text, with the limit."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.types import Command
from pydantic_core import to_jsonable_python

from reactgraph import prompts
from reactgraph.tools.content import cut, media_blocks, media_names, not_a_result, to_text


class ToolFailed(Exception):
    """The tool answered with an error ToolMessage (a LangChain tool's ``handle_tool_error``): its text."""


def read_result(result: Any, limit: int) -> dict[str, Any]:
    """The outcome fields of a tool's return value: ``content`` (text within ``limit`` bytes), and ``value`` and
    ``command`` when there are; TypeError for what is no result (a generator, a coroutine), ToolFailed for an
    error message."""
    if problem := not_a_result(result):
        raise TypeError(problem)
    if isinstance(result, Command):
        return {"content": "", "command": result}
    if isinstance(result, list) and result and all(isinstance(r, Command | ToolMessage) for r in result):
        raise TypeError("the tool returned a list of Commands and messages: return one Command (its update may hold several messages)")
    fields: dict[str, Any] = {}
    raw = result
    if isinstance(result, ToolMessage):
        if result.status == "error":
            raise ToolFailed(result.text)
        raw = result.artifact if result.artifact is not None else result.content
    text = to_text(result)
    if (value := kept_value(raw, limit)) is not None:
        fields["value"] = value
    elif media := media_blocks(raw):  # the model can be shown only what is kept: say so
        text += "\n" + prompts.NOT_KEPT.format(media=media_names(media), limit=limit)
    return fields | {"content": cut(text, limit)}


def kept_value(raw: Any, limit: int) -> Any:
    """``raw`` as JSON data when it is not text (None for text, bytes, None, or a value too big or not data)."""
    if raw is None or isinstance(raw, str | bytes | bytearray):
        return None
    try:
        data = to_jsonable_python(raw)
        size = len(json.dumps(data, ensure_ascii=False, allow_nan=False).encode())
    except Exception:  # not data (a connection, a file, NaN), or its __str__ broke: the text stands alone
        return None
    return data if size <= limit else None
