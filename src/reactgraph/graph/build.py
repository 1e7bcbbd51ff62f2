"""Build the StateGraph: five nodes (``nodes``), the conditional edges (``routing``), compiled."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Checkpointer, Send

from reactgraph.answers.typed import OutputSchema, output_model
from reactgraph.config import AgentConfig
from reactgraph.graph import routing
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.nodes import make_act, make_observe, make_summarize, make_terminate, make_think
from reactgraph.graph.subagents import AgentTool
from reactgraph.state import ALWAYS_WRITTEN, OUTCOME, InputState, OutputState, ReActState, changes, typed_output_state
from reactgraph.tools.registry import ToolRegistry

NodeFactory = Callable[[NodeDeps], Callable[..., Any]]  # NodeDeps -> the node function (what make_think and the others are)
NODE_FACTORIES: dict[str, NodeFactory] = {
    "think": make_think,
    "act": make_act,
    "observe": make_observe,
    "summarize": make_summarize,
    "terminate": make_terminate,
}
PARALLEL_NODES = frozenset({"act"})  # nodes that run as several tasks of one step (one per tool call)


def changes_only(node: Callable[[ReActState], Any], keep: frozenset[str] = ALWAYS_WRITTEN) -> Callable[[ReActState], Any]:
    """``node`` writing only the keys it changes (``state.changes``), and those in ``keep``: fewer rows per checkpoint."""

    @functools.wraps(node)
    def changed(state: ReActState) -> Any:
        return changes(state, node(state), keep)

    return changed


def build_deps(
    model: str | BaseChatModel | None = None,
    tools: Iterable[Any] | ToolRegistry | None = None,
    config: AgentConfig | None = None,
    output_schema: OutputSchema | None = None,
) -> NodeDeps:
    """What the nodes share: config, model (an instance, or by name from config), the tool registry
    and the output schema (a pydantic model, or a signature string made into one)."""
    config = config or AgentConfig()
    if isinstance(model, str):
        config = config.model_copy(update={"model": model})
        model = None
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools or ())
    return NodeDeps(config=config, registry=registry, model=model, output_schema=output_model(output_schema))


def build_graph(
    model: str | BaseChatModel | None = None,
    tools: Iterable[Any] | ToolRegistry | None = None,
    config: AgentConfig | None = None,
    *,
    checkpointer: Checkpointer = None,
    deps: NodeDeps | None = None,
    nodes: Mapping[str, NodeFactory] | None = None,
    output_schema: OutputSchema | None = None,
    store: BaseStore | None = None,
) -> CompiledStateGraph:
    """The compiled ReAct graph. Its context schema is AgentConfig: a run's ``context`` overrides
    the fields it sets. ``nodes`` swaps nodes by name: each value is a factory taking the NodeDeps, as
    ``reactgraph.graph.nodes.make_observe`` and the others do, so a custom node can wrap the default one;
    the edges and the routing stay as they are. ``output_schema`` (a pydantic model or a signature
    string) types the final answer: the run's ``output``, shown in the graph's output schema.
    ``store`` holds the playbook (``AgentConfig.playbook``); under ``langgraph dev`` the server's is used."""
    if deps is not None and output_schema is not None:
        raise ValueError("build_graph: give output_schema to build_deps when passing deps")
    deps = deps or build_deps(model, tools, config, output_schema)
    if unknown := sorted(set(nodes or {}) - set(NODE_FACTORIES)):
        raise ValueError(f"nodes: no node named {', '.join(map(repr, unknown))}; the nodes are {', '.join(NODE_FACTORIES)}")
    output = typed_output_state(deps.output_schema) if deps.output_schema else OutputState
    builder = StateGraph(ReActState, context_schema=AgentConfig, input_schema=InputState, output_schema=output)
    for name, factory in (NODE_FACTORIES | dict(nodes or {})).items():
        node = factory(deps)
        own = factory is NODE_FACTORIES[name] and name not in PARALLEL_NODES  # a custom node writes as it returns
        keep = ALWAYS_WRITTEN | OUTCOME if name == "terminate" else ALWAYS_WRITTEN
        builder.add_node(name, changes_only(node, keep) if own else node)

    # Named routers with explicit targets: Studio draws every conditional edge, and traces name them.
    def route_at_start(state: ReActState) -> Literal["summarize", "think"]:
        return routing.route_at_start(state, deps.run_config())

    def route_after_think(state: ReActState) -> Literal["terminate"] | list[Send]:
        return routing.route_after_think(state, deps.run_config(), deps.registry)

    def route_after_observe(state: ReActState) -> Literal["terminate", "summarize", "think"]:
        return routing.route_after_observe(state, deps.run_config())

    builder.add_conditional_edges(START, route_at_start, ["summarize", "think"])
    builder.add_conditional_edges("think", route_after_think, ["act", "terminate"])
    builder.add_edge("act", "observe")
    builder.add_conditional_edges("observe", route_after_observe, ["think", "summarize", "terminate"])
    builder.add_edge("summarize", "think")
    builder.add_edge("terminate", END)
    graph = builder.compile(checkpointer=checkpointer, store=store, name="reactgraph")
    if children := [e.tool.graph for e in deps.registry.list() if isinstance(e.tool, AgentTool)]:
        # act runs sub-agents as subgraphs; LangGraph knows one graph per node (Studio draws it, and
        # get_state(subgraphs=True) reads a paused child with it): every child has the same state
        graph.nodes["act"].subgraphs = children[:1]
    return graph
