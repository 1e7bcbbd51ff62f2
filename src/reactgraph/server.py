"""The graph that ``langgraph.json`` serves to ``langgraph dev``, LangGraph Studio and langgraph-sdk.

It is the graph ``ReActAgent`` runs (``build_graph``), compiled without a checkpointer: the
LangGraph server brings its own persistence. Each run's ``context`` is an ``AgentConfig``
(Studio's "Manage Assistants" / run configuration form): it picks the model by name
(``model``, default ``ollama:qwen2.5:7b``), the limits, budgets, and which of the served
tools to offer (``tools``, by name; unset = all). No model is called until a run starts.

Served tools: the built-ins that need no setup, and the file tools when
``REACTGRAPH_FILES_ROOT`` names the directory they may read (see ``served_tools``). To serve
your own tools, point a ``langgraph.json`` of your own at a module that calls
``make_graph(tools=[...])``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from reactgraph.config import AgentConfig
from reactgraph.graph import build_graph, recursion_limit
from reactgraph.tools.registry import ToolRegistry

# An explicit limit keeps served runs independent of LangGraph's default and covers
# max_iterations up to MAX_SERVED_ITERATIONS. A run may still set its own ``recursion_limit``.
MAX_SERVED_ITERATIONS = 250
SERVER_RECURSION_LIMIT = recursion_limit(MAX_SERVED_ITERATIONS)

FILES_ROOT_ENV = "REACTGRAPH_FILES_ROOT"


def served_tools() -> ToolRegistry:
    """The tools the served graph offers: every built-in that needs no setup (calculator, the
    geometry and percentage tools, text), plus the file tools (read_file, list_directory,
    grep_search) confined to ``REACTGRAPH_FILES_ROOT`` when that variable names a directory.
    A run's ``tools`` context field selects among them by name."""
    root = os.environ.get(FILES_ROOT_ENV, "").strip() or None
    return ToolRegistry.with_builtins(root=root)


def make_graph(
    model: str | BaseChatModel | None = None,
    tools: Iterable[Any] | ToolRegistry | None = None,
    config: AgentConfig | None = None,
) -> CompiledStateGraph:
    """The served graph: ``build_graph`` without a checkpointer, with a recursion limit that
    lets a run reach its own stop rules (max_iterations and the budgets) first."""
    compiled = build_graph(model, served_tools() if tools is None else tools, config)
    return compiled.with_config(recursion_limit=SERVER_RECURSION_LIMIT)


graph = make_graph()
