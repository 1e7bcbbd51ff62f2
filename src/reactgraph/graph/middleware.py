"""LangChain's agent middleware (``langchain.agents.middleware``) at the matching points of reactgraph's loop.

A middleware list is checked once (``checked``): what overlaps reactgraph's own machinery is mapped onto it
(``HumanInTheLoopMiddleware`` onto ``approve_tools``: ``approvals``) or refused with the error that names
reactgraph's equivalent (``REFUSED``), as is a hook with only an async implementation (the nodes are synchronous).
The rest runs where ``create_agent`` runs it, with LangChain's own composition, first in the list outermost:

- ``before_agent`` / ``before_model`` / ``after_model`` / ``after_agent``: graph nodes named as ``create_agent``
  names them (``PIIMiddleware.before_model``), in ``create_agent``'s order (after hooks in reverse); a hook's
  ``jump_to`` goes where reactgraph's routing allows (``routing.route_after_hook``);
- ``wrap_model_call``: around think's model call, with a ``ModelRequest`` holding the prompt reactgraph built,
  the tools on offer and the model (``model_call``); reactgraph's own retries and ``fallback_models`` wrap it;
- ``wrap_tool_call``: around each tool call in act, before approval and reactgraph's policy (validation,
  timeouts, retries, isolation), which run in the innermost handler on the call as the middleware left it
  (``tool_call``);
- a middleware's ``state_schema`` fields join the graph's state (``merged_state``), its ``tools`` the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_type_hints

from langchain.agents.factory import _chain_model_call_handlers, _chain_tool_call_wrappers
from langchain.agents.middleware import (
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.types import Command
from pydantic import ValidationError
from typing_extensions import TypedDict

from reactgraph.answers.result import ReActStep

HookName = Literal["before_agent", "before_model", "after_model", "after_agent"]
HOOKS: tuple[HookName, ...] = ("before_agent", "before_model", "after_model", "after_agent")
JUMPS: dict[HookName, frozenset[str]] = {  # where each hook may jump in reactgraph's loop
    "before_agent": frozenset({"end", "model"}),
    "before_model": frozenset({"end", "model"}),
    "after_model": frozenset({"end", "model", "tools"}),
    "after_agent": frozenset(),
}

REFUSED: dict[str, str] = {  # a middleware class name -> reactgraph's equivalent
    "SummarizationMiddleware": (
        "reactgraph's summarize node folds old steps into a running summary: set AgentConfig summary_every "
        "and summary_token_threshold (and keep_recent_steps for how many steps the prompt shows)"
    ),
}


DECISIONS = {"approve", "edit", "reject"}  # what reactgraph's approval lets a person decide


class MiddlewareError(ValueError):
    """A middleware reactgraph refuses; the message names reactgraph's equivalent."""


def checked(middleware: Iterable[Any]) -> tuple[AgentMiddleware, ...]:
    """The middleware list, checked: LangChain ``AgentMiddleware`` objects (decorated functions are), unique
    names, none that overlaps reactgraph's machinery, every hook with a synchronous implementation."""
    items = tuple(middleware)
    for m in items:
        if not isinstance(m, AgentMiddleware):
            raise MiddlewareError(f"middleware: {m!r} is no langchain.agents.middleware.AgentMiddleware (or decorated hook)")
        if (name := type(m).__name__) in REFUSED:
            raise MiddlewareError(f"middleware: {name} is not run by reactgraph: {REFUSED[name]}")
        for hook in (*HOOKS, "wrap_model_call", "wrap_tool_call"):
            sync, asynchronous = f"{hook}", f"a{hook}"
            if overrides(m, asynchronous) and not overrides(m, sync):
                raise MiddlewareError(
                    f"middleware: {m.name} has only an async {asynchronous}; reactgraph's nodes are synchronous: give it {sync}"
                )
    names = [m.name for m in items]
    if dupes := sorted({n for n in names if names.count(n) > 1}):
        raise MiddlewareError(f"middleware: {', '.join(dupes)} given twice (each middleware once, as in create_agent)")
    return items


def approvals(middleware: Sequence[AgentMiddleware]) -> tuple[tuple[AgentMiddleware, ...], tuple[str, ...]]:
    """``HumanInTheLoopMiddleware`` mapped onto reactgraph's approval (``approve_tools``, which shows a call as
    that middleware does and takes its decisions): (the other middleware, the tools its ``interrupt_on`` gates).
    A gate that withholds one of approve, edit and reject has no equivalent and is refused (one that also allows
    LangChain's ``respond`` is gated with reactgraph's three)."""
    rest, gated = [], []
    for m in middleware:
        if not isinstance(m, HumanInTheLoopMiddleware):
            rest.append(m)
            continue
        for tool, gate in m.interrupt_on.items():
            if not DECISIONS <= set(gate.get("allowed_decisions") or DECISIONS):  # reactgraph would allow more
                raise MiddlewareError(
                    f"middleware: HumanInTheLoopMiddleware gates {tool!r} with allowed_decisions="
                    f"{sorted(gate['allowed_decisions'])}; reactgraph's approve_tools always lets a person approve, edit "
                    "or reject: name the tool in approve_tools, or give it all three decisions"
                )
            gated.append(tool)
    return tuple(rest), tuple(gated)


def overrides(m: AgentMiddleware, method: str) -> bool:
    """Whether ``m``'s class implements ``method`` itself (not AgentMiddleware's default)."""
    return getattr(type(m), method) is not getattr(AgentMiddleware, method)


def with_hook(middleware: Sequence[AgentMiddleware], hook: str) -> list[AgentMiddleware]:
    """The middleware that implement ``hook``, in list order."""
    return [m for m in middleware if overrides(m, hook)]


def hook_nodes(middleware: Sequence[AgentMiddleware]) -> int:
    """How many hook nodes the middleware adds to the graph (``stops.recursion_limit`` counts them)."""
    return sum(len(with_hook(middleware, hook)) for hook in HOOKS)


def node_name(m: AgentMiddleware, hook: HookName) -> str:
    """A hook's node, named as create_agent names it: ``<middleware name>.<hook>``."""
    return f"{m.name}.{hook}"


def can_jump_to(m: AgentMiddleware, hook: HookName) -> frozenset[str]:
    """Where ``m``'s ``hook`` may jump: what it declares (``@hook_config(can_jump_to=...)``) and reactgraph allows."""
    return frozenset(getattr(getattr(type(m), hook), "__can_jump_to__", ())) & JUMPS[hook]


def merged_state(base: type, middleware: Sequence[AgentMiddleware], extra: type | None = None) -> type:
    """``base`` (reactgraph's state) with the fields of each middleware's ``state_schema`` and of ``extra`` (the
    agent's ``state_schema``) that it lacks (their counters, ``jump_to``, a todo list); reactgraph's own fields
    (``messages``) keep their channels."""
    fields: dict[str, Any] = {}
    for schema in [*(m.state_schema for m in middleware), *([extra] if extra is not None else [])]:
        fields |= get_type_hints(schema, include_extras=True)
    own = get_type_hints(base, include_extras=True)
    if not set(fields) - set(own):
        return base
    return TypedDict(base.__name__, fields | own, total=False)  # type: ignore[operator]


@dataclass
class ModelCallOutcome:
    """What the wrap_model_call chain gave back: the reply and the state updates of its commands."""

    reply: AIMessage
    update: dict[str, Any]


def model_call(
    middleware: Sequence[AgentMiddleware], request: ModelRequest, call: Callable[[ModelRequest], AIMessage]
) -> ModelCallOutcome:
    """``call`` (the model call itself) wrapped by each middleware's ``wrap_model_call``, first outermost
    (LangChain's own composition). A middleware may change the request's model, tools or messages, call the
    handler again, or answer itself; the last AI message of the response is the reply."""
    chain = _chain_model_call_handlers([m.wrap_model_call for m in with_hook(middleware, "wrap_model_call")])

    def handler(req: ModelRequest) -> ModelResponse:
        return ModelResponse(result=[call(req)])

    if chain is None:
        return ModelCallOutcome(call(request), {})
    response = chain(request, handler)
    replies = [m for m in response.model_response.result if isinstance(m, AIMessage)]
    if not replies:
        raise MiddlewareError("wrap_model_call: the response holds no AIMessage")
    update: dict[str, Any] = {}
    for command in response.commands:
        if command.goto or command.resume or command.graph:
            raise MiddlewareError("wrap_model_call: a command may update the state only (jump with a hook's jump_to)")
        update |= dict(command.update or {})
    return ModelCallOutcome(replies[-1], update)


def request_prompt(request: ModelRequest) -> list[BaseMessage]:
    """The messages a request sends: its system message, then its messages."""
    return [*([request.system_message] if request.system_message else []), *request.messages]


def tool_call(
    middleware: Sequence[AgentMiddleware], request: ToolCallRequest, call: Callable[[ToolCallRequest], ToolMessage]
) -> ToolMessage | Command:
    """``call`` (the tool call as reactgraph runs it) wrapped by each middleware's ``wrap_tool_call``, first outermost."""
    chain = _chain_tool_call_wrappers([m.wrap_tool_call for m in with_hook(middleware, "wrap_tool_call")])
    return call(request) if chain is None else chain(request, call)


def hook_update(result: dict[str, Any] | Command | None, name: str) -> dict[str, Any]:
    """A hook's return as a state update (a Command's update; jumps go through ``jump_to``). Trace steps it writes
    must be trace steps: a malformed one is a MiddlewareError naming the hook, before it reaches the state (where
    it broke the run with a raw KeyError, then every reading of the thread)."""
    if isinstance(result, Command):
        if result.goto or result.resume or result.graph:
            raise MiddlewareError(f"{name}: return a state update with jump_to, not a Command with goto")
        update = dict(result.update or {})
    else:
        update = dict(result or {})
    if "steps" in update:
        checked_steps(update["steps"], name)
    return update


def checked_steps(steps: Any, name: str) -> None:
    """MiddlewareError naming the hook unless ``steps`` is a list of trace steps (``ReActStep``'s fields)."""
    if not isinstance(steps, list):
        raise MiddlewareError(f"{name}: its update's steps must be a list of trace steps, got {type(steps).__name__}")
    for index, step in enumerate(steps):
        try:
            ReActStep.model_validate(step)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'step'}: {e['msg']}" for e in exc.errors()[:3])
            raise MiddlewareError(f"{name}: steps[{index}] of its update is no trace step ({problems})") from None
