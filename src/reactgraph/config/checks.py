"""``checks``: what judges each model reply and its answer (reactgraph.graph.checks)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from reactgraph.config.base import Group
from reactgraph.config.defaults import DEFAULT_FAILURE_PHRASES, DEFAULT_REPLY_CHECKS
from reactgraph.config.text_format import not_blank


class Checks(Group):
    """The checks that judge a reply, and what an answer must be (``AgentConfig.checks``)."""

    group: ClassVar[str] = "checks"

    reply_checks: tuple[str, ...] = Field(
        default=DEFAULT_REPLY_CHECKS,
        description="The checks that judge each model reply, in order (reactgraph.graph.checks): the built-in ones "
        "by name, and the agent's own (ReActAgent(reply_checks=[..., my_check]) or @agent.reply_check). Leave a "
        "name out to switch that check off.",
    )
    answer_checks: int = Field(
        default=1,
        ge=0,
        description="How often a turn's final answers (or give-ups) may be sent back by a reply check to be checked "
        "with a tool (an answer no tool result backs, a give-up before trying the tools, your own checks' send-backs); "
        "past that, the answer stands. 0 = never.",
    )
    require_thought: bool = Field(
        default=False, description="A tool call without reasoning is not run; the model is asked for its reasoning."
    )
    min_thought_chars: int = Field(default=10, ge=0, description="Shortest thought accepted when require_thought is on.")
    failure_phrases: tuple[str, ...] = Field(
        default=DEFAULT_FAILURE_PHRASES,
        description="A final reply containing one of these ends the run with reason 'failure'.",
    )
    max_output_retries: int = Field(
        default=2,
        ge=0,
        description="With an output schema: final answers that do not fit it sent back to the model (with the "
        "validation error) before the run ends with failure, the text answer kept.",
    )
    ask_confidence: bool = Field(
        default=False,
        description="Ask the model to end its final answer with a line 'Confidence: <0 to 1>'; the line is cut from "
        "the answer and its value blended into result.confidence.",
    )

    @field_validator("failure_phrases")
    @classmethod
    def _not_blank(cls, phrases: tuple[str, ...]) -> tuple[str, ...]:
        return not_blank(phrases)
