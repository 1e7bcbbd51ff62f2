"""What a tool takes that the model does not give: LangGraph's injected arguments, filled at call time as
``create_agent``'s ToolNode fills them (its own code, reused: ``ToolNode._inject_tool_args``).

- ``runtime: ToolRuntime``: the run's state, its context (``context=``, typed by ``context_schema``), the store,
  the stream writer, the tool call's id and config;
- ``Annotated[dict, InjectedState]`` (the whole state) or ``InjectedState("field")`` (one field of it);
- ``Annotated[BaseStore, InjectedStore()]``: the agent's store (``ReActAgent(store=...)``, the server's when served);
- ``Annotated[str, InjectedToolCallId]``: the call's id (the tool is then invoked with the whole tool call, as
  ToolNode invokes it, and answers with a ToolMessage).

None of them is in the schema the model sees (``model_schema``: LangChain's ``tool_call_schema``), in any format,
nor in what the model is told when its arguments do not fit."""

from __future__ import annotations

import dataclasses
import pickle
import threading
from typing import Any, NamedTuple

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, InjectedToolCallId
from langchain_core.tools.base import _is_injected_arg_type, get_all_basemodel_annotations
from langgraph.prebuilt import ToolNode, ToolRuntime
from langgraph.prebuilt.tool_node import _get_all_injected_args, _InjectedArgs
from pydantic import BaseModel


class InjectionError(RuntimeError):
    """The run cannot give a tool what it takes (no store, a state field the state lacks): the agent's setup, not
    the model's arguments."""


_NODE = ToolNode([])  # its injection, reused: the same arguments filled the same way, forged ones dropped
_LOCK = threading.Lock()
_KNOWN: dict[int, tuple[BaseTool, Injected]] = {}  # id of a tool -> (the tool, what it takes): read once per tool


class Injected(NamedTuple):
    """What one tool takes besides the model's arguments."""

    args: _InjectedArgs  # ToolNode's reading of its signature: state fields, store, runtime
    call_id: tuple[str, ...]  # its InjectedToolCallId arguments

    @property
    def needs_runtime(self) -> bool:
        """Whether filling it needs the run (state, store or runtime); a call id alone does not."""
        return bool(self.args.state or self.args.store or self.args.runtime)

    @property
    def any(self) -> bool:
        return bool(self.args.all_injected_keys or self.args.runtime)


def injected(tool: BaseTool) -> Injected:
    """What ``tool`` takes that the model does not give (read once per tool object)."""
    with _LOCK:
        known = _KNOWN.get(id(tool))
    if known is not None and known[0] is tool:
        return known[1]
    schema = tool.args_schema
    ids: tuple[str, ...] = ()
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        hints = get_all_basemodel_annotations(schema)
        ids = tuple(k for k, v in hints.items() if _is_injected_arg_type(v, injected_type=InjectedToolCallId))
    found = Injected(_get_all_injected_args(tool), ids)
    with _LOCK:
        if len(_KNOWN) > 4096:
            _KNOWN.clear()
        _KNOWN[id(tool)] = (tool, found)
    return found


def model_schema(tool: BaseTool) -> Any:
    """The schema of what the model gives: the tool's arguments without the injected ones (a pydantic model, a
    JSON schema for a tool given one, or None)."""
    if not injected(tool).any:
        return tool.args_schema
    return tool.tool_call_schema


def as_tool_call(tool: BaseTool) -> bool:
    """Whether ``tool`` is invoked with the whole tool call (as ToolNode invokes every tool), not its arguments:
    one that takes the call's id, or answers with content and an artifact. Its result is then a ToolMessage."""
    return bool(injected(tool).call_id) or tool.response_format == "content_and_artifact"


def tool_input(tool: BaseTool, args: dict[str, Any], call_id: str, runtime: ToolRuntime | None) -> dict[str, Any]:
    """What ``tool.invoke`` is given for a call with the model's ``args``: the arguments with the injected ones
    filled from ``runtime`` (``ToolNode._inject_tool_args``), as a tool call when ``as_tool_call``. InjectionError
    when the run cannot fill them (no store, a state field the run's state lacks)."""
    found = injected(tool)
    call: dict[str, Any] = {"name": tool.name, "args": dict(args), "id": call_id, "type": "tool_call"}
    if found.needs_runtime:
        if runtime is None:
            raise InjectionError(f"{tool.name} takes the run's state, store or runtime, which this call has not")
        if found.args.store and runtime.store is None:
            raise InjectionError(
                f"{tool.name} takes the store (InjectedStore), and the agent has none: give it one (ReActAgent(store=...))"
            )
        try:
            call = dict(_NODE._inject_tool_args(call, runtime, tool))  # type: ignore[arg-type]
        except (KeyError, AttributeError) as exc:
            raise InjectionError(f"{tool.name} reads the state field {exc.args[0]!r}, which the run's state has not") from None
    return call if as_tool_call(tool) else call["args"]


def task_state(config: Any) -> Any:
    """The graph's state as the node task running now reads it (ToolNode's own reading: a ``Send`` task, such as a
    tool call's, is handed its payload, not the state)."""
    # ToolNode takes a list of tool calls too; its private method's annotation names messages only
    return _NODE._extract_state([{"name": "", "args": {}, "id": "", "type": "tool_call"}], config)  # type: ignore[list-item]


def for_worker(tool: BaseTool, call_id: str, runtime: ToolRuntime | None) -> tuple[bytes | None, str | None]:
    """What a call in a worker process takes besides the model's arguments (``tools.isolation``): the injected
    arguments, pickled (the call's id, the state or a field of it, a ToolRuntime with the state, the context, the
    call's id and its config's plain data; its stream writer sends to the agent), and the call's id when the tool is
    invoked with its tool call (None, None: nothing). InjectionError for what cannot cross: the store (a live
    connection), a context that cannot be pickled."""
    found = injected(tool)
    if not found.any:
        return None, None
    if found.args.store:
        raise InjectionError(
            f"{tool.name} takes the store (InjectedStore), a live connection, which cannot cross to a worker process: "
            "run it with ToolPolicy(isolation='none')"
        )
    values: dict[str, Any] = dict.fromkeys(found.call_id, call_id)
    if found.needs_runtime:
        if runtime is None:
            raise InjectionError(f"{tool.name} takes the run's state or runtime, which this call has not")
        crossing = dataclasses.replace(
            runtime, store=None, stream_writer=_no_writer, tools=[], config=plain_config(runtime.config),
            execution_info=None, server_info=None,
        )
        call: dict[str, Any] = {"name": tool.name, "args": {}, "id": call_id, "type": "tool_call"}
        try:
            values |= _NODE._inject_tool_args(call, crossing, tool)["args"]  # type: ignore[arg-type]
        except (KeyError, AttributeError) as exc:
            raise InjectionError(f"{tool.name} reads the state field {exc.args[0]!r}, which the run's state has not") from None
    import cloudpickle  # as a main script's tool crosses (isolation.reference): a __main__ class goes by value

    try:
        pickled = cloudpickle.dumps(values)
    except Exception as exc:
        raise InjectionError(
            f"{tool.name} takes the run's context or state, which cannot cross to a worker process "
            f"({type(exc).__name__}: {exc}): keep what cannot be pickled out of them, or run the tool with "
            "ToolPolicy(isolation='none')"
        ) from None
    return pickled, call_id if as_tool_call(tool) else None


def plain_config(config: Any) -> RunnableConfig:
    """The plain data of a call's config (its thread, tags, metadata), without what lives in the agent's process."""
    configurable = {k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__")}
    plain: RunnableConfig = {"configurable": configurable, "tags": list(config.get("tags") or []), "metadata": dict(config.get("metadata") or {})}
    try:
        pickle.dumps(plain)
    except Exception:
        return {"configurable": {k: v for k, v in configurable.items() if isinstance(v, str | int | float | bool)}}
    return plain


def _no_writer(chunk: Any) -> None:
    """A stream writer that writes nothing (the worker puts its own in its place)."""
