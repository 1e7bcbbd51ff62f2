"""Tools: the registry, execution policies, the circuit breaker, the built-ins and MCP servers' tools."""

from reactgraph.tools.builtin import BUILTINS, DocumentIndex, register_builtins
from reactgraph.tools.mcp import (
    MCPConfigError,
    MCPServerError,
    MCPUnavailableError,
    aload_mcp_tools,
    load_mcp_tools,
)
from reactgraph.tools.policy import InvalidArguments, ToolPolicy, ToolTimeout
from reactgraph.tools.registry import (
    RegisteredTool,
    ToolMetadata,
    ToolRegistrationError,
    ToolRegistry,
    UnknownToolError,
    to_langchain_tool,
)

__all__ = [
    "BUILTINS",
    "DocumentIndex",
    "InvalidArguments",
    "MCPConfigError",
    "MCPServerError",
    "MCPUnavailableError",
    "RegisteredTool",
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
