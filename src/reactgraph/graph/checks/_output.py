"""The typed answer: with an output schema (``ReActAgent(output_schema=...)``), a final answer is read into it.

An answer whose text does not fit goes to the model's structured output (``with_structured_output``: Ollama's
``format``, a forced tool call ...) in the formats that use the model's API; still not fitting, it is sent back as
an ``invalid_output`` observation, or, after ``max_output_retries`` of them in the run, the run fails with the text
answer kept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from reactgraph import prompts
from reactgraph.answers.typed import answer_shape, read_answer, typed_value
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.checks._base import Accept, Reply, SendBack, Stop
from reactgraph.models.calls import invoke_within, with_retries
from reactgraph.models.tokens import usage_of
from reactgraph.state import TerminationReason, TokenCount


def output_schema(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Accept | SendBack | Stop | None:
    """An answer read into the output schema (``Accept(output=...)``); one that does not fit is sent back, or ends
    the run after ``max_output_retries``."""
    if reply.answer is None or reply.schema is None:
        return None
    value, problem = read_answer(reply.answer, reply.schema)
    if value is None and reply.structure is not None:
        value, used = reply.structure(reply.answer)
        if used:
            reply.calls.append({"purpose": "structured_output", "token_usage": used})
    if value is not None:
        return Accept(output=value.model_dump(mode="json"))
    failures = state.get("output_failures", 0) + 1
    if failures > cfg.checks.max_output_retries:
        limit = f"max_output_retries={cfg.checks.max_output_retries}"
        detail = f"the answer did not fit the output schema {failures} times ({limit}); last: {problem}"
        return Stop(TerminationReason.FAILURE, detail, reply.answer)
    again = prompts.OUTPUT_AGAIN.format(shape=answer_shape(reply.schema))
    return SendBack(f"{error_text(ErrorKind.INVALID_OUTPUT, problem=problem or '')} {again}", ErrorKind.INVALID_OUTPUT)


def structurer(
    model: BaseChatModel, schema: type[BaseModel], question: str, cfg: AgentConfig, deadline: float | None,
    cancelled: Callable[[], bool],
) -> Callable[[str], tuple[BaseModel | None, TokenCount | None]]:
    """What puts an answer into ``schema`` by one call to ``model``'s structured output (``Reply.structure``)."""
    return lambda answer: structured(model, schema, question, answer, cfg, deadline, cancelled)


def structured(
    model: BaseChatModel,
    schema: type[BaseModel],
    question: str,
    answer: str,
    cfg: AgentConfig,
    deadline: float | None,
    cancelled: Callable[[], bool],
) -> tuple[BaseModel | None, TokenCount | None]:
    """``answer`` put into ``schema`` by one call to the model's structured output, and the call's usage; None for
    a model without structured output, a failed call, or a reply that does not fit."""
    messages: list[BaseMessage] = [HumanMessage(prompts.STRUCTURE_PROMPT.format(question=question, answer=answer))]
    try:
        runnable = model.with_structured_output(schema, include_raw=True)
        out: Any = with_retries(
            lambda: invoke_within(runnable, messages, deadline=deadline, cancelled=cancelled), cfg, deadline=deadline
        )
    except Exception:  # no structured output (NotImplementedError), or the call failed or was cut: the answer goes back
        return None, None
    raw = out.get("raw")
    usage = usage_of(raw, messages) if isinstance(raw, AIMessage) else None
    return typed_value(out.get("parsed"), schema), usage
