"""What the tool modules share: a registered tool with its metadata and policy, and a function made
into a LangChain tool. Only LangChain's tool types and pydantic: the registry, the built-ins, execution and the
worker process all build on it."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from reactgraph.tools.policy import ToolPolicy


class ToolRegistrationError(ValueError):
    """A tool cannot be registered; the message names the tool and the missing piece."""


class ToolMetadata(BaseModel):
    """What the registry and the model know of a tool besides its code."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str | None = Field(default=None, description="Replaces the docstring as the description the model sees.")
    category: str = Field(default="user", description="basic, utility, user, or any string.")
    parameters: dict[str, str] = Field(default_factory=dict, description="Per-parameter descriptions shown to the model.")
    examples: tuple[str, ...] = Field(default=(), description="Example calls, shown in listings.")


@dataclass(frozen=True)
class RegisteredTool:
    """A tool and what the registry knows of it: the LangChain tool the model sees, metadata, policy, and
    what was registered (``source``: the function or tool a worker process imports; None = ``tool``)."""

    name: str
    tool: BaseTool
    metadata: ToolMetadata = field(default_factory=ToolMetadata)
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    source: Any = None

    @property
    def description(self) -> str:
        return self.tool.description

    @property
    def category(self) -> str:
        return self.metadata.category

    @property
    def examples(self) -> tuple[str, ...]:
        return self.metadata.examples

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of each argument."""
        return dict(self.tool.args)


def to_langchain_tool(obj: Any, name: str | None = None) -> BaseTool:
    """A LangChain tool from a LangChain tool or a typed, documented (async) function."""
    if isinstance(obj, BaseTool):
        return obj
    label = name or getattr(obj, "__name__", None) or type(obj).__name__
    if not callable(obj) or inspect.isclass(obj):
        raise ToolRegistrationError(f"tool {label!r}: not callable (got {type(obj).__name__})")
    func = obj if inspect.isroutine(obj) else obj.__call__  # a callable object: its __call__ method
    if name is None and not getattr(obj, "__name__", None):
        raise ToolRegistrationError(f"tool {label!r}: has no __name__; pass a name")
    doc = inspect.getdoc(func)
    if not doc or not doc.strip():
        raise ToolRegistrationError(f"tool {label!r}: missing docstring (it becomes the description the model sees)")
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolRegistrationError(f"tool {label!r}: cannot read its signature ({exc})") from None
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolRegistrationError(f"tool {label!r}: *args/**kwargs parameter {param.name!r} is not supported")
        if param.kind is param.POSITIONAL_ONLY:
            raise ToolRegistrationError(f"tool {label!r}: positional-only parameter {param.name!r} cannot be passed by name")
        if param.annotation is inspect.Parameter.empty:
            raise ToolRegistrationError(f"tool {label!r}: parameter {param.name!r} has no type annotation")
    tool_name = name or obj.__name__
    if inspect.iscoroutinefunction(func):
        return StructuredTool.from_function(coroutine=func, name=tool_name, description=doc)
    return StructuredTool.from_function(func=func, name=tool_name, description=doc)
