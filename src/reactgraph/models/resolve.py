"""Chat models: "provider:model" -> a LangChain chat model (Ollama by default), the preflight
that finds a misconfigured model before a run (``check_model``), and the model a run uses when it was given
none (``default_model``).

The default follows what the machine has: ``DEFAULT_MODEL`` (``ollama:qwen2.5:7b``) when the Ollama at
OLLAMA_HOST has it pulled; otherwise the pulled model that can call tools (the most recently pulled first, as
Ollama lists them; a server that does not report capabilities counts every model that is no embedding model),
with a warning naming it and how to choose; with none, an error listing what is pulled. A model the user
named (``--model``, ``model=``) is never replaced: when it is not pulled the error lists the pulled ones and
the exact ``--model`` to use.

How a model is called (bounded in time, retried, with fallbacks) is in ``models.calls``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from langchain_core.language_models import BaseChatModel

from reactgraph.config import DEFAULT_MODEL, AgentConfig

DEFAULT_OLLAMA_HOST = "http://localhost:11434"
# How the user of each front end names another model, in the errors that ask them to: ``how`` picks one.
CHOOSING = {
    "cli": "--model {model} (model='{model}' in Python)",
    "served": "\"model\": \"{model}\" in the assistant's configuration or the run's context",
}
PROVIDER_EXTRAS = {"openai": "openai"}  # provider -> the reactgraph extra that installs its LangChain package
logger = logging.getLogger(__name__)


PROVIDERS = frozenset(
    {"ollama", "openai", "anthropic", "anthropic_bedrock", "azure_ai", "azure_openai", "baseten", "google_genai",
     "google_vertexai", "google_anthropic_vertex", "bedrock", "bedrock_converse", "mistralai", "groq", "cohere", "fireworks",
     "together", "huggingface", "deepseek", "xai", "perplexity", "nvidia", "ibm", "openrouter", "litellm", "upstage"}
)  # the prefixes that name a chat model provider (init_chat_model's)


class ModelUnavailableError(RuntimeError):
    """The model cannot be reached or is not installed; the message says where it looked and what to do."""


def ollama_host() -> str:
    host = os.environ.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA_HOST
    if "://" not in host:
        host = f"http://{host}"
    return host.rstrip("/")


def resolve_model(spec: str | BaseChatModel, cfg: AgentConfig | None = None) -> BaseChatModel:
    """A chat model from an instance (used as given) or a 'provider:model' string.

    Ollama models get ``base_url`` from OLLAMA_HOST and ``ollama_num_ctx``, ``max_output_tokens``
    (as ``num_predict``), ``temperature`` and ``ollama_keep_alive`` from ``cfg.model_settings`` (the defaults when None);
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
            num_ctx=cfg.model_settings.ollama_num_ctx,
            num_predict=cfg.model_settings.max_output_tokens,
            temperature=cfg.model_settings.temperature,
            keep_alive=cfg.model_settings.ollama_keep_alive,
        )
    from langchain.chat_models import init_chat_model

    options = {"temperature": cfg.model_settings.temperature, "max_tokens": cfg.model_settings.max_output_tokens}
    given: dict[str, Any] = {k: v for k, v in options.items() if v is not None}
    return init_chat_model(spec, **given)


def model_spec(name: str, *, timeout: float = 3.0) -> str:
    """'provider:model' for a model a user named: as given when it starts with a provider; a bare name that the
    Ollama at OLLAMA_HOST has (``qwen2.5-coder:1.5b``, ``llama3``: Ollama's own names) as ``ollama:NAME``; any other a
    one-line ModelUnavailableError saying how to write it."""
    provider, sep, _ = name.partition(":")
    if sep and provider in PROVIDERS:
        return name
    try:
        pulled = ollama_models(timeout=timeout)
    except ModelUnavailableError:
        pulled = []
    if is_pulled(name, pulled):
        return f"ollama:{name}"
    has = f" (the Ollama at {ollama_host()} has {', '.join(pulled)})" if pulled else ""
    raise ModelUnavailableError(
        f"model {name!r} names no provider: write 'provider:model', e.g. 'ollama:{name}' for a model Ollama has{has}, "
        f"or 'openai:gpt-4o-mini'"
    )


def check_model(spec: str, cfg: AgentConfig | None = None, *, how: str = "cli") -> None:
    """Raise ModelUnavailableError, saying what to do, when the model ``spec`` names cannot be used:
    its provider's package is not installed, its client refuses to start (a missing API key), or,
    for Ollama, the server does not answer or has not pulled it. No model is called. ``how``: whose words
    name another model (``CHOOSING``: the CLI's and Python's, or a served assistant's configuration)."""
    if spec.partition(":")[0] not in PROVIDERS:
        spec = model_spec(spec)  # a bare name Ollama has, else the error saying how to write it
    try:
        resolve_model(spec, cfg)
    except ValueError as exc:
        raise ModelUnavailableError(f"model {spec!r} cannot be used: {exc}") from None
    except Exception as exc:  # ImportError (no provider package), the provider client's own errors (no API key)
        extra = PROVIDER_EXTRAS.get(spec.partition(":")[0]) if isinstance(exc, ImportError) else None
        hint = f" (pip install 'reactgraph[{extra}]')" if extra else ""
        raise ModelUnavailableError(f"model {spec!r} cannot be used: {type(exc).__name__}: {exc}{hint}") from None
    if spec.startswith("ollama:"):
        check_ollama(spec.removeprefix("ollama:"), how=how)


def ollama_models(*, timeout: float = 3.0, how: str = "cli") -> list[str]:
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
            f"to where it runs, or choose another model with {choosing('provider:model', how)}."
        ) from None
    return list(dict.fromkeys(m.model for m in listed.models if m.model))


def check_ollama(model_name: str, *, timeout: float = 3.0, how: str = "cli") -> None:
    """Raise ModelUnavailableError unless Ollama answers at OLLAMA_HOST and has ``model_name`` pulled; the
    message lists the models it has and the ``--model`` (``how``) that would use one."""
    pulled = ollama_models(timeout=timeout, how=how)
    if not is_pulled(model_name, pulled):
        raise ModelUnavailableError(not_pulled(model_name, pulled, tool_models(pulled, timeout=timeout), how=how))


def choosing(model: str, how: str = "cli") -> str:
    """How the user names ``model`` instead, in the words of their front end (``CHOOSING``)."""
    return CHOOSING[how].format(model=model)


def is_pulled(model_name: str, pulled: list[str]) -> bool:
    return bool(set(pulled) & {model_name, f"{model_name}:latest"})


def not_pulled(model_name: str, pulled: list[str], usable: list[str], *, how: str = "cli") -> str:
    """Ollama lacks ``model_name``: what it has, and what to do (``how``: in whose words)."""
    where = f"Ollama at {ollama_host()} does not have model {model_name!r}"
    pull = f"`ollama pull {model_name}`"
    if not pulled:
        return f"{where}, nor any other. Pull it with {pull}, or choose another provider with {choosing('provider:model', how)}."
    listed = ", ".join(pulled)
    if not usable:
        return f"{where}; it has {listed}, none of which calls tools. Pull it with {pull}."
    return f"{where}; it has {listed}. Use one with {choosing('ollama:' + usable[0], how)}, or pull it with {pull}."


def tool_models(pulled: list[str], *, timeout: float = 3.0) -> list[str]:
    """The pulled models that can call tools, in Ollama's order (the most recently pulled first): those whose
    ``capabilities`` include ``tools``; when the server reports no capabilities (an older Ollama, an
    Ollama-compatible endpoint), every model that is no embedding model."""
    from ollama import Client

    client = Client(host=ollama_host(), timeout=timeout)
    usable = []
    for name in pulled:
        try:
            capabilities = client.show(name).capabilities
        except Exception:  # noqa: BLE001 - an endpoint without /api/show: judged by the name below
            capabilities = None
        if "tools" in (capabilities or []) or (not capabilities and "embed" not in name.lower()):
            usable.append(name)
    return usable


def default_model(default: str = DEFAULT_MODEL, *, timeout: float = 3.0, how: str = "cli") -> str:
    """The model of a run given none: ``default`` when it can be used; for an Ollama ``default`` that the server
    has not pulled, the first pulled model that calls tools, logged as a warning that names it and how to choose
    (ModelUnavailableError, listing what is pulled, when there is none; ``how``: in whose words)."""
    if not default.startswith("ollama:"):
        check_model(default, how=how)
        return default
    name = default.removeprefix("ollama:")
    pulled = ollama_models(timeout=timeout, how=how)
    if is_pulled(name, pulled):
        return default
    usable = tool_models(pulled, timeout=timeout)
    if not usable:
        raise ModelUnavailableError(not_pulled(name, pulled, usable, how=how))
    logger.warning(
        "reactgraph: the default model %s is not pulled at %s; using ollama:%s, which it has. Choose with --model "
        "(model= in Python), or `ollama pull %s`.", default, ollama_host(), usable[0], name,
    )
    return f"ollama:{usable[0]}"
