"""``limits``: when a run stops (turns, tokens, time, repeats, unreadable replies) and how it ends at a limit."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from reactgraph.config.base import Group


class Limits(Group):
    """When a run stops, and what it does at a limit (``AgentConfig.limits``)."""

    group: ClassVar[str] = "limits"

    max_iterations: int = Field(default=10, ge=1, description="Model turns with tool calls before the run stops.")
    token_budget: int | None = Field(
        default=None, gt=0, description="Stop before total tokens (prompt + completion) would pass this."
    )
    timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Wall-clock budget of the run: bounds every model call and tool wait, and is checked after every step.",
    )
    stall_threshold: int = Field(
        default=3, ge=2, description="Consecutive repeats of the same action, or of the same observation, that stop a run."
    )
    max_parse_retries: int = Field(
        default=3, ge=1, description="Consecutive unreadable replies (bad format, unknown tool, empty) that end the run."
    )
    early_stopping: Literal["generate", "force"] = Field(
        default="generate",
        description="At a limit: 'generate' makes one last model call for a partial answer; 'force' does not.",
    )
    partial_answer_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="With timeout_seconds: seconds the partial-answer call at a limit may take, and never more than "
        "half a second past the time budget (the run ends within timeout_seconds + 1 s).",
    )

    def deadline(self, started_at: float | None) -> float | None:
        """When a run that started at ``started_at`` (epoch seconds) runs out of time; None without a time budget."""
        if self.timeout_seconds is None or started_at is None:
            return None
        return started_at + self.timeout_seconds
