"""Build the StateGraph: five nodes (``nodes``), the conditional edges (``routing``), LangChain middleware's hooks
as nodes of their own (``graph.middleware``), compiled."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Checkpointer, Send

from reactgraph.answers.typed import OutputSchema, output_model
from reactgraph.config import AgentConfig
from reactgraph.graph import _routing as routing
from reactgraph.graph.checks import Check, named_checks, resolved_checks
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.middleware import HookName, approvals, can_jump_to, merged_state, node_name, with_hook
from reactgraph.graph.middleware import checked as middleware_checked
from reactgraph.graph.nodes import make_act, make_hook, make_observe, make_summarize, make_terminate, make_think
from reactgraph.graph.runtime import served_context_schema
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
    middleware: Iterable[AgentMiddleware] = (),
    reply_checks: Iterable[str | Check] | None = None,
    *,
    context_schema: type | None = None,
    state_schema: type | None = None,
) -> NodeDeps:
    """What the nodes share: config, model (an instance, or by name from config), the tool registry
    (with the middleware's tools), the output schema (a pydantic model, or a signature string made into one),
    LangChain middleware (checked: ``graph.middleware.checked``; a HumanInTheLoopMiddleware's gated tools
    join ``approve_tools``), the reply checks (``reply_checks``: built-in names and your own functions, in order;
    None: the config's), the type of a run's user context and the state's own added fields (``state_schema``, as
    ``create_agent`` takes them)."""
    config = config or AgentConfig()
    own: dict[str, Check] = {}
    if reply_checks is not None:
        names, own = named_checks(reply_checks)
        config = config.override(reply_checks=names)
    resolved_checks(config.checks.reply_checks, own)  # an unknown name is an error now, not at the first turn
    if isinstance(model, str):
        config = config.model_copy(update={"model": model})
        model = None
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools or ())
    checked, gated = approvals(middleware_checked(middleware))
    if gated:  # HumanInTheLoopMiddleware: reactgraph's own approval
        config = config.override(tool_execution={"approve_tools": tuple(dict.fromkeys((*config.tool_execution.approve_tools, *gated)))})
    for tool in (t for m in checked for t in getattr(m, "tools", ())):
        if not registry.has(tool.name):
            registry.register(tool)
    if context_schema is not None:
        served_context_schema(context_schema)  # ConfigError now for a field named as one of reactgraph's options
    schema = output_model(output_schema)
    return NodeDeps(
        config=config, registry=registry, model=model, output_schema=schema, middleware=checked, own_checks=own,
        context_schema=context_schema, state_schema=state_schema,
    )


Router = Callable[[Any], Any]  # a conditional edge: the state -> a node's name, or Sends
Builder = StateGraph[Any, Any, Any, Any]  # the state and context schemas are made per agent (middleware, served context)
Graph = CompiledStateGraph[Any, Any, Any, Any]


def chain_hooks(
    builder: Builder,
    deps: NodeDeps,
    hook: HookName,
    onward: str | Router,
    targets: list[str],
    *,
    model: str,
    tools: Router,
) -> str | None:
    """The nodes of one hook (``<middleware>.<hook>``, in create_agent's order: before hooks as listed, after hooks
    reversed), each leading to the next and the last ``onward`` (``targets``: where that may lead). A hook that may
    jump (``middleware.can_jump_to``) goes where its jump says (``routing.route_after_hook``): ``end`` to terminate,
    ``model`` to ``model``, ``tools`` on to act. Returns the first node (None without any)."""
    chain = with_hook(deps.middleware, hook)[:: -1 if hook.startswith("after") else 1]
    state: type[ReActState] = builder.state_schema  # ReActState, with the middleware's fields
    for i, m in enumerate(chain):
        name = node_name(m, hook)
        builder.add_node(name, make_hook(m, hook)(deps), input_schema=state)
        following = node_name(chain[i + 1], hook) if i + 1 < len(chain) else None
        after: str | Router = following if following is not None else onward
        leads = [following] if following is not None else targets
        if not (allowed := can_jump_to(m, hook)):
            if isinstance(after, str):
                builder.add_edge(name, after)
            else:
                builder.add_conditional_edges(name, after, leads)
            continue
        jumps: dict[str, str | Router] = {"end": "terminate", "model": model, "tools": tools}

        # typed as a plain mapping: LangGraph then hands the router the whole state, the middleware's jump_to too
        def route_after_hook(state: Mapping[str, Any], allowed: frozenset[str] = allowed, after: str | Router = after) -> Any:
            to = jumps.get(routing.route_after_hook(state, allowed), after)
            return to if isinstance(to, str) else to(state)

        ends = {"terminate"} | ({model} if "model" in allowed else set()) | ({"act"} if "tools" in allowed else set())
        builder.add_conditional_edges(name, route_after_hook, sorted(ends | set(leads)))
    return node_name(chain[0], hook) if chain else None


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
) -> Graph:
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
    state = merged_state(ReActState, deps.middleware, deps.state_schema)
    context = served_context_schema(deps.context_schema) if deps.context_schema else AgentConfig
    builder: Builder = StateGraph(state, context_schema=context, input_schema=InputState, output_schema=output)
    for name, factory in (NODE_FACTORIES | dict(nodes or {})).items():
        node = factory(deps)
        own = factory is NODE_FACTORIES[name] and name not in PARALLEL_NODES  # a custom node writes as it returns
        keep = ALWAYS_WRITTEN | OUTCOME if name == "terminate" else ALWAYS_WRITTEN
        if name in PARALLEL_NODES:  # Send payloads: typed as the state, so ActInput's keys are no channels of the graph
            builder.add_node(name, node, input_schema=state)
        else:
            builder.add_node(name, changes_only(node, keep) if own else node)
    before_model = with_hook(deps.middleware, "before_model")
    loop = node_name(before_model[0], "before_model") if before_model else "think"  # every way into think passes them
    into: dict[Hashable, str] = {"think": loop, "summarize": "summarize", "terminate": "terminate"}

    # Named routers with explicit targets: Studio draws every conditional edge, and traces name them.
    def route_at_start(state: ReActState) -> Literal["summarize", "think"] | list[Send]:
        return routing.route_at_start(state, deps.run_config(), deps.registry)

    def route_after_think(state: ReActState) -> Literal["terminate"] | list[Send]:
        return routing.route_after_think(state, deps.run_config(), deps.registry)

    def route_after_observe(state: ReActState) -> Literal["terminate", "summarize", "think"]:
        return routing.route_after_observe(state, deps.run_config())

    def route_into_loop(state: ReActState) -> str | list[Send]:
        to = route_at_start(state)
        return to if isinstance(to, list) else into[to]

    # LangChain middleware: its hooks as nodes around think and the run (graph.middleware)
    first = chain_hooks(builder, deps, "before_agent", route_into_loop, ["summarize", loop, "act"], model=loop, tools=route_after_think)
    chain_hooks(builder, deps, "before_model", "think", ["think"], model="think", tools=route_after_think)
    after_model = chain_hooks(builder, deps, "after_model", route_after_think, ["act", "terminate"], model=loop, tools=route_after_think)
    last = chain_hooks(builder, deps, "after_agent", END, [END], model=loop, tools=route_after_think)
    if first:
        builder.add_edge(START, first)
    else:
        builder.add_conditional_edges(START, route_at_start, {"summarize": "summarize", "think": loop, "act": "act"})
    if after_model:
        builder.add_edge("think", after_model)
    else:
        builder.add_conditional_edges("think", route_after_think, ["act", "terminate"])
    builder.add_edge("act", "observe")
    builder.add_conditional_edges("observe", route_after_observe, into)
    builder.add_edge("summarize", loop)
    builder.add_edge("terminate", last or END)
    graph = builder.compile(checkpointer=checkpointer, store=store, name="reactgraph")
    if children := [e.tool.graph for e in deps.registry.list() if isinstance(e.tool, AgentTool)]:
        # act runs sub-agents as subgraphs; LangGraph knows one graph per node (Studio draws it, and
        # get_state(subgraphs=True) reads a paused child with it): every child has the same state
        graph.nodes["act"].subgraphs = children[:1]
    return graph
