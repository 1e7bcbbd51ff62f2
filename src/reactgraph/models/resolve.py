"""Chat models: "provider:model" -> a LangChain chat model (Ollama by default), and the preflight
that finds a misconfigured model before a run (``check_model``).

How a model is called (bounded in time, retried, with fallbacks) is in ``models.calls``.
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from reactgraph.config import AgentConfig

DEFAULT_OLLAMA_HOST = "http://localhost:11434"


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


def check_model(spec: str, cfg: AgentConfig | None = None) -> None:
    """Raise ModelUnavailableError, saying what to do, when the model ``spec`` names cannot be used:
    its provider's package is not installed, its client refuses to start (a missing API key), or,
    for Ollama, the server does not answer or has not pulled it. No model is called."""
    try:
        resolve_model(spec, cfg)
    except ValueError as exc:
        if ":" not in spec:
            raise
        raise ModelUnavailableError(f"model {spec!r} cannot be used: {exc}") from None
    except Exception as exc:  # ImportError (no provider package), the provider client's own errors (no API key)
        raise ModelUnavailableError(f"model {spec!r} cannot be used: {type(exc).__name__}: {exc}") from None
    if spec.startswith("ollama:"):
        check_ollama(spec.removeprefix("ollama:"))


def ollama_models(*, timeout: float = 3.0) -> list[str]:
    """The models pulled in the Ollama at OLLAMA_HOST (any Ollama-compatible endpoint), asked with the
    ``ollama`` client; raises ModelUnavailableError, saying where it looked, when nothing answers there."""
    import httpx
    from ollama import Client, ResponseError

    host = ollama_host()
    try:
        listed = Client(host=host, timeout=timeout).list()
    except (ConnectionError, httpx.HTTPError, ResponseError, ValueError) as exc:
        raise ModelUnavailableError(
            f"Ollama is not reachable at {host} ({exc}). Start it with `ollama serve`, set OLLAMA_HOST "
            f"to where it runs, or choose another model with --model / model='provider:model'."
        ) from None
    return list(dict.fromkeys(m.model for m in listed.models if m.model))


def check_ollama(model_name: str, *, timeout: float = 3.0) -> None:
    """Raise ModelUnavailableError unless Ollama answers at OLLAMA_HOST and has ``model_name`` pulled."""
    if not set(ollama_models(timeout=timeout)) & {model_name, f"{model_name}:latest"}:
        raise ModelUnavailableError(
            f"Ollama at {ollama_host()} does not have model {model_name!r}. Pull it with `ollama pull {model_name}`."
        )
