"""Run one tool call under its policy: validate the arguments, bound each attempt in time,
retry transient errors with backoff, and describe what happened as an Outcome.

Every failure comes back as an error outcome whose text names the error kind (tool_not_found,
invalid_parameters, execution_failed, timeout; think adds disabled) and says what the model
can do about it; nothing here raises into the graph.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel, ValidationError

from reactgraph.config import AgentConfig
from reactgraph.formats.specs import tool_specs, unknown_tool
from reactgraph.state import Action, Outcome
from reactgraph.tools.policy import ExecutionPolicy, InvalidArguments, ToolTimeout
from reactgraph.tools.registry import RegisteredTool, ToolRegistry


def call_key(tool: str, args: dict[str, Any]) -> str:
    """Identity of a call for the per-run cache: the tool and its exact arguments."""
    return json.dumps([tool, args], sort_keys=True, ensure_ascii=False, default=str)


def validate_args(entry: RegisteredTool, args: dict[str, Any]) -> dict[str, Any]:
    """Check ``args`` against the tool's schema; raise InvalidArguments saying what was expected."""
    if not isinstance(args, dict):
        raise InvalidArguments(f"arguments must be an object of named values, got {type(args).__name__}")
    schema = entry.tool.args_schema
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
    """One attempt, in a daemon worker thread so a hung tool never blocks the run (or interpreter exit).

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

    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = target()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name=f"tool-{entry.name}", daemon=True).start()
    if not done.wait(timeout):
        raise ToolTimeout(f"no result within {timeout:g}s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def execute(
    action: Action,
    registry: ToolRegistry,
    cfg: AgentConfig,
    *,
    deadline: float | None = None,
) -> Outcome:
    """Run ``action`` with its tool's policy resolved against ``cfg``; every error becomes an error outcome."""
    start = time.perf_counter()
    offered = registry.select(cfg.tools)
    entry = registry.get(action["tool"]) if action["tool"] in offered else None
    if entry is None:
        specs = tool_specs(registry.get(name).tool for name in offered)
        return error_outcome(action, "tool_not_found", f"Error (tool_not_found): {unknown_tool(action['tool'], specs)}.")
    try:
        args = prepare_args(entry, action["args"], registry)
    except InvalidArguments as exc:
        return error_outcome(
            action, "invalid_parameters",
            f"Error (invalid_parameters) calling {entry.name}: {exc}. Fix the arguments and call again.",
            duration=time.perf_counter() - start,
        )
    policy = entry.policy.resolve(cfg)
    result, errors = _run_with_retries(entry, args, policy, deadline)
    failed = isinstance(result, BaseException)
    retries = len(errors) - 1 if failed else len(errors)
    base = _base(action) | {
        "ran": True,
        "duration": time.perf_counter() - start,
        "retries": retries,
        "failures": [f"{type(e).__name__}: {e}" for e in errors],
        "error_type": type(errors[-1]).__name__ if errors else "",  # also when a retry recovered
    }
    if failed:
        kind = _kind_of(result)
        text = _error_text(entry.name, kind, result, retries, transient=policy.is_retryable(result))
        return base | {"status": "error", "error_kind": kind, "content": text}
    return base | {"status": "ok", "error_kind": None, "content": to_text(result)}


def _run_with_retries(
    entry: RegisteredTool, args: dict[str, Any], policy: ExecutionPolicy, deadline: float | None
) -> tuple[Any, list[Exception]]:
    """(the result, or the final exception; every failed attempt's exception)."""
    errors: list[Exception] = []

    def attempt() -> Any:
        try:
            return call_with_timeout(entry, args, policy.attempt_timeout(deadline, time.time()))
        except Exception as exc:
            errors.append(exc)
            raise

    try:
        return policy.retrying()(attempt), errors
    except Exception as exc:  # the tool's own failure, reported to the model
        return exc, errors


def _kind_of(exc: BaseException) -> str:
    """timeout, invalid_parameters (the tool refused its input), or execution_failed."""
    if isinstance(exc, ToolTimeout):
        return "timeout"
    return "invalid_parameters" if isinstance(exc, InvalidArguments) else "execution_failed"


def _error_text(tool: str, kind: str, exc: BaseException, retries: int, *, transient: bool) -> str:
    tried = f" (after {retries} retr{'y' if retries == 1 else 'ies'})" if retries else ""
    if kind == "timeout":
        return f"Error (timeout): {tool} gave {exc}{tried}. Try simpler arguments or another tool."
    if kind == "invalid_parameters":
        return f"Error (invalid_parameters) calling {tool}: {exc}. Fix the arguments and call again."
    advice = (
        "The error looks temporary: the same call may work if you make it again, or try another approach."
        if transient
        else "Check the arguments, or try another approach."
    )
    return f"Error (execution_failed) in {tool}{tried}: {type(exc).__name__}: {exc}. {advice}"


def _base(action: Action) -> Outcome:
    return {"call_id": action["id"], "index": action["index"], "tool": action["tool"], "args": action["args"],
            "cached": False, "retries": 0, "duration": 0.0, "ran": False}


def error_outcome(action: Action, kind: str, text: str, *, duration: float = 0.0) -> Outcome:
    """An error outcome of ``kind`` with ``text`` for the model (one failure, no retries)."""
    return _base(action) | {"status": "error", "error_kind": kind, "error_type": kind, "content": text,
                            "duration": duration, "failures": [text]}


def ok_outcome(action: Action, content: str, *, cached: bool = False) -> Outcome:
    """A successful outcome that needed no tool run: a cache hit, or the user's answer to ask_user."""
    return _base(action) | {"status": "ok", "error_kind": None, "error_type": "", "content": content,
                            "cached": cached, "failures": []}


def to_text(value: Any) -> str:
    """A tool's return value as the observation text (JSON for structured values)."""
    content = getattr(value, "content", value)
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)


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

    @contextmanager
    def hold(self, run: Any, limit: int) -> Iterator[None]:
        """Wait for one of the run's ``limit`` slots (the limit its first concurrent call saw)."""
        with self._lock:
            gate, users = self._runs.get(run, (threading.Semaphore(limit), 0))
            self._runs[run] = (gate, users + 1)
        gate.acquire()
        try:
            yield
        finally:
            gate.release()
            with self._lock:
                gate, users = self._runs[run]
                if users == 1:
                    del self._runs[run]
                else:
                    self._runs[run] = (gate, users - 1)
