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

import threading
from typing import Any, NamedTuple

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
    return _NODE._extract_state([{"name": "", "args": {}, "id": "", "type": "tool_call"}], config)
