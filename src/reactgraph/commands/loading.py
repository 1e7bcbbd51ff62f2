"""What ``--tools`` and ``--mcp`` name: built-in tools, objects imported by 'module:attribute', MCP servers' tools."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

from reactgraph.cli import UsageError
from reactgraph.tools.base import RegisteredTool
from reactgraph.tools.registry import ToolRegistry, UnknownToolError


def load_object(spec: str) -> Any:
    """The object named by 'package.module:attribute', found on the path or in the current directory
    (as ``python -m`` would)."""
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"cannot import {spec!r}: {exc}") from None


def builtin_tools() -> ToolRegistry:
    """The built-in tools; the file tools may read only the current directory."""
    return ToolRegistry.with_builtins(root=Path.cwd())


def load_tools(spec: str | None, mcp: str | None = None) -> tuple[ToolRegistry, tuple[str, ...] | None]:
    """--tools a,b: built-in tool names, or 'module:attribute' naming a tool, a list of tools or a
    ToolRegistry; --mcp FILE: the tools of the file's MCP servers, added to the selection. Returns the
    registry and the selection (None = every registered tool)."""
    registry = builtin_tools()
    mcp_names = add_mcp_tools(registry, mcp) if mcp else []
    if spec is None:
        return registry, None
    names: list[str] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        if ":" not in item:
            try:
                names += registry.select([item])
            except UnknownToolError as exc:
                raise UsageError(f"--tools: {exc}") from None
            continue
        found = load_object(item)
        tools = found.list() if isinstance(found, ToolRegistry) else found if isinstance(found, list | tuple) else [found]
        for tool in tools:
            if isinstance(tool, RegisteredTool):
                entry = registry.register(tool.name, tool.tool, tool.metadata, policy=tool.policy, replace=True)
            else:
                entry = registry.register(tool, replace=True)
            names.append(entry.name)
    return registry, tuple(names + mcp_names)


def add_mcp_tools(registry: ToolRegistry, path: str) -> list[str]:
    """Register the tools of the MCP servers in the file at ``path`` (category ``mcp:<server>``; a
    built-in of the same name is replaced) and return their names."""
    from reactgraph.tools.mcp import load_mcp_tools  # with the agent's tool execution: only when --mcp is given

    tools = load_mcp_tools(path)
    return [registry.register(t, {"category": f"mcp:{t.metadata['mcp_server']}"}, replace=True).name for t in tools]
