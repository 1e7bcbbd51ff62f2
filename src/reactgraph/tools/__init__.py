"""Tools: the registry, execution policies, the circuit breaker, the built-ins and MCP servers' tools.

The MCP names are imported on first use: ``reactgraph.tools.mcp`` loads the agent's tool execution
(and LangGraph), which ``reactgraph tools`` and the registry alone do not need."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reactgraph.config import ResourceLimits
from reactgraph.tools.builtin import BUILTINS, DocumentIndex, register_builtins
from reactgraph.tools.policy import InvalidArguments, ToolPolicy, ToolTimeout
from reactgraph.tools.registry import (
    RegisteredTool,
    ToolMetadata,
    ToolRegistrationError,
    ToolRegistry,
    UnknownToolError,
    to_langchain_tool,
)

if TYPE_CHECKING:
    from reactgraph.tools.mcp import (
        MCPConfigError,
        MCPServerError,
        MCPUnavailableError,
        aload_mcp_tools,
        load_mcp_tools,
    )

MCP_NAMES = frozenset({"MCPConfigError", "MCPServerError", "MCPUnavailableError", "aload_mcp_tools", "load_mcp_tools"})

__all__ = [
    "BUILTINS",
    "DocumentIndex",
    "InvalidArguments",
    "MCPConfigError",
    "MCPServerError",
    "MCPUnavailableError",
    "RegisteredTool",
    "ResourceLimits",
    "ToolMetadata",
    "ToolPolicy",
    "ToolRegistrationError",
    "ToolRegistry",
    "ToolTimeout",
    "UnknownToolError",
    "aload_mcp_tools",
    "load_mcp_tools",
    "register_builtins",
    "to_langchain_tool",
]


def __getattr__(name: str) -> Any:
    if name not in MCP_NAMES:
        raise AttributeError(f"module 'reactgraph.tools' has no attribute {name!r}")
    value = getattr(importlib.import_module("reactgraph.tools.mcp"), name)
    globals()[name] = value
    return value
