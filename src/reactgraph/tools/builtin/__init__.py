"""Built-in tools, real and safe: calculator, text, search (SQLite FTS5), files, geometry, percentages.

    registry = ToolRegistry.with_builtins(root="docs/", documents=["notes/"])
    registry = ToolRegistry.with_builtins(["calculator", "text"])
    register_builtins(registry, ["read_file", "grep_search"], root=".")

The file tools need ``root`` (the only directory they may read); search_documents needs
``documents``. All built-ins are read-only, so their identical calls in a run are cached. They run in
the agent's process whatever the run's ``tool_execution.isolation`` (they keep their own guards: the calculator's
bounded AST, the file tools' root and size caps).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from reactgraph.tools.base import RegisteredTool, ToolMetadata, ToolRegistrationError
from reactgraph.tools.builtin.calculator import calculator
from reactgraph.tools.builtin.files import make_file_tools
from reactgraph.tools.builtin.geometry import (
    circle_area,
    percent_of,
    percentage_change,
    rectangle_area,
    triangle_area,
    what_percent,
)
from reactgraph.tools.builtin.search import DocumentIndex, index_of, make_search_tool
from reactgraph.tools.builtin.text import text
from reactgraph.tools.policy import ToolPolicy


class Registry(Protocol):
    """What registering needs of a registry (``ToolRegistry``, which builds on this package)."""

    def register(
        self, name: str, tool: Any, metadata: ToolMetadata, *, policy: ToolPolicy, replace: bool = False
    ) -> RegisteredTool: ...


@dataclass(frozen=True)
class Builtin:
    """One built-in: its category, example call, and what it needs ('' = nothing, 'root', 'documents')."""

    category: str
    example: str
    needs: str = ""


BUILTINS: dict[str, Builtin] = {
    "calculator": Builtin("basic", 'calculator(expression="sqrt(16) + 2**3")'),
    "triangle_area": Builtin("basic", "triangle_area(base=6, height=4)"),
    "rectangle_area": Builtin("basic", "rectangle_area(width=3, height=5)"),
    "circle_area": Builtin("basic", "circle_area(radius=2)"),
    "percent_of": Builtin("basic", "percent_of(percent=15, value=80)"),
    "percentage_change": Builtin("basic", "percentage_change(old=80, new=100)"),
    "what_percent": Builtin("basic", "what_percent(part=12, whole=80)"),
    "text": Builtin("utility", 'text(operation="count", text="to be or not", substring="o")'),
    "read_file": Builtin("utility", 'read_file(path="README.md")', "root"),
    "list_directory": Builtin("utility", 'list_directory(path=".")', "root"),
    "grep_search": Builtin("utility", 'grep_search(text="TODO", path="src")', "root"),
    "search_documents": Builtin("utility", 'search_documents(query="solar panels")', "documents"),
}
"""Every built-in by name; ``reactgraph tools`` and ``--tools a,b`` use these names."""

_PLAIN: dict[str, Callable[..., str]] = {
    f.__name__: f
    for f in (calculator, triangle_area, rectangle_area, circle_area, percent_of, percentage_change, what_percent, text)
}


def builtin_functions(*, root: str | Path | None = None, documents: Any = None) -> dict[str, Callable[..., str]]:
    """The built-in tool functions available with this root and these documents, by name."""
    functions = dict(_PLAIN)
    if root is not None:
        functions |= {f.__name__: f for f in make_file_tools(root)}
    if documents is not None:
        functions["search_documents"] = make_search_tool(index_of(documents))
    return functions


def register_builtins(
    registry: Registry,
    names: Iterable[str] | None = None,
    *,
    root: str | Path | None = None,
    documents: Any = None,
    replace: bool = False,
) -> list[str]:
    """Register the built-ins ``names`` (default: all this root/documents allow); the names registered."""
    wanted = list(BUILTINS) if names is None else list(names)
    unknown = [n for n in wanted if n not in BUILTINS]
    if unknown:
        raise ToolRegistrationError(f"no built-in tool {', '.join(map(repr, unknown))}; built-ins: {', '.join(BUILTINS)}")
    if names is not None:
        for name in wanted:
            needs = BUILTINS[name].needs
            if needs and {"root": root, "documents": documents}[needs] is None:
                raise ToolRegistrationError(f"tool {name!r}: needs {needs}= (what it may read)")
    functions = builtin_functions(root=root, documents=documents)
    registered = []
    for name in wanted:
        if name in functions:
            spec = BUILTINS[name]
            meta = ToolMetadata(category=spec.category, examples=(spec.example,))
            registry.register(name, functions[name], meta, policy=ToolPolicy(cacheable=True, isolation="none"), replace=replace)
            registered.append(name)
    return registered


__all__ = ["BUILTINS", "DocumentIndex", "builtin_functions", "register_builtins"]
