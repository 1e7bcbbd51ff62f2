"""Chat models: "provider:model" -> a LangChain chat model (Ollama by default), and how they are called.

A model call retries transient errors (connection reset, timeouts, 5xx, rate limits) with
tenacity backoff, separately from tool retries; when the model keeps failing, the
``fallback_models`` are tried in order. Callers get the reply or the last error. A call is bounded
only by the client's own timeout (ChatOllama has none by default): ``timeout_seconds`` is checked
between model calls, not during one.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from reactgraph.config import AgentConfig

DEFAULT_OLLAMA_HOST = "http://localhost:11434"
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
T = TypeVar("T")


class ModelCallError(RuntimeError):
    """Every model (the primary and each fallback) failed; the message lists each failure in order."""


class ModelUnavailableError(RuntimeError):
    """The model cannot be reached or is not installed; the message says where it looked and what to do."""


def ollama_host() -> str:
    host = os.environ.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA_HOST
    if "://" not in host:
        host = f"http://{host}"
    return host.rstrip("/")


def resolve_model(spec: str | BaseChatModel, cfg: AgentConfig | None = None) -> BaseChatModel:
    """A chat model from an instance (used as given) or a 'provider:model' string.

    Ollama models get ``base_url`` from OLLAMA_HOST and ``num_ctx``, ``max_output_tokens``
    (as ``num_predict``), ``temperature`` and ``keep_alive`` from ``cfg`` (the defaults when None);
    other providers go through ``init_chat_model`` with the temperature and ``max_tokens``.
    """
    if isinstance(spec, BaseChatModel):
        return spec
    cfg = cfg or AgentConfig()
    provider, sep, name = spec.partition(":")
    if not sep or not name:
        raise ValueError(f"model must be 'provider:model' (e.g. 'ollama:qwen2.5:7b'), got {spec!r}")
    if provider == "ollama":
        from langchain_ollama import ChatOllama

        return ChatOllama(
            model=name,
            base_url=ollama_host(),
            num_ctx=cfg.num_ctx,
            num_predict=cfg.max_output_tokens,
            temperature=cfg.temperature,
            keep_alive=cfg.keep_alive,
        )
    from langchain.chat_models import init_chat_model

    options = {"temperature": cfg.temperature, "max_tokens": cfg.max_output_tokens}
    return init_chat_model(spec, **{k: v for k, v in options.items() if v is not None})


def check_ollama(model_name: str, *, timeout: float = 3.0) -> None:
    """Raise ModelUnavailableError unless Ollama answers at OLLAMA_HOST and has ``model_name`` pulled."""
    host = ollama_host()
    try:
        with urllib.request.urlopen(f"{host}/api/tags", timeout=timeout) as response:
            tags = json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ModelUnavailableError(
            f"Ollama is not reachable at {host} ({exc}). Start it with `ollama serve`, set OLLAMA_HOST "
            f"to where it runs, or choose another model with --model / model='provider:model'."
        ) from None
    names = {m.get("name", "") for m in tags.get("models", [])} | {m.get("model", "") for m in tags.get("models", [])}
    wanted = {model_name, f"{model_name}:latest"}
    if not names & wanted:
        raise ModelUnavailableError(
            f"Ollama at {host} does not have model {model_name!r}. Pull it with `ollama pull {model_name}`."
        )


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: connection problems, timeouts, 5xx and 429 answers (any provider's client)."""
    if isinstance(exc, ConnectionError | TimeoutError) or TRANSIENT_TYPES & {c.__name__ for c in type(exc).__mro__}:
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int) and (status >= 500 or status == 429):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(pattern in text for pattern in TRANSIENT_PATTERNS)


def with_retries(call: Callable[[], T], cfg: AgentConfig, *, sleep: Callable[[float], None] = time.sleep) -> T:
    """Run ``call``, retrying transient errors ``cfg.model_retries`` times with exponential backoff."""
    retrying = Retrying(
        stop=stop_after_attempt(cfg.model_retries + 1),
        wait=wait_exponential(multiplier=cfg.model_retry_delay, max=cfg.model_retry_max_delay),
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
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``attempt(model)`` for each model in order (each with retries) until one succeeds.

    With one model its error is raised as is; with fallbacks, a ModelCallError names every failure.
    """
    errors: list[str] = []
    for model in models:
        try:
            return with_retries(lambda: attempt(model), cfg, sleep=sleep)
        except Exception as exc:
            if len(models) == 1:
                raise
            errors.append(f"{model_label(model)}: {type(exc).__name__}: {exc}")
    raise ModelCallError(f"all {len(models)} models failed: " + " | ".join(errors))


def model_label(model: BaseChatModel) -> str:
    name = getattr(model, "model", None) or getattr(model, "model_name", None)
    return f"{model._llm_type}:{name}" if name else model._llm_type
