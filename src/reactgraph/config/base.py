"""What every group of options shares: frozen, validated, and an unknown name an error naming the close matches."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from reactgraph.config.names import unknown_option


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the field and the problem."""


class Group(BaseModel):
    """A group of ``AgentConfig``'s options (``AgentConfig(limits=Limits(max_iterations=6))``, or a dict of them)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    group: ClassVar[str]  # its name in AgentConfig

    @model_validator(mode="before")
    @classmethod
    def _known_options(cls, values: Any) -> Any:
        """An unknown name is an error naming the close matches, or the group it belongs to."""
        if isinstance(values, dict) and (unknown := [str(k) for k in values if k not in cls.model_fields]):
            raise PydanticCustomError(
                "unknown_option", "; ".join(unknown_option(k, cls.group, list(cls.model_fields)) for k in unknown)
            )
        return values

    def set_values(self) -> dict[str, Any]:
        """The options set explicitly (pydantic's ``model_fields_set``): name -> value."""
        return {k: getattr(self, k) for k in self.model_fields_set}
