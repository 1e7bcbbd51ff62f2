"""Tools: the registry and how calls are executed."""

from reactgraph.tools.registry import RegisteredTool, ToolRegistrationError, ToolRegistry, to_langchain_tool

__all__ = ["RegisteredTool", "ToolRegistrationError", "ToolRegistry", "to_langchain_tool"]
