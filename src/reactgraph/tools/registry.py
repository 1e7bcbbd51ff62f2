"""ToolRegistry: the tools an agent may offer, validated at registration."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool


class ToolRegistrationError(ValueError):
    """A tool cannot be registered; the message names the tool and the missing piece."""


@dataclass(frozen=True)
class RegisteredTool:
    """A tool and what the registry knows of it."""

    name: str
    tool: BaseTool
    category: str = "user"
    description: str = ""
    examples: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


def to_langchain_tool(obj: Any, name: str | None = None) -> BaseTool:
    """A LangChain tool from a LangChain tool or a typed, documented (async) function."""
    if isinstance(obj, BaseTool):
        return obj
    label = name or getattr(obj, "__name__", repr(obj))
    if not callable(obj):
        raise ToolRegistrationError(f"tool {label!r}: not callable (got {type(obj).__name__})")
    doc = inspect.getdoc(obj)
    if not doc:
        raise ToolRegistrationError(f"tool {label!r}: missing docstring (it becomes the description the model sees)")
    for param in inspect.signature(obj).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolRegistrationError(f"tool {label!r}: *args/**kwargs parameter {param.name!r} is not supported")
        if param.annotation is inspect.Parameter.empty:
            raise ToolRegistrationError(f"tool {label!r}: parameter {param.name!r} has no type annotation")
    if inspect.iscoroutinefunction(obj):
        return StructuredTool.from_function(coroutine=obj, name=label, description=doc)
    return StructuredTool.from_function(func=obj, name=label, description=doc)


class ToolRegistry:
    """Named tools with categories; the agent offers and runs tools only through it."""

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        for tool in tools:
            self.register(tool)

    def register(
        self,
        tool: Any,
        name: str | None = None,
        *,
        category: str = "user",
        examples: Iterable[str] = (),
        replace: bool = False,
        **metadata: Any,
    ) -> RegisteredTool:
        """Validate and add a tool (function, async function or LangChain tool)."""
        lc_tool = to_langchain_tool(tool, name)
        tool_name = name or lc_tool.name
        if tool_name != lc_tool.name:
            lc_tool = lc_tool.model_copy(update={"name": tool_name})
        if tool_name in self._tools and not replace:
            raise ToolRegistrationError(f"tool {tool_name!r} is already registered (pass replace=True to replace it)")
        entry = RegisteredTool(
            name=tool_name,
            tool=lc_tool,
            category=category,
            description=lc_tool.description,
            examples=tuple(examples),
            metadata=metadata,
        )
        self._tools[tool_name] = entry
        return entry

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def has(self, name: str) -> bool:
        return name in self._tools

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def list(self, category: str | None = None) -> list[RegisteredTool]:
        return [t for t in self._tools.values() if category is None or t.category == category]

    def names(self) -> list[str]:
        return list(self._tools)


ToolLike = BaseTool | Callable[..., Any]
