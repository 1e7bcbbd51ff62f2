"""What a command line or a queued run names by strings, loaded: the tools of ``--tools`` (built-in names, or
objects imported by 'module:attribute') and ``--mcp`` (MCP servers' tools), and the model of ``--model``
('provider:model', or a 'module:factory'). A name that cannot be loaded is a ConfigError saying why: the
``reactgraph`` command reports it as a usage error, a queued run's ``submit`` before anything is queued."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reactgraph.config import ConfigError
from reactgraph.models.resolve import PROVIDERS, ModelUnavailableError, model_spec
from reactgraph.tools.base import RegisteredTool
from reactgraph.tools.mcp import load_mcp_tools
from reactgraph.tools.registry import ToolRegistry, UnknownToolError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

def load_model(spec: str | None) -> str | BaseChatModel | None:
    """--model: 'provider:model' (e.g. 'ollama:qwen2.5:7b'), a bare name Ollama has ('qwen2.5-coder:1.5b', read as
    'ollama:qwen2.5-coder:1.5b'), or 'module:factory' naming a function that returns a chat model instance; any other
    name is a ConfigError saying how to write it."""
    if spec is None:
        return spec
    module, sep, _ = spec.partition(":")
    if not sep or module in PROVIDERS or not all(part.isidentifier() for part in module.split(".")):
        try:
            return model_spec(spec)
        except ModelUnavailableError as exc:
            raise ConfigError(f"--model: {exc}") from None
    from langchain_core.language_models import BaseChatModel  # here: `reactgraph tools` does without its 0.3 s

    model = load_object(spec)()
    if not isinstance(model, BaseChatModel):
        raise ConfigError(f"--model {spec!r}: the factory returned {type(model).__name__}, not a chat model")
    return model


def load_object(spec: str) -> Any:
    """The object named by 'package.module:attribute', found on the path or in the current directory
    (as ``python -m`` would)."""
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot import {spec!r}: {exc}") from None


def builtin_tools(documents: str | None = None) -> ToolRegistry:
    """The built-in tools; the file tools may read only the current directory, search_documents searches
    ``documents`` (a file or a directory; without it, it is not offered)."""
    if documents is not None and not Path(documents).exists():
        raise ConfigError(f"--documents {documents!r}: no such file or directory")
    return ToolRegistry.with_builtins(root=Path.cwd(), documents=Path(documents) if documents else None)


def load_tools(
    spec: str | None, mcp: str | None = None, documents: str | None = None, db: str | None = None
) -> tuple[ToolRegistry, tuple[str, ...] | None]:
    """--tools a,b: built-in tool names, or 'module:attribute' naming a tool, a list of tools or a
    ToolRegistry; --mcp FILE: the tools of the file's MCP servers, added to the selection (their stderr to
    ``mcp_log(db)``); --documents PATH: what search_documents searches. Returns the registry and the selection
    (None = every registered tool)."""
    registry = builtin_tools(documents)
    mcp_names = add_mcp_tools(registry, mcp, mcp_log(db)) if mcp else []
    if spec is None:
        return registry, None
    names: list[str] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        if ":" not in item:
            try:
                names += registry.select([item])
            except UnknownToolError as exc:
                raise ConfigError(f"--tools: {exc}") from None
            continue
        names += register_spec(registry, item)
    return registry, tuple(names + mcp_names)


def register_spec(registry: ToolRegistry, spec: str) -> list[str]:
    """Register what 'module:attribute' names (a tool, a list of tools or a ToolRegistry), replacing tools of the
    same names; the names registered."""
    found = load_object(spec)
    tools = found.list() if isinstance(found, ToolRegistry) else found if isinstance(found, list | tuple) else [found]
    names = []
    for tool in tools:
        if isinstance(tool, RegisteredTool):
            entry = registry.register(tool.name, tool.tool, tool.metadata, policy=tool.policy, replace=True)
        else:
            entry = registry.register(tool, replace=True)
        names.append(entry.name)
    return names


def mcp_log(db: str | None = None) -> Path:
    """Where the MCP servers' own output (their stderr) goes: ``mcp.log`` beside the checkpoint file ``db`` (default
    ``REACTGRAPH_DB`` or ./.reactgraph/checkpoints.sqlite); in ./.reactgraph/ for a Postgres database."""
    # here: `reactgraph tools` loads no LangGraph
    from reactgraph.persistence.base import DEFAULT_DB, default_db, is_postgres_url

    where = db or default_db()
    return (DEFAULT_DB.parent if is_postgres_url(where) else Path(where).absolute().parent) / "mcp.log"


def add_mcp_tools(registry: ToolRegistry, path: str, log: Path | None = None) -> list[str]:
    """Register the tools of the MCP servers in the file at ``path`` (category ``mcp:<server>``; a
    built-in of the same name is replaced), their stderr appended to ``log``, and return their names."""
    tools = load_mcp_tools(path, stderr=log)
    return [registry.register(t, {"category": f"mcp:{(t.metadata or {})['mcp_server']}"}, replace=True).name for t in tools]
