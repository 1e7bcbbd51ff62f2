"""Tools: the registry, execution policies, the circuit breaker, the built-ins and MCP servers' tools.

The modules, each on the ones after it: ``approval`` (a call waits for a person), ``mcp`` (MCP servers'
tools), ``execution`` (one call under its policy), ``registry``, ``builtin/``, ``isolation/`` (calls in worker
processes), and what they share: ``base`` (a registered tool), ``content`` (a result as text), ``policy``,
``specs`` (a tool as a prompt shows it), ``breaker``; ``_json_args`` (execution's check of JSON-schema arguments) is
the package's own.

The public names are imported on first use (PEP 562), as the package's face does: a worker process of
``isolation`` imports this package and must not wait for LangChain's tools, the built-ins and MCP to load."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reactgraph.lazy import lazy_exports

if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ imports them
    from reactgraph.config import ResourceLimits
    from reactgraph.tools.base import RegisteredTool, ToolMetadata, ToolRegistrationError, to_langchain_tool
    from reactgraph.tools.builtin import BUILTINS, DocumentIndex, register_builtins
    from reactgraph.tools.mcp import (
        MCPConfigError,
        MCPServerError,
        MCPUnavailableError,
        aload_mcp_tools,
        load_mcp_tools,
    )
    from reactgraph.tools.policy import InvalidArguments, ToolPolicy, ToolTimeout
    from reactgraph.tools.registry import ToolRegistry, UnknownToolError

_HOMES = {  # public name -> the module that defines it
    "BUILTINS": "reactgraph.tools.builtin",
    "DocumentIndex": "reactgraph.tools.builtin",
    "InvalidArguments": "reactgraph.tools.policy",
    "MCPConfigError": "reactgraph.tools.mcp",
    "MCPServerError": "reactgraph.tools.mcp",
    "MCPUnavailableError": "reactgraph.tools.mcp",
    "RegisteredTool": "reactgraph.tools.base",
    "ResourceLimits": "reactgraph.config",
    "ToolMetadata": "reactgraph.tools.base",
    "ToolPolicy": "reactgraph.tools.policy",
    "ToolRegistrationError": "reactgraph.tools.base",
    "ToolRegistry": "reactgraph.tools.registry",
    "ToolTimeout": "reactgraph.tools.policy",
    "UnknownToolError": "reactgraph.tools.registry",
    "aload_mcp_tools": "reactgraph.tools.mcp",
    "load_mcp_tools": "reactgraph.tools.mcp",
    "register_builtins": "reactgraph.tools.builtin",
    "to_langchain_tool": "reactgraph.tools.base",
}

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


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
