"""The graph that ``langgraph.json`` serves to ``langgraph dev``, LangGraph Studio and langgraph-sdk.

It is the graph ``ReActAgent`` runs (``build_graph``), compiled without a checkpointer: the
LangGraph server brings its own persistence. Each run's ``context`` is an ``AgentConfig``
(Studio's "Manage Assistants" / run configuration form): it picks the model by name
(``model``; unset, the default model, or a pulled one when the machine lacks it), the limits, budgets, and which of the served
tools to offer (``tools``, by name; unset = all). No model is called until a run starts.

Served tools: the built-ins that need no setup, and the file tools when
``REACTGRAPH_FILES_ROOT`` names the directory they may read (see ``served_tools``). To serve
your own tools, point a ``langgraph.json`` of your own at a module that calls
``make_graph(tools=[...])`` (with ``output_schema=`` for typed answers: the graph's output schema
then shows the answer's fields).

``langgraph.json`` names the factory ``serve``, which hands the server ``graph`` and first checks a
run's context — the server drops context keys that its context schema lacks, so a misspelt option
would otherwise be ignored without a word — and the run's model (``check_model``). When a check fails
(a misspelt option, an unknown tool, a model that cannot be used: no provider package, no API key,
Ollama unreachable or the model not pulled), the run gets ``refusing(problem)`` instead: the turn keeps its
question in ``messages``, calls no model and ends with reason failure and an AI message that says what to
change in the assistant's configuration or the run's context (a chat client shows it, as it shows any turn).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from reactgraph.answers.typed import OutputSchema
from reactgraph.config import AgentConfig, ConfigError, is_option, make_config, option_names
from reactgraph.config.names import unknown_option
from reactgraph.errors import did_you_mean
from reactgraph.graph import build_deps, build_graph
from reactgraph.graph.checks import resolved_checks
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.middleware import hook_nodes
from reactgraph.graph.stops import recursion_limit
from reactgraph.graph.turns import started_turn
from reactgraph.models.resolve import ModelUnavailableError, check_model, choosing, default_model
from reactgraph.state import ReActState, TerminationReason, stopped
from reactgraph.tools.registry import ToolRegistry, UnknownToolError

if TYPE_CHECKING:
    from langgraph_sdk.runtime import ServerRuntime

# An explicit limit keeps served runs independent of LangGraph's default and covers
# max_iterations up to MAX_SERVED_ITERATIONS. A run may still set its own ``recursion_limit``.
MAX_SERVED_ITERATIONS = 250

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
    output_schema: OutputSchema | None = None,
    middleware: Iterable[AgentMiddleware] = (),
    *,
    context_schema: type | None = None,
    state_schema: type | None = None,
    **options: Any,
) -> CompiledStateGraph:
    """The served graph: ``build_graph`` without a checkpointer, with a recursion limit that
    lets a run reach its own stop rules (max_iterations and the budgets) first; ``output_schema``
    types the final answer (the run's ``output``); ``middleware`` is LangChain's agent middleware, as
    ``ReActAgent`` takes it. ``context_schema`` adds the fields of a run's own context (a client sends them in
    the run's ``context`` beside reactgraph's options; tools and middleware read them as ``runtime.context``) and
    ``state_schema`` fields of the state, as ``ReActAgent`` takes them. Tools reach the server's store
    (``runtime.store``, ``InjectedStore``). ``options`` are AgentConfig options set over ``config``
    (``make_graph(tools=[...], limits=Limits(max_iterations=5))``); an unknown one is a ConfigError that lists the known ones."""
    if unknown := [name for name in options if not is_option(name)]:
        known = ", ".join(
            ["model", "tools", "config", "output_schema", "middleware", "context_schema", "state_schema", *AgentConfig.model_fields]
        )
        raise ConfigError(
            "; ".join(f"make_graph: {unknown_option(name, '', option_names())}" for name in unknown)
            + f". It takes: {known}"
        )
    checks = options.pop("reply_checks", None)  # names, or your own check functions too
    if options:
        config = (config or AgentConfig()).override(**options)
    deps = build_deps(
        model, served_tools() if tools is None else tools, config, output_schema, middleware, checks,
        context_schema=context_schema, state_schema=state_schema,
    )
    limit = recursion_limit(MAX_SERVED_ITERATIONS, hook_nodes(deps.middleware))
    return build_graph(deps=deps).with_config(recursion_limit=limit)


TOOLS = served_tools()
graph = make_graph(tools=TOOLS)

# What LangGraph itself may put in a run's configurable, which the server hands over as the context
# when a run sets none: not options, so never checked.
LANGGRAPH_KEYS = frozenset({"thread_id", "checkpoint_id", "checkpoint_ns", "run_id", "assistant_id", "graph_id", "user_id", "cron_id"})


def check_context(context: Mapping[str, Any], tools: ToolRegistry) -> AgentConfig:
    """A run's context as an AgentConfig; a misspelt option (a key close to one) is a ConfigError and
    an unknown tool name an UnknownToolError, each naming the close matches. A key like no option is
    left alone: when a run sets no context, the server hands over its ``configurable``, where a
    caller may keep keys of its own (a session id)."""
    options = {
        k: v
        for k, v in context.items()
        if k not in LANGGRAPH_KEYS
        and not k.startswith(("__", "langgraph_"))
        and (is_option(k) or did_you_mean(k, option_names()))
    }
    config = make_config(**options)
    tools.check(config)
    resolved_checks(config.checks.reply_checks)  # the served graph's checks are the built-in ones
    return config


async def serve(runtime: ServerRuntime) -> CompiledStateGraph:
    """The served graph (``langgraph.json`` names this factory): ``graph``, once the context of the
    run it is asked for has passed ``check_context`` and its model ``check_model``; ``refusing`` with the
    problem when a check fails. The check runs in a worker thread, off the server's event loop."""
    execution = runtime.execution_runtime
    if execution is None:  # the server asks for the graph's shape (schemas, Studio's drawing), not a run
        return graph
    context = getattr(execution, "context", None)
    try:
        config = check_context(context, TOOLS) if isinstance(context, Mapping) else AgentConfig()
        if config.model_settings.fallback_models:  # with fallbacks, an unusable primary falls back
            return graph
        if "model" not in config.model_fields_set:  # the default follows what the machine has (models.resolve)
            return graph_of(await asyncio.to_thread(default_model, config.model, how="served"))
        await asyncio.to_thread(check_model, config.model, config, how="served")
    except (ConfigError, UnknownToolError, ModelUnavailableError) as exc:
        return refusing(served_problem(exc))
    return graph


def served_problem(exc: Exception) -> str:
    """A failed check's message for a served client: where to change what it names (the context's options), and,
    for a model, how to name another in the assistant's configuration."""
    if isinstance(exc, ModelUnavailableError):
        text = str(exc)
        if "in the assistant's configuration" not in text:
            text += f" Or choose another model: {choosing('provider:model', 'served')}."
        return f"The model cannot be used: {text}"
    return f"The run's options cannot be used: {exc}. Change them in the assistant's configuration or the run's context."


_BY_MODEL: dict[str, CompiledStateGraph] = {}


def graph_of(model: str) -> CompiledStateGraph:
    """The served graph whose runs use ``model`` when their context names none (``graph`` for the default)."""
    if model == AgentConfig().model:
        return graph
    if model not in _BY_MODEL:
        _BY_MODEL[model] = make_graph(tools=TOOLS, config=AgentConfig(model=model))
    return _BY_MODEL[model]


_REFUSING: dict[str, CompiledStateGraph] = {}


def refusing(problem: str) -> CompiledStateGraph:
    """The served graph whose think records the turn's question and ends it at once with reason failure and
    ``problem`` as the detail, calling no model: terminate closes the turn with an AI message saying it. A resumed
    or replied-to turn runs its waiting calls first, as usual."""
    if problem not in _REFUSING:
        if len(_REFUSING) >= 32:
            _REFUSING.clear()
        deps = build_deps(None, TOOLS)
        limit = recursion_limit(MAX_SERVED_ITERATIONS, hook_nodes(deps.middleware))
        _REFUSING[problem] = build_graph(deps=deps, nodes={"think": refused_turn(problem)}).with_config(recursion_limit=limit)
    return _REFUSING[problem]


def refused_turn(problem: str) -> Callable[[NodeDeps], Callable[[ReActState], dict[str, Any]]]:
    """A think node (factory) that starts the turn as think does and stops it with reason failure and ``problem``."""

    def factory(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
        def think(state: ReActState) -> dict[str, Any]:
            """Reads the question; writes the turn's start and its stop (failure: ``problem``)."""
            _, update = started_turn(state, time.time(), deps.run_config())
            return update | {"termination": stopped(TerminationReason.FAILURE, problem), "final_answer": None}

        return think

    return factory
