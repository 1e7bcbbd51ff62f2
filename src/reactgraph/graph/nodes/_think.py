"""think: one model call that yields a thought and tool calls, or the final answer.

Four steps: build the prompt and call the model (``graph._asking``: the run's format binds the tools, the call is
bounded by the time budget and by ``cancel()``, retried, and falls back to ``fallback_models``; LangChain
middleware's ``wrap_model_call`` wraps it); read the reply (the format reads it; under ``tool_calling="auto"`` a model
that writes its calls as text moves the run to the text format; ``checks.read_reply`` says whether it is an answer,
a give-up or calls); run the reply checks (``graph.checks``: the run's ``reply_checks``, in order); write the turn."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage

from reactgraph.answers.typed import answer_not_call
from reactgraph.config import AgentConfig
from reactgraph.graph import stops
from reactgraph.graph._answered import answered_again
from reactgraph.graph._asking import Bounds, Exchange, Offer, asked, offered
from reactgraph.graph._learning import shown_block
from reactgraph.graph._scratchpad import left_out, left_out_notice, not_answers, status_text
from reactgraph.graph.checks import Reply, judged, read_reply, resolved_checks, update_of
from reactgraph.graph.checks._output import structurer
from reactgraph.graph.checks._pipeline import stop_update
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.runtime import tell_user
from reactgraph.graph.turns import folded, started_turn
from reactgraph.models.calls import CallCancelled, CallCut, model_label
from reactgraph.models.resolve import ModelUnavailableError
from reactgraph.models.tokens import usage_of
from reactgraph.state import (
    Action,
    ReActState,
    Termination,
    TerminationReason,
    Turn,
    add_usage,
    iteration_of,
    stopped,
    sum_usage,
)
from reactgraph.tool_calling import next_format, reply_text
from reactgraph.tools.breaker import refused


def make_think(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
    def think(state: ReActState) -> dict[str, Any]:
        """Reads question, summary, recent steps, tools, budgets, the run's format and parse failures
        so far; writes the turn's record (thought, pending actions, format, the call's usage, the run's tokens, the
        checks that acted: on the turn's AI message when it calls tools, else in ``current_turn``) or the final
        answer, the run's next format, and the counts the checks' bounds read."""
        return folded(turned(deps, state))

    return think


def turned(deps: NodeDeps, state: ReActState) -> dict[str, Any]:
    """think's update, with the turn's fields and its AI message still apart (``turns.TURN_FIELDS``, ``turn_message``;
    ``folded`` puts them together)."""
    cfg = deps.run_config()
    now = time.time()
    state, update = started_turn(state, now, cfg)
    if not state["question"]:
        return update | stop_update(stopped(TerminationReason.FAILURE, "no question: send a 'query' or a human message"), None)
    update["iteration"] = iteration = iteration_of(state) + 1
    offer = offered(deps, cfg, state)
    if "question" in update and cfg.learning.playbook:  # a new run: the playbook's block for its question
        update["playbook"] = shown_block(deps, cfg, state["question"], [s.name for s in offer.specs])
        state = {**state, "playbook": update["playbook"]}
    bounds = Bounds(*deps.run_bounds(state, cfg))
    try:
        exchange = asked(deps, state, cfg, offer, iteration, now, bounds)
    except CallCut as cut:  # the time budget ran out, or the run was cancelled, during the call
        return update | {"termination": stopped_during_call(state, cfg, cut), "pending_actions": []}
    except ModelUnavailableError:  # no model to call at all (none named, none pulled): loud, before any call
        raise
    except Exception as exc:  # the model failed (after retries and fallbacks): a stop, reported as data
        detail = f"model call failed: {type(exc).__name__}: {exc}"
        return update | stop_update(stopped(TerminationReason.FAILURE, detail), None)
    reply, following = read(deps, state, cfg, exchange, offer, iteration, now, bounds)
    if following != exchange.fmt.name:
        deps.learn_format(exchange.model, following)
    checks = resolved_checks(cfg.checks.reply_checks, deps.own_checks)
    decision = update_of(judged(reply, state, cfg, checks, bounds.deadline), state, cfg)
    written = reply.written if reply.source in ("json", "text", "python") else None
    formats = {"tool_format": following, "turn_format": exchange.fmt.name, "turn_written": written}
    if message := calls_message(reply.thought, decision["pending_actions"]):  # the chat's, after a new turn's question
        update["turn_message"] = message
    counts = accounted(exchange, state["current_turn"], reply.calls)
    if left := left_out(state, cfg, exchange.fmt):  # images a text-only prompt could not send: on the step, told once
        update["turn_left_out"] = left
        tell_user(left_out_notice(state, left, exchange.fmt))
    return update | exchange.update | formats | counts | {"thought": reply.thought} | decision


def read(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, exchange: Exchange, offer: Offer, iteration: int, now: float,
    bounds: Bounds,
) -> tuple[Reply, str]:
    """(the reply as the checks see it, the run's next format): read in the turn's format (an answer may be given as a
    call when an output schema is set: ``answer_not_call``; calls made before with the answer written after them are
    that answer: ``answered_again``), calls of tools the breaker took out refused, with what
    the prompt showed that is no answer and, with an output schema, how the model's structured output types it."""
    text = reply_text(exchange.reply)
    parsed = answer_not_call(exchange.fmt.read(exchange.reply, exchange.ctx), text, deps.output_schema)
    parsed = answered_again(parsed, text, state.get("steps") or [], exchange.ctx)
    parsed.actions = refused(parsed.actions, offer.disabled, cfg)
    shown = not_answers(state, cfg, exchange.fmt, exchange.ctx, status_text(state, cfg, now, iteration))
    structure = None
    if deps.output_schema is not None and exchange.fmt.structured_output:
        structure = structurer(exchange.model, deps.output_schema, state["question"], cfg, bounds.deadline, bounds.cancelled)
    reply = read_reply(
        parsed, cfg, iteration=iteration, written=text, tools=offer.specs, shown=shown, schema=deps.output_schema,
        structure=structure,
    )
    return reply, next_format(cfg.tool_calling, exchange.fmt.name, parsed)


def accounted(exchange: Exchange, turn: Turn, checking: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The turn's model calls (those made ahead of it, think's own, the ones the checks made: typing the answer), the
    usage of think's own call and the run's tokens with them counted."""
    usage = usage_of(exchange.reply, exchange.messages)
    own: dict[str, Any] = {"purpose": "think", "token_usage": usage}
    if exchange.middleware:
        own |= {"middleware": list(exchange.middleware), "model": model_label(exchange.model)}
    calls = [own, *checking]
    tokens = add_usage(turn["tokens"], sum_usage(c["token_usage"] for c in calls))
    return {"turn_usage": usage, "turn_calls": [*turn["calls"], *calls], "turn_tokens": tokens}


def calls_message(thought: str, actions: Sequence[Action]) -> AIMessage | None:
    """The turn in the chat: the thought with the calls of named tools (act answers each with a
    ToolMessage); None for a turn without any (an answer, an unreadable reply)."""
    calls = [
        {"name": a["tool"], "args": a["args"] if isinstance(a.get("args"), dict) else {}, "id": a["id"], "type": "tool_call"}
        for a in actions
        if a.get("tool")
    ]
    return AIMessage(content=thought, tool_calls=calls) if calls else None


def stopped_during_call(state: ReActState, cfg: AgentConfig, cut: CallCut) -> Termination:
    """The stop for a model call the run cut: the time budget's, or the cancellation's."""
    now = time.time()
    if isinstance(cut, CallCancelled):
        return stops.cancellation(stops.Observed(**{**state, "cancel_requested": True}), cfg, now)  # type: ignore[return-value]
    found = stops.time_budget(state, cfg, now)
    assert found is not None  # the call was cut at the deadline
    return {**found, "detail": f"{found['detail']}, during a model call"}
