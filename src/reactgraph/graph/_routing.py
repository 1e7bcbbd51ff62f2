"""Routing: the conditional edges, plain functions of the state.

At the start: a person's reply to a turn that waits on them goes to act, with the turn's calls that have no result
(``replies``); a new turn whose conversation has gathered more earlier turns than it shows goes to summarize
first, which folds them into the conversation's notes (``conversation.fold_due``), else to think. After observe: to terminate when observe recorded a stop (``stops.stop_reason``, decided there once), else
summarize when a summary is due (every ``summary_every`` iterations, or when the next prompt would pass
``summary_token_threshold``), else think again. After think: the model's own stops (final answer -> success,
giving up -> failure) go to terminate; tool calls fan out to act (one ``Send`` task per call; a call that needs
approval waits there; a sub-agent's call carries its share of the tokens left). Out of a middleware hook's node:
where its ``jump_to`` says, where reactgraph allows it (``route_after_hook``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from langgraph.types import Send

from reactgraph.config import AgentConfig
from reactgraph.graph import _replies as replies
from reactgraph.graph._scratchpad import over_threshold
from reactgraph.graph.conversation import fold_due
from reactgraph.graph.subagents import is_agent
from reactgraph.state import Action, ReActState, current_turn, iteration_of, summarized_through, tokens_used
from reactgraph.tools.approval import needs_approval
from reactgraph.tools.execution import call_key
from reactgraph.tools.registry import ToolRegistry


def route_at_start(state: ReActState, cfg: AgentConfig, registry: ToolRegistry) -> Literal["summarize", "think"] | list[Send]:
    """A person's reply to a turn that waits on them (``replies.reply``) goes back to act with the turn's calls
    that have no result; else to summarize when a new turn's earlier turns are to be folded into the notes
    first, else to think."""
    if (waiting := replies.reply(state, registry, cfg)) is not None:
        sends = act_sends(state, cfg, registry, waiting.calls)
        for i, send in enumerate(sends):
            send.arg["reply"] = replies.replied(waiting, i)
        return sends
    return "summarize" if fold_due(state, cfg) else "think"


def summary_due(state: ReActState, cfg: AgentConfig) -> bool:
    """Every ``summary_every`` iterations, or when the next prompt would pass ``summary_token_threshold``."""
    every = cfg.prompt.summary_every
    if every > 0 and iteration_of(state) - summarized_through(state) >= every:
        return True
    return over_threshold(state, cfg)


def route_after_observe(state: ReActState, cfg: AgentConfig) -> Literal["terminate", "summarize", "think"]:
    """To terminate when observe recorded a stop (``stop_reason``, decided there once), else on."""
    if state.get("termination"):
        return "terminate"
    return "summarize" if summary_due(state, cfg) else "think"


def route_after_think(state: ReActState, cfg: AgentConfig, registry: ToolRegistry) -> Literal["terminate"] | list[Send]:
    """The model's own stop goes to terminate; each tool call becomes one act task, told its cached
    result (if any) and whether it waits for approval."""
    actions = current_turn(state).get("actions")
    if state.get("termination") or not actions:
        return "terminate"
    return act_sends(state, cfg, registry, actions)


def act_sends(state: ReActState, cfg: AgentConfig, registry: ToolRegistry, actions: list[Action]) -> list[Send]:
    """One act task per call, told its cached result (if any) and whether it waits for approval; a sub-agent's
    call carries its share of the tokens left."""
    deadline = cfg.limits.deadline(state["started_at"])
    cache = state.get("tool_cache") or {}
    agents = [a for a in actions if a.get("tool") and is_agent(registry, a["tool"], cfg)]
    sends = []
    for a in actions:
        cached = cache.get(call_key(a["tool"], a["args"]))
        approve = cached is None and needs_approval(a, registry, cfg)
        payload: dict[str, Any] = {"action": a, "deadline": deadline, "cached": cached, "approve": approve}
        if any(a is b for b in agents):
            payload["delegation"] = {"started_at": state["started_at"], "tokens_left": tokens_left(state, cfg, len(agents))}
        sends.append(Send("act", payload))
    return sends


def tokens_left(state: ReActState, cfg: AgentConfig, shares: int) -> int | None:
    """A sub-agent call's share of the tokens the run has left (None: no token budget)."""
    if cfg.limits.token_budget is None:
        return None
    used = tokens_used(state).get("total_tokens", 0)
    return max(0, cfg.limits.token_budget - used) // shares


def route_after_hook(state: Mapping[str, Any], allowed: frozenset[str]) -> Literal["end", "model", "tools", "on"]:
    """Out of a LangChain middleware hook's node: where its ``jump_to`` says, if its hook may jump there
    (``graph.middleware.can_jump_to``: end -> terminate, model -> the model call, tools -> act), else on."""
    jump = state.get("jump_to")
    return jump if jump in allowed else "on"
