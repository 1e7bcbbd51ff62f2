"""Chat models: ``resolve`` turns "provider:model" into a LangChain chat model (Ollama by default) and checks
it before a run; ``calls`` calls one, bounded in time, cancellable, retried, with fallbacks; ``tokens`` counts
what a call used (the model's own usage, or an estimate)."""

from reactgraph.models.resolve import ModelUnavailableError, check_model, resolve_model

__all__ = ["ModelUnavailableError", "check_model", "resolve_model"]
