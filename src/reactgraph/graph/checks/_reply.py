"""A parsed reply read as what it asks for (``read_reply``): a final answer, a give-up, or calls.

A success phrase counts at the start of a line only (inside a line or a fenced block it is quoted), and not beside
native tool calls (they run). A reply is a give-up when it says so in one of the ``failure_phrases``: a final reply,
or a Thought alone (text format) that gives up in so many words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Structure
from reactgraph.tool_calling import ParsedReply
from reactgraph.tool_calling.tags import phrase_at_line_start
from reactgraph.tools.specs import ToolSpec


def read_reply(
    parsed: ParsedReply,
    cfg: AgentConfig,
    *,
    iteration: int,
    written: str = "",
    tools: Sequence[ToolSpec] = (),
    shown: Sequence[tuple[str, str]] = (),
    schema: type[BaseModel] | None = None,
    structure: Structure | None = None,
) -> Reply:
    """The reply as the checks see it: its kind, text and calls, with what the turn offered (``tools``) and showed
    (``shown``: texts that are no answer), and the output schema with the model's structured output, if any."""
    turn: dict[str, Any] = {"iteration": iteration, "written": written, "tools": tuple(tools), "shown": tuple(shown), "schema": schema,
            "structure": structure, "source": parsed.source, "thought": parsed.thought}
    native = parsed.source == "native"  # calls made through the API are the model's act, whatever its text says
    if not native and (hit := phrase_at_line_start(parsed.thought, cfg.text_format.success_phrases)) is not None and hit[1]:
        text, why = hit[1], f"the model's reply contains {hit[0]!r}"
    elif parsed.answer is not None:
        text, why = parsed.answer, "the model gave a final answer"
    elif parsed.unanswered and find_phrase(parsed.unanswered, cfg.checks.failure_phrases):
        text, why = parsed.unanswered, ""
    else:
        return Reply(kind="calls", actions=tuple(parsed.actions), **turn)
    if (gave_up := find_phrase(text, cfg.checks.failure_phrases)) is not None:
        return Reply(kind="give_up", text=text, why=f"the model gave up ({gave_up[0]!r})", **turn)
    return Reply(kind="answer", text=text, why=why, **turn)


def find_phrase(text: str, phrases: tuple[str, ...]) -> tuple[str, str] | None:
    """(phrase, text after it) for the first phrase found, case-insensitive."""
    lowered = text.lower()
    for phrase in phrases:
        if (at := lowered.find(phrase.lower())) >= 0:
            return phrase, text[at + len(phrase) :].strip()
    return None
