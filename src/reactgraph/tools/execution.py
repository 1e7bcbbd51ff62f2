"""Run one tool call under its policy: validate the arguments, bound each attempt in time,
retry transient errors with backoff, cut the output to the run's limit, and describe what
happened as an Outcome.

A call of a tool whose policy says ``isolation="process"`` runs in a worker process
(``reactgraph.tools.isolation``), which is killed when its time is up or the run is cancelled.
Every failure comes back as an error outcome of an ``ErrorKind`` (tool_not_found,
invalid_parameters, execution_failed, network_error, timeout, resource_limit) whose text, from
``reactgraph.errors``, says what the model can do about it; nothing here raises into the graph.
A tool's output (and an error's message) is cut to ``max_tool_output_bytes`` here, where the
tool runs, so the state, the cache and the checkpoints never hold more than that.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import wait
from contextlib import contextmanager
from typing import Any, NamedTuple

from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel, ValidationError

from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text, is_network_error
from reactgraph.state import Action, Outcome
from reactgraph.threads import in_worker
from reactgraph.tools._json_args import check_json_args
from reactgraph.tools.base import RegisteredTool
from reactgraph.tools.content import cut, exception_text, leaves
from reactgraph.tools.injection import for_worker, model_schema, tool_input
from reactgraph.tools.isolation.pool import run_isolated
from reactgraph.tools.policy import ExecutionPolicy, InvalidArguments, ResourceLimitExceeded, ToolCancelled, ToolTimeout
from reactgraph.tools.registry import ToolRegistry
from reactgraph.tools.results import kept_value, read_result
from reactgraph.tools.specs import tool_specs, unknown_tool


def call_key(tool: str, args: dict[str, Any]) -> str:
    """Identity of a call for the per-run cache: the tool and its exact arguments."""
    return json.dumps([tool, args], sort_keys=True, ensure_ascii=False, default=str)


def validate_args(entry: RegisteredTool, args: dict[str, Any]) -> dict[str, Any]:
    """Check ``args`` against the schema the model fills (pydantic, or a JSON schema: ``tools._json_args``; the
    injected arguments are not in it: ``tools.injection``); raise InvalidArguments saying what was expected."""
    if not isinstance(args, dict):
        raise InvalidArguments(f"arguments must be an object of named values, got {type(args).__name__}")
    schema = model_schema(entry.tool)
    if isinstance(schema, dict):
        return check_json_args(schema, args)
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return args
    problems = [f"unexpected argument {name!r}" for name in sorted(set(args) - set(schema.model_fields))]
    try:
        schema.model_validate(args)
    except ValidationError as exc:
        problems += [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()]
    if problems:
        expected = ", ".join(
            f"{name}: {_type_name(f.annotation)}" + ("" if f.is_required() else f" (optional, leave it out for {f.default!r})")
            for name, f in schema.model_fields.items()
        )
        raise InvalidArguments(f"{'; '.join(problems)}. Expected arguments: {expected or 'none'}")
    return args


def prepare_args(entry: RegisteredTool, args: dict[str, Any], registry: ToolRegistry) -> dict[str, Any]:
    """Validate, run the registry's before_call hooks (which may rewrite or refuse), validate again."""
    args = validate_args(entry, args)
    for hook in registry.hooks:
        try:
            rewritten = hook(entry.name, dict(args))
        except Exception as exc:
            raise InvalidArguments(f"refused by a check: {exc}") from exc
        if not isinstance(rewritten, dict):
            raise InvalidArguments(f"a before_call hook returned {type(rewritten).__name__}, not the arguments")
        args = validate_args(entry, rewritten)
    return args


def call_with_timeout(entry: RegisteredTool, args: dict[str, Any], timeout: float) -> Any:
    """One attempt, on a reused daemon worker thread (``threads.in_worker``) so a hung tool never blocks the run (or
    interpreter exit), in the caller's context (LangChain callbacks and the LangGraph config reach the tool). ``args``
    is what ``tool.invoke`` takes (``injection.tool_input``: the injected arguments filled, or the whole tool call).

    An async tool runs in its own event loop under ``asyncio.wait_for``, so it is cancelled when
    its time is up; a sync tool cannot be killed, so the run stops waiting for it.
    """
    tool = entry.tool
    if getattr(tool, "coroutine", None) is not None:

        def target() -> Any:
            try:
                return asyncio.run(asyncio.wait_for(tool.ainvoke(args), timeout))
            except asyncio.TimeoutError:
                raise ToolTimeout(f"no result within {timeout:g}s (cancelled)") from None

    else:

        def target() -> Any:
            return tool.invoke(args)

    future = in_worker(target)  # in the node's context: the run's callbacks see the tool call
    if not wait([future], timeout).done:
        raise ToolTimeout(f"no result within {timeout:g}s")
    if (raised := future.exception()) is None:
        return future.result()
    # an exception group (anyio's task groups raise them; the MCP client does): the error inside it
    error = next((e for e in leaves(raised) if isinstance(e, Exception)), raised)
    if isinstance(error, Exception):
        raise error
    # SystemExit, KeyboardInterrupt, CancelledError raised by the tool's own code: its failure, not the run's
    raise RuntimeError(f"the tool raised {exception_text(error)}") from error


def execute(
    action: Action,
    registry: ToolRegistry,
    cfg: AgentConfig,
    *,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    runtime: ToolRuntime | None = None,
) -> Outcome:
    """Run ``action`` with its tool's policy resolved against ``cfg``; every error becomes an error outcome.
    ``cancelled`` says when the run was cancelled (a call in a worker process is stopped then); ``runtime`` is what
    the tool's injected arguments are filled from (``tools.injection``). The outcome keeps the value the tool
    returned beside its text, and a Command it returned (``tools.results``)."""
    start = time.perf_counter()
    limit = cfg.tool_execution.max_tool_output_bytes
    offered = registry.select(cfg.tools, strict=False)
    entry = registry.get(action["tool"]) if action["tool"] in offered else None
    if entry is None:
        specs = tool_specs(registry[name].tool for name in offered)
        return error_outcome(action, ErrorKind.TOOL_NOT_FOUND, error_text(ErrorKind.TOOL_NOT_FOUND, problem=unknown_tool(action["tool"], specs)))
    try:
        args = prepare_args(entry, action["args"], registry)
    except Exception as exc:  # InvalidArguments, or a schema check that could not cope with the input
        problem = cut(str(exc) if isinstance(exc, InvalidArguments) else exception_text(exc), limit)
        return error_outcome(
            action, ErrorKind.INVALID_PARAMETERS, error_text(ErrorKind.INVALID_PARAMETERS, tool=entry.name, problem=problem),
            duration=time.perf_counter() - start,
        )
    policy = entry.policy.resolve(cfg)
    result, errors = _run_with_retries(entry, Call(args, action["id"], runtime), policy, deadline, limit, cancelled, registry.worker_group)
    failed = isinstance(result, BaseException)
    retries = len(errors) - 1 if failed else len(errors)
    failures = [cut(exception_text(e), limit) for e in errors]
    base = _base(action) | {
        "ran": True,
        "duration": time.perf_counter() - start,
        "retries": retries,
        "failures": failures,
        "error_type": type(errors[-1]).__name__ if errors else "",  # also when a retry recovered
    }
    if failed:
        kind = kind_of(result)
        tried = f" (after {retries} retr{'y' if retries == 1 else 'ies'})" if retries else ""
        if kind in (ErrorKind.TIMEOUT, ErrorKind.INVALID_PARAMETERS, ErrorKind.RESOURCE_LIMIT):  # ours, or about the input
            problem = cut(str(result), limit)
        else:
            problem = failures[-1] if failures else cut(exception_text(result), limit)
        text = error_text(kind, tool=entry.name, problem=problem, tried=tried, transient=policy.is_retryable(result))
        return base | {"status": "error", "error_kind": kind.value, "content": text}
    return base | {"status": "ok", "error_kind": None} | result


class Call(NamedTuple):
    """A call to run: the model's arguments (checked), the call's id, what its injected arguments come from."""

    args: dict[str, Any]
    id: str
    runtime: ToolRuntime | None


def _run_with_retries(
    entry: RegisteredTool,
    call: Call,
    policy: ExecutionPolicy,
    deadline: float | None,
    max_bytes: int,
    cancelled: Callable[[], bool] | None,
    group: str = "",
) -> tuple[Any, list[Exception]]:
    """(the result's outcome fields (``results.read_result``), or the final exception; every failed attempt's
    exception). Each attempt runs in a worker process of the registry's ``group`` (isolation 'process') or in a thread
    of the agent's."""
    errors: list[Exception] = []

    def attempt() -> Any:
        timeout = policy.attempt_timeout(deadline, time.time())
        try:
            if policy.isolation == "process":
                injected, call_id = for_worker(entry.tool, call.id, call.runtime)
                reply = run_isolated(
                    entry, call.args, timeout=timeout, limits=policy.limits, max_result_bytes=max_bytes, cancelled=cancelled,
                    env=policy.env, injected=injected, call_id=call_id, group=group,
                    progress=call.runtime.stream_writer if call.runtime is not None else None,
                )
                if (value := kept_value(reply.get("value"), max_bytes)) is not None:
                    return reply | {"value": value}
                return {"content": reply["content"]}
            return read_result(call_with_timeout(entry, tool_input(entry.tool, call.args, call.id, call.runtime), timeout), max_bytes)
        except Exception as exc:
            errors.append(exc)
            raise

    try:
        return policy.retrying()(attempt), errors
    except Exception as exc:  # the tool's own failure, reported to the model
        return exc, errors


def kind_of(exc: BaseException) -> ErrorKind:
    """timeout (the call's time ran out), resource_limit (its worker process passed a limit),
    invalid_parameters (the tool refused its input), network_error (the tool could not reach its
    service), else execution_failed."""
    if isinstance(exc, ToolTimeout):
        return ErrorKind.TIMEOUT
    if isinstance(exc, ResourceLimitExceeded):
        return ErrorKind.RESOURCE_LIMIT
    if isinstance(exc, InvalidArguments):
        return ErrorKind.INVALID_PARAMETERS
    return ErrorKind.NETWORK_ERROR if is_network_error(exc) else ErrorKind.EXECUTION_FAILED


def _base(action: Action) -> Outcome:
    return {"call_id": action["id"], "index": action["index"], "tool": action["tool"], "args": action["args"],
            "cached": False, "retries": 0, "duration": 0.0, "ran": False}


def error_outcome(action: Action, kind: ErrorKind | str, text: str, *, duration: float = 0.0) -> Outcome:
    """An error outcome of ``kind`` with ``text`` for the model (one failure, no retries). The
    state keeps the kind as a plain string."""
    kind = str(kind)  # an ErrorKind's value
    return _base(action) | {"status": "error", "error_kind": kind, "error_type": kind, "content": text,
                            "duration": duration, "failures": [text]}


def ok_outcome(action: Action, content: str, *, cached: bool = False) -> Outcome:
    """A successful outcome that needed no tool run: a cache hit, or the user's answer to ask_user."""
    return _base(action) | {"status": "ok", "error_kind": None, "error_type": "", "content": content,
                            "cached": cached, "failures": []}


def _type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation).replace("typing.", "")


class CallSlots:
    """At most ``limit`` tool calls at once per run (thread), whoever invokes the graph.

    LangGraph's ``max_concurrency`` bounds a superstep's tasks when the caller sets it (the
    agent does); these slots make ``max_parallel_tools`` hold also for runs started by
    ``langgraph dev`` or a bare compiled graph.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[Any, tuple[threading.Semaphore, int]] = {}

    POLL_SECONDS = 0.1  # how often a call waiting for a slot looks at its deadline and the run's cancel

    @contextmanager
    def hold(
        self, run: Any, limit: int, *, deadline: float | None = None, cancelled: Callable[[], bool] | None = None
    ) -> Iterator[None]:
        """Wait for one of the run's ``limit`` slots (the limit its first concurrent call saw): ToolTimeout when
        ``deadline`` (epoch seconds) passes first, ToolCancelled when ``cancelled()`` says so first."""
        with self._lock:
            gate, users = self._runs.get(run, (threading.Semaphore(limit), 0))
            self._runs[run] = (gate, users + 1)
        try:
            while not gate.acquire(timeout=self.POLL_SECONDS):
                if deadline is not None and time.time() >= deadline:
                    raise ToolTimeout("no time: the run's time budget ran out while the call waited for a slot")
                if cancelled is not None and cancelled():
                    raise ToolCancelled("stopped: the run was cancelled while the call waited for a slot")
        except BaseException:
            self._leave(run)
            raise
        try:
            yield
        finally:
            gate.release()
            self._leave(run)

    def _leave(self, run: Any) -> None:
        with self._lock:
            gate, users = self._runs[run]
            if users == 1:
                del self._runs[run]
            else:
                self._runs[run] = (gate, users - 1)
