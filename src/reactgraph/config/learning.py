"""``learning``: the playbook, bullets learnt from earlier runs (reactgraph.playbook)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from reactgraph.config.base import Group


class Learning(Group):
    """Whether and how a run uses and feeds the playbook (``AgentConfig.learning``)."""

    group: ClassVar[str] = "learning"

    playbook: bool = Field(
        default=False,
        description="Show bullets learnt from earlier runs (the graph's store) in the prompt, and learn from each "
        "finished run (reactgraph.playbook).",
    )
    playbook_name: str = Field(
        default="default", min_length=1, pattern=r"^[^.]+$",
        description="The playbook to use: one per agent or domain (no '.': the store's namespaces separate with it).",
    )
    playbook_top_k: int = Field(default=3, ge=1, description="Bullets retrieved for a question.")
    playbook_max_tokens: int = Field(
        default=200, ge=20, description="Cap on the playbook block in the prompt (estimated tokens)."
    )
    playbook_lessons: bool = Field(
        default=False,
        description="After a run, also ask the model for a lesson in words (written in the background; "
        "agent.playbook.wait() waits for it).",
    )
