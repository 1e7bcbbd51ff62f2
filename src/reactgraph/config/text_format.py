"""``text_format``: the tags and phrases of the 'text' and 'json' tool-calling formats (calls written in the reply)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from reactgraph.config.base import Group
from reactgraph.config.defaults import DEFAULT_SUCCESS_PHRASES


def not_blank(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """``phrases``, none of them blank (a blank phrase would match every reply)."""
    if any(not p.strip() for p in phrases):
        raise ValueError("must not contain blank phrases")
    return phrases


class TextFormat(Group):
    """How a reply that writes its calls as text is read (``AgentConfig.text_format``)."""

    group: ClassVar[str] = "text_format"

    thought_tag: str = Field(default="Thought", min_length=1, description="Tag of the reasoning line in the text format.")
    action_tag: str = Field(default="Action", min_length=1, description="Tag of the action line ('Action: tool[input]').")
    observation_tag: str = Field(default="Observation", min_length=1, description="Tag of tool results in the text format.")
    final_answer_tag: str = Field(default="Final Answer", min_length=1, description="Tag of the answer in the text format.")
    success_phrases: tuple[str, ...] = Field(
        default=DEFAULT_SUCCESS_PHRASES,
        description="A model reply with a line that starts with one of these ends the run with success; the text after it is the answer.",
    )

    @field_validator("success_phrases")
    @classmethod
    def _not_blank(cls, phrases: tuple[str, ...]) -> tuple[str, ...]:
        return not_blank(phrases)
