"""The graph that ``langgraph.json`` serves to ``langgraph dev``, LangGraph Studio and langgraph-sdk.

It is the graph ``ReActAgent`` runs (``build_graph``), compiled without a checkpointer: the
LangGraph server brings its own persistence. Each run's ``context`` is an ``AgentConfig``
(Studio's "Manage Assistants" / run configuration form): it picks the model by name
(``model``, default ``ollama:qwen2.5:7b``), the limits, budgets, and which of the served
tools to offer (``tools``, by name; unset = all). No model is called until a run starts.

Served tools: the built-ins that need no setup (see ``served_tools``). To serve your own
tools, point a ``langgraph.json`` of your own at a module that calls
``make_graph(tools=[...])``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from reactgraph.config import AgentConfig
from reactgraph.graph import build_graph
from reactgraph.tools.registry import ToolRegistry

# Supersteps per iteration: think, act (all of a turn's calls run in one superstep), observe,
# and summarize when due. The server's own default covers any realistic max_iterations; this
# explicit limit keeps served runs independent of LangGraph's default, and covers
# max_iterations up to MAX_SERVED_ITERATIONS. A run may still set its own ``recursion_limit``.
MAX_SERVED_ITERATIONS = 250
SERVER_RECURSION_LIMIT = 4 * MAX_SERVED_ITERATIONS + 10


def served_tools() -> list[Any]:
    """The tools the served graph offers: the built-ins that need no per-user setup
    (a files root or a document collection), when the built-ins package provides them."""
    try:
        from reactgraph.tools import builtin
    except ImportError:  # pragma: no cover - the built-ins are optional for the server
        return []
    factory = getattr(builtin, "default_tools", None)
    return list(factory()) if callable(factory) else []


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
