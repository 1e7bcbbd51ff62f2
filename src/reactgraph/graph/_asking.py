"""The turn's model call: what it offers the model (``offered``: the tools, their specs, the tools the breaker took
out, the tags), and the call in the run's format on the run's model and then its fallbacks (``asked``), through
LangChain middleware's ``wrap_model_call`` when there is any (``wrapped``), inside reactgraph's retries and fallback
models."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

from reactgraph.answers.typed import answer_shape
from reactgraph.config import AgentConfig
from reactgraph.graph._scratchpad import think_messages
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.middleware import model_call, request_prompt, with_hook
from reactgraph.graph.runtime import middleware_runtime
from reactgraph.models.calls import CallCut, invoke_within
from reactgraph.state import ReActState, tool_stats
from reactgraph.tool_calling import Format, ReadContext, Tags, prepare, starting_format
from reactgraph.tools.breaker import disabled_tools
from reactgraph.tools.specs import ToolSpec, tool_specs


class Exchange(NamedTuple):
    """One answered model call: the reply, the prompt, the model that answered, and its format; with
    wrap_model_call middleware, their names and the state updates their commands made."""

    reply: AIMessage
    messages: list[BaseMessage]
    model: BaseChatModel
    fmt: Format
    ctx: ReadContext
    middleware: tuple[str, ...] = ()
    update: dict[str, Any] = {}


class Offer(NamedTuple):
    """What a turn offers the model: the tools (ask_user too), their specs, the tools the breaker took out, the tags."""

    tools: list[Any]
    specs: tuple[ToolSpec, ...]
    disabled: set[str]
    tags: Tags


class Bounds(NamedTuple):
    """The run's deadline and cancel check, for the turn's model calls."""

    deadline: float | None
    cancelled: Callable[[], bool]


def offered(deps: NodeDeps, cfg: AgentConfig, state: ReActState) -> Offer:
    """The tools of the turn: the run's selection without the ones the breaker took out, and ask_user."""
    disabled = disabled_tools(tool_stats(state).get("failures"), cfg)
    tools = deps.offered_tools(cfg, disabled)
    return Offer(tools, deps.specs(tools), disabled, Tags.from_config(cfg))


def asked(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, offer: Offer, iteration: int, now: float, bounds: Bounds
) -> Exchange:
    """The turn's model call, in the run's format (or, for a model's first turn, the one learnt for it), on
    the run's model and then its fallbacks; CallCut when the run's deadline or a cancel cut it."""
    shape = answer_shape(deps.output_schema) if deps.output_schema else ""

    def attempt(model: BaseChatModel) -> Exchange:
        name = state.get("tool_format") or starting_format(cfg.tool_calling, deps.learned_format(model))
        bound, fmt, ctx = deps.prepared(model, offer.tools, offer.specs, offer.tags, name, cfg.tool_calling)
        messages = think_messages(
            state, cfg, question=state["question"], iteration=iteration, now=now, fmt=fmt, ctx=ctx, answer_shape=shape
        )
        if not (wrapping := with_hook(deps.middleware, "wrap_model_call")):
            reply = invoke_within(bound, messages, deadline=bounds.deadline, cancelled=bounds.cancelled)
            return Exchange(reply, messages, model, fmt, ctx)
        return wrapped(deps, state, cfg, offer, bounds, Exchange(AIMessage(""), messages, model, fmt, ctx), wrapping)

    return deps.call_model(cfg, attempt, deadline=bounds.deadline)


def wrapped(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, offer: Offer, bounds: Bounds, built: Exchange,
    wrapping: list[AgentMiddleware],
) -> Exchange:
    """The turn's model call through the wrap_model_call middleware (``graph.middleware.model_call``): the
    request holds the prompt reactgraph ``built``, the tools on offer and the model. The innermost call binds
    the request's tools to the request's model in the turn's format (a format that describes the tools in the
    prompt describes the request's tools instead), with the request's ``model_settings``, and sends the request's
    messages. A cut call (the deadline,
    a cancel) stays cut, and a model that raised stays failed, whatever reply a middleware made up for it
    (``ModelRetryMiddleware(on_failure="continue")``'s text is no answer)."""
    sent: list[Exchange] = []
    failed: list[Exception] = []

    def call(request: ModelRequest) -> AIMessage:
        tools = list(request.tools)
        bound, fmt, ctx = prepare(request.model, tools, tool_specs(tools), offer.tags, built.fmt.name, cfg.tool_calling)
        if request.model_settings:  # what a middleware asked of this call (create_agent binds them too)
            bound = bound.bind(**request.model_settings)
        messages = retold(request_prompt(request), built.fmt.tools_prompt(built.ctx), fmt.tools_prompt(ctx))
        try:
            reply = invoke_within(bound, messages, deadline=bounds.deadline, cancelled=bounds.cancelled)
        except Exception as exc:
            failed.append(exc)
            raise
        sent.append(Exchange(reply, messages, request.model, fmt, ctx))
        return reply

    system, *rest = built.messages
    # LangChain types a request's messages as a list of its message union (invariant) and its state as AgentState,
    # whose keys ReActState has: both ignores are for that
    request = ModelRequest(
        model=built.model, messages=rest, system_message=system if isinstance(system, SystemMessage) else None,  # type: ignore[arg-type]
        tools=list(offer.tools), state=state, runtime=middleware_runtime(deps.user_context()),  # type: ignore[arg-type]
    )
    if not isinstance(system, SystemMessage):
        request = request.override(messages=list(built.messages))  # type: ignore[arg-type]
    outcome = model_call(wrapping, request, call)
    if cut := next((e for e in failed if isinstance(e, CallCut)), None):
        raise cut
    names = tuple(m.name for m in wrapping)
    answered = next((e for e in reversed(sent) if e.reply is outcome.reply), None)
    if answered is None and failed:  # a middleware wrote a reply for a model that raised: the model failed
        raise failed[-1]
    return (answered or built._replace(reply=outcome.reply))._replace(middleware=names, update=outcome.update)


def retold(messages: list[BaseMessage], described: str, describe: str) -> list[BaseMessage]:
    """``messages`` with the tools' description in the system prompt (``described``) replaced by ``describe``
    (a middleware changed the tools); the rest as the middleware left it."""
    if described == describe or not messages or not isinstance(messages[0], SystemMessage):
        return messages
    system = messages[0]
    return [system.model_copy(update={"content": system.text.replace(described, describe)}), *messages[1:]]
