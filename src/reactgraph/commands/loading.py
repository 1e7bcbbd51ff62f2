"""What ``--tools`` names: built-in tools, or objects imported by 'module:attribute'."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

from reactgraph.cli import UsageError
from reactgraph.tools.registry import RegisteredTool, ToolRegistry, UnknownToolError


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


def load_tools(spec: str | None) -> tuple[ToolRegistry, tuple[str, ...] | None]:
    """--tools a,b: built-in tool names, or 'module:attribute' naming a tool, a list of tools or a
    ToolRegistry. Returns the registry and the selection (None = every built-in tool)."""
    registry = builtin_tools()
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
    return registry, tuple(names)
