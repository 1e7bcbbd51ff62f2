"""Calling a chat model: bounded in time, cancellable, retried on transient errors, with fallbacks.

Every model call of a run (think, summarize, the partial answer) is one ``invoke_within``: the
model's ``ainvoke`` runs as a task on one background event loop, and the caller waits for it until
the run's deadline (``timeout_seconds``) or a ``cancel()``. A cut call is cancelled, not abandoned:
its HTTP request is closed, so a local server (Ollama, llama.cpp) stops generating for it. A cut is
a stop of the run (``CallCut``), never retried. Transient errors (connection reset, timeouts, 5xx,
rate limits) are retried with tenacity backoff that also ends at the deadline; when the model
keeps failing, the ``fallback_models`` are tried in order.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential
from tenacity.stop import stop_base

from reactgraph.config import AgentConfig
from reactgraph.threads import in_worker

TRANSIENT_PATTERNS = (
    "timed out",
    "timeout",
    "connection reset",
    "connection refused",
    "connection aborted",
    "remote end closed",
    "server disconnected",
    "temporarily unavailable",
    "service unavailable",
    "bad gateway",
    "rate limit",
    "too many requests",
)
# Exception classes of httpx and the provider SDKs (matched by name: none of them is a dependency).
TRANSIENT_TYPES = frozenset(
    {"TransportError", "TimeoutException", "APIConnectionError", "APITimeoutError", "InternalServerError", "RateLimitError"}
)
POLL_SECONDS = 0.05  # how often a waiting call looks at the deadline and for a cancel
T = TypeVar("T")


class ModelCallError(RuntimeError):
    """Every model (the primary and each fallback) failed; the message lists each failure in order."""


class CallCut(Exception):
    """A model call was stopped by the run, not by the model: the run ends (timeout or cancelled)."""


class DeadlineReached(CallCut):
    """The run's time budget ran out before the model answered."""


class CallCancelled(CallCut):
    """The run was cancelled while the model was answering."""


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()
_interrupted = threading.Event()


def interrupt_calls() -> None:
    """Ctrl-C for a process that ends: every model call in flight, and every later one, raises
    KeyboardInterrupt in the node that waits for it. LangGraph runs a node in a worker thread when
    it streams tokens and waits for it before a KeyboardInterrupt leaves ``stream``; the node's task
    fails, so nothing of the turn is recorded and a resume runs it again."""
    _interrupted.set()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for model calls, started on first use in a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="reactgraph-model-calls", daemon=True).start()
        return _loop


def invoke_within(
    model: Runnable,
    messages: Sequence[BaseMessage],
    *,
    deadline: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> AIMessage:
    """``model`` called on ``messages``, waited for until ``deadline`` (epoch seconds) or until
    ``cancelled()`` says so; then the call is cut and DeadlineReached / CallCancelled raised. The
    caller's context (LangChain callbacks, LangGraph config) goes with the call.

    A model with an async implementation runs as a task on the background loop and a cut cancels
    it; one with only a sync implementation runs in a daemon thread, which a cut leaves to finish."""
    if deadline is not None and time.time() >= deadline:
        raise DeadlineReached("the time budget was used up before the model call")
    if has_async(model):
        future = asyncio.run_coroutine_threadsafe(model.ainvoke(list(messages)), _background_loop())
    else:
        future = in_worker(lambda: model.invoke(list(messages)))
    try:
        while True:
            wait = POLL_SECONDS if deadline is None else max(0.0, min(POLL_SECONDS, deadline - time.time()))
            try:
                return future.result(timeout=wait)
            except TimeoutError:
                pass
            if _interrupted.is_set():
                raise KeyboardInterrupt
            if cancelled is not None and cancelled():
                raise CallCancelled("the run was cancelled during a model call")
            if deadline is not None and time.time() >= deadline:
                raise DeadlineReached("the time budget ran out during a model call")
    except BaseException:  # a cut, or the caller interrupted (Ctrl-C): the call is not waited for
        future.cancel()
        raise


def awaited(awaitable: Awaitable[T], deadline: float | None = None) -> T:
    """``awaitable`` (a coroutine a sync node was handed: an async reply check's) run to its end on the background
    loop, waited for until ``deadline`` (then cancelled, and DeadlineReached raised)."""

    async def wait() -> T:
        return await awaitable

    future = asyncio.run_coroutine_threadsafe(wait(), _background_loop())
    try:
        return future.result(timeout=None if deadline is None else max(0.0, deadline - time.time()))
    except TimeoutError:
        future.cancel()
        raise DeadlineReached("the time budget ran out while waiting for an async call") from None


def has_async(model: Runnable) -> bool:
    """Whether a chat model (bound or not) implements its own async generation."""
    while isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        return True
    kind = type(model)
    return kind._agenerate is not BaseChatModel._agenerate or kind._astream is not BaseChatModel._astream




def is_transient(exc: BaseException) -> bool:
    """Worth retrying: connection problems, timeouts, 5xx and 429 answers (any provider's client);
    never a call the run itself cut."""
    if isinstance(exc, CallCut):
        return False
    if isinstance(exc, ConnectionError | TimeoutError) or TRANSIENT_TYPES & {c.__name__ for c in type(exc).__mro__}:
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int) and (status >= 500 or status == 429):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(pattern in text for pattern in TRANSIENT_PATTERNS)


class _stop_at_deadline(stop_base):
    """Stop retrying when the next wait would end after the deadline."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: Any) -> bool:
        upcoming = retry_state.upcoming_sleep or 0.0
        return self.deadline is not None and time.time() + upcoming >= self.deadline


def with_retries(
    call: Callable[[], T],
    cfg: AgentConfig,
    *,
    deadline: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call``, retrying transient errors ``cfg.model_settings.max_retries`` times with exponential backoff
    (no retry whose wait would end after ``deadline``)."""
    retrying = Retrying(
        stop=stop_after_attempt(cfg.model_settings.max_retries + 1) | _stop_at_deadline(deadline),
        wait=wait_exponential(multiplier=cfg.model_settings.initial_delay_seconds, max=cfg.model_settings.max_delay_seconds),
        retry=retry_if_exception(is_transient),
        sleep=sleep,
        reraise=True,
    )
    return retrying(call)


def call_with_fallbacks(
    models: Sequence[BaseChatModel],
    attempt: Callable[[BaseChatModel], T],
    cfg: AgentConfig,
    *,
    deadline: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``attempt(model)`` for each model in order (each with retries) until one succeeds.

    With one model its error is raised as is; with fallbacks, a ModelCallError names every failure.
    A call the run cut (CallCut) is raised at once: no fallback can beat the deadline or a cancel.
    """
    errors: list[str] = []
    for model in models:
        try:
            return with_retries(lambda: attempt(model), cfg, deadline=deadline, sleep=sleep)
        except CallCut:
            raise
        except Exception as exc:
            if len(models) == 1:
                raise
            errors.append(f"{model_label(model)}: {type(exc).__name__}: {exc}")
    raise ModelCallError(f"all {len(models)} models failed: " + " | ".join(errors))


def model_label(model: BaseChatModel) -> str:
    """``type:name`` of a chat model (the agent remembers a model's tool-calling format under it)."""
    name = getattr(model, "model", None) or getattr(model, "model_name", None)
    return f"{model._llm_type}:{name}" if name else model._llm_type
