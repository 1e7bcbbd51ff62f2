"""Tools: the registry, execution policies, the circuit breaker, the built-ins and MCP servers' tools.

The modules, each on the ones after it: ``approval`` (a call waits for a person), ``mcp`` (MCP servers'
tools), ``execution`` (one call under its policy), ``registry``, ``builtin/``, ``isolation/`` (calls in worker
processes), and what they share: ``base`` (a registered tool), ``content`` (a result as text), ``policy``,
``specs`` (a tool as a prompt shows it), ``json_args``, ``breaker``."""

from reactgraph.config import ResourceLimits
from reactgraph.tools.base import RegisteredTool, ToolMetadata, ToolRegistrationError, to_langchain_tool
from reactgraph.tools.builtin import BUILTINS, DocumentIndex, register_builtins
from reactgraph.tools.mcp import MCPConfigError, MCPServerError, MCPUnavailableError, aload_mcp_tools, load_mcp_tools
from reactgraph.tools.policy import InvalidArguments, ToolPolicy, ToolTimeout
from reactgraph.tools.registry import ToolRegistry, UnknownToolError

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
