"""Build the StateGraph: five nodes, the conditional edges from edges.py, compiled."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, Send

from reactgraph import edges
from reactgraph.config import AgentConfig
from reactgraph.deps import Deps
from reactgraph.nodes import (
    make_act,
    make_observe,
    make_summarize,
    make_terminate,
    make_think,
)
from reactgraph.state import InputState, OutputState, ReActState
from reactgraph.subagents import AgentTool
from reactgraph.tools.registry import ToolRegistry

NodeFactory = Callable[[Deps], Callable[..., Any]]  # Deps -> the node function (what make_think and the others are)
NODE_FACTORIES: dict[str, NodeFactory] = {
    "think": make_think,
    "act": make_act,
    "observe": make_observe,
    "summarize": make_summarize,
    "terminate": make_terminate,
}


def recursion_limit(max_iterations: int) -> int:
    """LangGraph supersteps a run of ``max_iterations`` may need: think, act, observe and summarize
    per iteration, and terminate, so that the run's own stop rules fire before LangGraph's limit."""
    return 4 * max_iterations + 10


def build_deps(
    model: str | BaseChatModel | None = None,
    tools: Iterable[Any] | ToolRegistry | None = None,
    config: AgentConfig | None = None,
) -> Deps:
    """What the nodes share: config, model (an instance, or by name from config) and the tool registry."""
    config = config or AgentConfig()
    if isinstance(model, str):
        config = config.model_copy(update={"model": model})
        model = None
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools or ())
    return Deps(config=config, registry=registry, model=model)


def build_graph(
    model: str | BaseChatModel | None = None,
    tools: Iterable[Any] | ToolRegistry | None = None,
    config: AgentConfig | None = None,
    *,
    checkpointer: Checkpointer = None,
    deps: Deps | None = None,
    nodes: Mapping[str, NodeFactory] | None = None,
) -> CompiledStateGraph:
    """The compiled ReAct graph. Its context schema is AgentConfig: a run's ``context`` overrides
    the fields it sets. ``nodes`` swaps nodes by name: each value is a factory taking the Deps, as
    ``reactgraph.nodes.make_observe`` and the others do, so a custom node can wrap the default one;
    the edges and the routing stay as they are."""
    deps = deps or build_deps(model, tools, config)
    if unknown := sorted(set(nodes or {}) - set(NODE_FACTORIES)):
        raise ValueError(f"nodes: no node named {', '.join(map(repr, unknown))}; the nodes are {', '.join(NODE_FACTORIES)}")
    builder = StateGraph(ReActState, context_schema=AgentConfig, input_schema=InputState, output_schema=OutputState)
    for name, factory in (NODE_FACTORIES | dict(nodes or {})).items():
        builder.add_node(name, factory(deps))

    # Named routers with explicit targets: Studio draws every conditional edge, and traces name them.
    def route_after_think(state: ReActState) -> Literal["terminate"] | list[Send]:
        return edges.route_after_think(state, deps.run_config(), deps.registry)

    def route_after_observe(state: ReActState) -> Literal["terminate", "summarize", "think"]:
        return edges.route_after_observe(state, deps.run_config())

    builder.add_edge(START, "think")
    builder.add_conditional_edges("think", route_after_think, ["act", "terminate"])
    builder.add_edge("act", "observe")
    builder.add_conditional_edges("observe", route_after_observe, ["think", "summarize", "terminate"])
    builder.add_edge("summarize", "think")
    builder.add_edge("terminate", END)
    graph = builder.compile(checkpointer=checkpointer, name="reactgraph")
    if children := [e.tool.graph for e in deps.registry.list() if isinstance(e.tool, AgentTool)]:
        # act runs sub-agents as subgraphs; LangGraph knows one graph per node (Studio draws it, and
        # get_state(subgraphs=True) reads a paused child with it): every child has the same state
        graph.nodes["act"].subgraphs = children[:1]
    return graph
