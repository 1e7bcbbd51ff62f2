"""``model_settings``: how a model made from its name is called (sampling, reply length, retries, fallbacks)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from reactgraph.config.base import Group


class ModelSettings(Group):
    """Settings of the model calls of a run (``AgentConfig.model_settings``). Those named ``ollama_*`` apply to
    Ollama models only; the others to every model made from its name (a model instance keeps its own)."""

    group: ClassVar[str] = "model_settings"

    temperature: float | None = Field(default=0.0, ge=0, description="Sampling temperature (None = the model's default).")
    max_output_tokens: int | None = Field(
        default=1024,
        gt=0,
        description="Longest reply of a model made from its name, in tokens (Ollama num_predict, max_tokens elsewhere; "
        "None = no cap): one runaway generation cannot take minutes.",
    )
    ollama_num_ctx: int | None = Field(
        default=8192, gt=0, description="Ollama only: the context window in tokens (None = the server's default)."
    )
    ollama_keep_alive: str | None = Field(
        default=None, description="Ollama only: how long the server keeps the model loaded, e.g. '5m' (None = its default)."
    )
    fallback_models: tuple[str, ...] = Field(
        default=(), description="'provider:model' names tried in order when the model keeps failing."
    )
    max_retries: int = Field(default=2, ge=0, description="Retries of a model call that failed with a transient error.")
    initial_delay_seconds: float = Field(default=1.0, ge=0, description="First wait before retrying a model call.")
    max_delay_seconds: float = Field(default=10.0, ge=0, description="Longest wait between retries of a model call.")
