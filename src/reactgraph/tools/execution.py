"""Run one tool call: validate its arguments, bound it in time, retry transient errors.

Every failure comes back as an error outcome whose text tells the model what went wrong
and what it can do about it; nothing here raises into the graph.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from reactgraph.config import AgentConfig
from reactgraph.state import Action, Outcome
from reactgraph.tools.registry import RegisteredTool

RETRYABLE_PATTERNS = ("timeout", "timed out", "connection refused", "connection reset", "temporarily unavailable")
RETRYABLE_TYPES: tuple[type[BaseException], ...] = (ConnectionError,)


class ToolTimeout(Exception):
    """The tool did not finish within its time budget."""


class InvalidArguments(Exception):
    """The arguments do not match the tool's schema."""


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (ToolTimeout, InvalidArguments)):
        return False
    if isinstance(exc, RETRYABLE_TYPES):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(re.search(re.escape(p), text) for p in RETRYABLE_PATTERNS)


def validate_args(entry: RegisteredTool, args: dict[str, Any]) -> dict[str, Any]:
    """Check ``args`` against the tool's schema; raise InvalidArguments with what was expected."""
    schema = entry.tool.args_schema
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return args
    unknown = sorted(set(args) - set(schema.model_fields))
    problems = [f"unexpected argument {name!r}" for name in unknown]
    try:
        schema.model_validate(args)
    except ValidationError as exc:
        problems += [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()]
    if problems:
        expected = ", ".join(
            f"{name}: {field.annotation.__name__ if isinstance(field.annotation, type) else field.annotation}"
            + ("" if field.is_required() else " (optional)")
            for name, field in schema.model_fields.items()
        )
        raise InvalidArguments(f"{'; '.join(problems)}. Expected arguments: {expected or 'none'}")
    return args


def _call_with_timeout(entry: RegisteredTool, args: dict[str, Any], timeout: float | None) -> Any:
    """Invoke the tool in a worker thread; an async tool runs in its own loop and is cancelled on timeout."""
    tool = entry.tool
    if getattr(tool, "coroutine", None) is not None:

        async def run_async() -> Any:
            return await asyncio.wait_for(tool.ainvoke(args), timeout)

        target: Callable[[], Any] = lambda: asyncio.run(run_async())  # noqa: E731
    else:
        target = lambda: tool.invoke(args)  # noqa: E731
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"tool-{entry.name}")
    future = pool.submit(target)
    try:
        return future.result(timeout=timeout)
    except (concurrent.futures.TimeoutError, asyncio.TimeoutError):
        raise ToolTimeout(f"no result within {timeout:.1f}s") from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def execute(
    action: Action,
    entry: RegisteredTool | None,
    cfg: AgentConfig,
    *,
    deadline: float | None = None,
    available: list[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Run ``action`` and describe the outcome; errors become error outcomes."""
    start = time.perf_counter()
    base: Outcome = {"call_id": action["id"], "index": action["index"], "tool": action["tool"], "args": action["args"]}

    def error(kind: str, text: str, retries: int = 0, exc: BaseException | None = None) -> Outcome:
        return {
            **base,
            "status": "error",
            "error_kind": kind,
            "error_type": type(exc).__name__ if exc else kind,
            "content": text,
            "duration": time.perf_counter() - start,
            "retries": retries,
            "cached": False,
            "failures": [text],
        }

    if entry is None:
        names = ", ".join(available or []) or "none"
        return error("tool_not_found", f"Error (tool_not_found): there is no tool {action['tool']!r}. Available tools: {names}.")
    try:
        args = validate_args(entry, action["args"])
    except InvalidArguments as exc:
        return error("invalid_parameters", f"Error (invalid_parameters) calling {entry.name}: {exc}. Fix the arguments and call again.", exc=exc)

    timeout = cfg.tool_timeout
    if deadline is not None:
        timeout = max(0.01, min(timeout, deadline - time.time()))
    attempts = 0
    failures: list[str] = []

    def attempt() -> Any:
        nonlocal attempts
        attempts += 1
        try:
            return _call_with_timeout(entry, args, timeout)
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
            raise

    retrying = Retrying(
        stop=stop_after_attempt(cfg.max_retries + 1),
        wait=wait_exponential(multiplier=cfg.initial_delay, exp_base=cfg.backoff_multiplier, max=cfg.max_delay),
        retry=retry_if_exception(is_retryable),
        sleep=sleep,
        reraise=True,
    )
    try:
        result = retrying(attempt)
    except ToolTimeout as exc:
        return error(
            "timeout",
            f"Error (timeout): {entry.name} gave {exc}. Try simpler arguments or another tool.",
            attempts - 1,
            exc,
        )
    except (Exception, RetryError) as exc:  # the tool's own failure, reported to the model
        return error(
            "execution_failed",
            f"Error (execution_failed) in {entry.name}: {type(exc).__name__}: {exc}. "
            "Check the arguments, or try another approach.",
            attempts - 1,
            exc,
        )
    return {
        **base,
        "status": "ok",
        "error_kind": None,
        "content": result if isinstance(result, str) else _to_text(result),
        "duration": time.perf_counter() - start,
        "retries": attempts - 1,
        "cached": False,
        "failures": failures,
    }


def _to_text(value: Any) -> str:
    content = getattr(value, "content", value)
    return content if isinstance(content, str) else str(content)
