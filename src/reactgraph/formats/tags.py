"""The tags of the text format (``Thought:``, ``Action:``, ``Observation:``, ``Final Answer:``) and
how they are found: only at the start of a line, optionally numbered (``Thought 2:``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tags:
    """The tag words, configurable through AgentConfig's ``*_tag`` fields."""

    thought: str = "Thought"
    action: str = "Action"
    observation: str = "Observation"
    final_answer: str = "Final Answer"

    @classmethod
    def from_config(cls, cfg: Any) -> Tags:
        return cls(cfg.thought_tag, cfg.action_tag, cfg.observation_tag, cfg.final_answer_tag)


def tag_pattern(*names: str) -> re.Pattern[str]:
    """A tag at the start of a line (``Action:``, ``Action 2:``), case-insensitive."""
    words = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?im)^[ \t]*(?:{words})(?:[ \t]*\d+)?[ \t]*:")


def find_tag(text: str, name: str) -> re.Match[str] | None:
    return tag_pattern(name).search(text)


def without_thought_tag(text: str, tags: Tags) -> str:
    """The reasoning text with its ``Thought:`` tags removed."""
    return tag_pattern(tags.thought).sub("", text).strip()


def cut_invented(text: str, tags: Tags) -> str:
    """What the model wrote before it started an observation or a next turn of its own."""
    found = tag_pattern(tags.observation, tags.thought).search(text)
    return text[: found.start()] if found else text
