"""The tags of the text format (``Thought:``, ``Action:``, ``Observation:``, ``Final Answer:``) and
how they are found: only at the start of a line (after markdown such as ``**``), optionally numbered
(``Thought 2:``). A tag or a success phrase inside a line, or inside a fenced block beside tags
outside it, is text the model quotes, not its own structure. Tool output goes
back under the observation tag as data: fenced when a line of it looks like structure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reactgraph.config import AgentConfig


@dataclass(frozen=True)
class Tags:
    """The tag words, configurable through ``AgentConfig.text_format``'s ``*_tag`` options."""

    thought: str = "Thought"
    action: str = "Action"
    observation: str = "Observation"
    final_answer: str = "Final Answer"

    @classmethod
    def from_config(cls, cfg: AgentConfig) -> Tags:
        fmt = cfg.text_format
        return cls(fmt.thought_tag, fmt.action_tag, fmt.observation_tag, fmt.final_answer_tag)


# Markdown a model may put before a tag at the start of a line: ``**Final Answer:**``, ``### Action:``,
# ``- Thought:``, ``1. Action:``. Not ``>``: a block quote is a quote.
LINE_START = r"^[ \t]*(?:(?:[*_#]+|[-+](?=[ \t])|\d+[.)](?=[ \t]))[ \t]*)*"
CLOSER = r"(?:[*_]+(?=\s|$))?"  # the ``**`` after ``**Final Answer:``
FENCED = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")


def tag_pattern(*names: str) -> re.Pattern[str]:
    """A tag at the start of a line (``Action:``, ``Action 2:``, ``**Action:**``), case-insensitive."""
    words = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?im){LINE_START}(?:{words})(?:[ \t]*\d+)?[ \t]*[*_]*[ \t]*:[ \t]*{CLOSER}")


def outside_fences(text: str) -> str:
    """``text`` with its fenced blocks blanked (same length, newlines kept): what the model wrote
    itself, not what it quotes in a block."""
    return FENCED.sub(lambda block: re.sub(r"[^\n]", " ", block.group(0)), text)


def find_tag(text: str, name: str) -> re.Match[str] | None:
    return tag_pattern(name).search(text)


def without_thought_tag(text: str, tags: Tags) -> str:
    """The reasoning text with its ``Thought:`` tags removed."""
    return tag_pattern(tags.thought).sub("", text).strip()


def cut_invented(text: str, tags: Tags) -> str:
    """What the model wrote before it started an observation or a next turn of its own."""
    found = tag_pattern(tags.observation, tags.thought).search(text)
    return text[: found.start()] if found else text


def phrase_at_line_start(text: str, phrases: Sequence[str]) -> tuple[str, str] | None:
    """(phrase, the text after it) for the first of ``phrases`` that starts a line of ``text`` (after
    spaces and markdown such as ``**``) outside fenced blocks, case-insensitive; None when none does."""
    if not phrases:
        return None
    alternatives = "|".join(f"({_phrase(p)})" for p in phrases)
    found = re.compile(rf"(?im){LINE_START}(?:{alternatives})[ \t]*{CLOSER}").search(outside_fences(text))
    return (phrases[found.lastindex - 1], text[found.end() :].strip()) if found and found.lastindex else None


STRUCTURE = re.compile(r"(?m)^[ \t]*(?:`{3,}|~{3,}|<tool_call|\{)")


def looks_like_structure(text: str, tags: Tags) -> bool:
    """Whether a line of ``text`` starts like a tag, a fence, a JSON object or a ``<tool_call>`` block."""
    words = (tags.thought, tags.action, tags.observation, tags.final_answer)
    return bool(tag_pattern(*words).search(text) or STRUCTURE.search(text))


def _phrase(phrase: str) -> str:
    """A phrase as a pattern; one that ends in a colon also matches ``**Final Answer**:``."""
    if phrase.endswith(":"):
        return re.escape(phrase[:-1].rstrip()) + r"[*_]*[ \t]*:"
    return re.escape(phrase)


def shown_observation(content: str, tags: Tags, label: str = "") -> str:
    """Tool output under the observation tag (or ``label``): after it, or, when a line of it could pass for the
    model's own structure (a tag, a fence, a JSON or ``<tool_call>`` block), in a fenced block (its
    fence longer than any run of backticks inside). Plain output stays unfenced: a small model read
    a fenced directory listing worse (it answered with the directory's name)."""
    label = label or tags.observation
    if len(content.splitlines()) <= 1 or not looks_like_structure(content, tags):
        return f"{label}: {content}"
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", content)), default=0))
    return f"{label}:\n{fence}\n{content}\n{fence}"
