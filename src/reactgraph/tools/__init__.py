"""Tools: the registry, execution policies, the circuit breaker and the built-ins."""

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

__all__ = [
    "BUILTINS",
    "DocumentIndex",
    "InvalidArguments",
    "RegisteredTool",
    "ToolMetadata",
    "ToolPolicy",
    "ToolRegistrationError",
    "ToolRegistry",
    "ToolTimeout",
    "UnknownToolError",
    "register_builtins",
    "to_langchain_tool",
]
