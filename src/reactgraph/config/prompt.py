"""``prompt``: what the model is shown each turn: the prompts, the recent steps and turns, the summaries."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from reactgraph.config.base import Group


class Prompt(Group):
    """What each turn's prompt holds, and when the run and the conversation are summarized (``AgentConfig.prompt``)."""

    group: ClassVar[str] = "prompt"

    system_prompt: str | None = Field(default=None, description="Replaces the default system prompt.")
    thought_prompt: str | None = Field(
        default=None, description="Appended to every think prompt (e.g. 'Think step by step before acting')."
    )
    keep_recent_steps: int = Field(
        default=3, ge=1, description="Steps shown verbatim in the prompt; older ones live in the summary."
    )
    summary_every: int = Field(
        default=3, ge=0, description="Summarize the run every N iterations (1 = every step, 0 = never)."
    )
    summary_token_threshold: int | None = Field(
        default=None, gt=0, description="Also summarize when the next prompt would pass this many tokens (None = off)."
    )
    max_observation_tokens: int = Field(
        default=500, ge=16, description="Longer observations are truncated head-and-tail with a marker."
    )
    summarize_observations: bool = Field(
        default=False, description="Summarize observations longer than max_observation_tokens with the model instead of truncating."
    )
    keep_recent_turns: int = Field(
        default=4,
        ge=1,
        description="Earlier turns of the thread's conversation shown verbatim (question and answer); when more "
        "have gathered, all but the last half are folded into the conversation's notes (one model call).",
    )
    new_conversation: bool = Field(
        default=False,
        description="This turn starts the model's context anew: the thread's earlier turns stay in its history "
        "but are not shown.",
    )
