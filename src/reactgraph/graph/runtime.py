"""What a run hands its tools and LangChain middleware, as ``create_agent`` hands them: the run's context (the
user's dependencies, typed by ``context_schema``: pydantic-ai's ``deps``), the store, the stream writer, the state.

A run's LangGraph context holds two things: reactgraph's own options for the run (an ``AgentConfig``) and the
user's context. ``ReActAgent`` passes both as a ``RunContext``; the served graph takes one flat context whose schema
is AgentConfig's options (grouped, or flat) and the user's (``served_context_schema``: what a client sends, what Studio's form shows).
``split_context`` reads either back. A tool's ``ToolRuntime.context`` and a middleware's ``runtime.context`` are the
user's context (None without one), never reactgraph's options."""

from __future__ import annotations

import dataclasses
import logging
import typing
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool
from langgraph.config import get_config, get_stream_writer
from langgraph.prebuilt import ToolRuntime
from langgraph.runtime import Runtime, get_runtime
from pydantic import BaseModel, Field, create_model
from typing_extensions import is_typeddict

from reactgraph.config import AgentConfig, ConfigError, is_option, make_config
from reactgraph.tools.injection import task_state


@dataclass(frozen=True)
class RunContext:
    """A run's LangGraph context from ``ReActAgent``: its own AgentConfig overrides (None: the agent's) and the
    user's context (``run(..., context=...)``), passed on as it was given."""

    config: AgentConfig | None = None
    user: Any = None


def user_fields(schema: type) -> dict[str, Any]:
    """The fields of a context schema (a pydantic model, a dataclass or a TypedDict): name -> annotation."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return {name: f.annotation for name, f in schema.model_fields.items()}
    if dataclasses.is_dataclass(schema):
        hints = typing.get_type_hints(schema)
        return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(schema)}
    if is_typeddict(schema):
        return dict(typing.get_type_hints(schema))
    raise ConfigError(f"context_schema: {schema!r} is no pydantic model, dataclass or TypedDict")


def served_context_schema(schema: type) -> type[AgentConfig]:
    """The served graph's context schema: AgentConfig's fields and ``schema``'s, each of the latter optional (a run
    that sets none has no user context). ConfigError when a field of ``schema`` is named as an option of reactgraph's."""
    fields = user_fields(schema)
    if clash := sorted(name for name in fields if is_option(name)):
        raise ConfigError(f"context_schema: {', '.join(clash)} is also an option of reactgraph's run (AgentConfig): rename it")
    extra = {name: (hint | None, Field(default=None, description=f"{schema.__name__}.{name}")) for name, hint in fields.items()}
    return create_model(f"{schema.__name__}WithAgentConfig", __base__=AgentConfig, **extra)  # type: ignore[call-overload]


def user_context(schema: type | None, values: dict[str, Any]) -> Any:
    """The user's context from the values a client sent (None when it sent none): an instance of ``schema`` (a
    TypedDict's is the dict)."""
    if not values:
        return None
    if schema is None or is_typeddict(schema):
        return dict(values)
    return schema(**values)


def split_context(context: Any, schema: type | None) -> tuple[AgentConfig | None, Any]:
    """(the run's own AgentConfig, or None; the user's context, or None) from a run's LangGraph context: a
    RunContext, an AgentConfig (of the served schema: with the user's fields), or a dict of either's keys."""
    if isinstance(context, RunContext):
        return context.config, context.user
    if isinstance(context, AgentConfig):
        if type(context) is AgentConfig:
            return context, None
        given = {k: getattr(context, k) for k in context.model_fields_set}
    elif isinstance(context, dict):
        given = dict(context)
    else:
        return None, None
    own = {k: v for k, v in given.items() if is_option(k)}
    theirs = {k: v for k, v in given.items() if not is_option(k)}
    return (make_config(**own) if own or not theirs else None), user_context(schema, theirs)


def middleware_runtime(user: Any) -> Runtime:
    """The node's LangGraph runtime as a middleware sees it: its context the user's (as in ``create_agent``)."""
    runtime = get_runtime()
    return runtime.override(context=user) if runtime is not None else Runtime(context=user)


def tool_runtime(call_id: str, user: Any, tools: list[BaseTool]) -> ToolRuntime:
    """The ``ToolRuntime`` of a tool call made in act: the run's state (as the act task reads it: ToolNode's own
    reading), the user's context, the store and stream writer of the run, the call's id and config, the tools."""
    runtime = get_runtime()
    config = get_config()
    return ToolRuntime(
        state=task_state(config),
        context=user,
        config=config,
        stream_writer=runtime.stream_writer,
        tool_call_id=call_id,
        store=runtime.store,
        tools=tools,
        execution_info=runtime.execution_info,
        server_info=runtime.server_info,
    )


def tell_user(notice: str | None) -> None:
    """Tell the user ``notice`` (nothing for None): on the run's custom stream (``ReActAgent.stream``'s Progress, the
    CLI's live view, a served client's ``custom`` stream) and as a warning in the ``reactgraph`` log."""
    if not notice:
        return
    logging.getLogger("reactgraph").warning(notice)
    get_stream_writer()({"type": "notice", "message": notice})
