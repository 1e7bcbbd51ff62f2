"""Routing: every termination rule, as plain functions of the state, in one fixed order.

After each turn, observe checks the rules in this order and records the first that fires as the
run's ``termination`` (decided once: the router and terminate read it, never recompute it):

1. user callback (``termination_callback`` returned True)  -> custom
2. cancellation (``ReActAgent.cancel``)                    -> cancelled
3. time budget (``timeout_seconds``)                        -> timeout
4. token budget (``token_budget``)                          -> token_budget
5. stall (``stall_threshold`` repeats)                      -> stalled
   (a turn whose failures disabled a tool starts the count afresh: the model may react first)
6. max iterations (``max_iterations``)                      -> max_iterations

If none fires: summarize when a summary is due (every ``summary_every`` iterations, or when
the next prompt would pass ``summary_token_threshold``), else think again. After think, the
model's own stops (final answer -> success, giving up -> failure) go to terminate,
tool calls fan out to act (one ``Send`` task per call; a call that needs approval waits there; a
sub-agent's call carries its share of the tokens left).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from langgraph.types import Send

from reactgraph.config import AgentConfig
from reactgraph.scratchpad import over_threshold
from reactgraph.state import ReActState, Termination
from reactgraph.subagents import is_agent
from reactgraph.tools.approval import needs_approval
from reactgraph.tools.execution import call_key
from reactgraph.tools.registry import ToolRegistry

Rule = Callable[[ReActState, AgentConfig, float], Termination | None]


def user_callback(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    if detail := state.get("callback_stop"):
        return {"reason": "custom", "detail": detail, "limit": None, "observed": state.get("iteration", 0)}
    return None


def cancellation(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    if state.get("cancel_requested"):
        return {"reason": "cancelled", "detail": "the run was cancelled on request", "limit": None, "observed": state.get("iteration", 0)}
    return None


def time_budget(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    limit = cfg.timeout_seconds
    elapsed = now - state.get("started_at", now)
    if limit is not None and elapsed >= limit:
        return {"reason": "timeout", "detail": f"time budget of {limit:g}s used up ({elapsed:.1f}s elapsed)", "limit": limit, "observed": round(elapsed, 3)}
    return None


def token_budget(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    """Stop when the tokens used, plus another call the size of the last one, would pass the budget."""
    budget = cfg.token_budget
    if budget is None:
        return None
    used = (state.get("token_usage") or {}).get("total_tokens", 0)
    projected = used + (state.get("turn_usage") or {}).get("total_tokens", 0)
    if projected > budget:
        return {
            "reason": "token_budget",
            "detail": f"{used} tokens used; another model call (~{projected - used}) would pass the budget of {budget}",
            "limit": budget,
            "observed": used,
        }
    return None


def stall(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    signals = state.get("stall") or {}
    for kind in ("action", "observation"):
        repeats = signals.get(f"{kind}_repeats", 0)
        if repeats >= cfg.stall_threshold:
            return {
                "reason": "stalled",
                "detail": f"the same {kind} {repeats} times in a row: {signals.get(f'{kind}_text', '')[:200]}",
                "limit": cfg.stall_threshold,
                "observed": repeats,
            }
    return None


def max_iterations(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    i = state.get("iteration", 0)
    if i >= cfg.max_iterations:
        return {"reason": "max_iterations", "detail": f"reached max_iterations={cfg.max_iterations}", "limit": cfg.max_iterations, "observed": i}
    return None


STOP_RULES: tuple[Rule, ...] = (user_callback, cancellation, time_budget, token_budget, stall, max_iterations)


def stop_reason(state: ReActState, cfg: AgentConfig, now: float | None = None) -> Termination | None:
    """The first stop rule that fires, in the documented order, or None."""
    now = time.time() if now is None else now
    for rule in STOP_RULES:
        if (found := rule(state, cfg, now)) is not None:
            return found
    return None


def summary_due(state: ReActState, cfg: AgentConfig) -> bool:
    """Every ``summary_every`` iterations, or when the next prompt would pass ``summary_token_threshold``."""
    every = cfg.summary_every
    if every > 0 and state.get("iteration", 0) - state.get("summarized_through", 0) >= every:
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
    if state.get("termination") or not state.get("pending_actions"):
        return "terminate"
    deadline = cfg.deadline(state["started_at"])
    cache = state.get("tool_cache") or {}
    agents = [a for a in state["pending_actions"] if a.get("tool") and is_agent(registry, a["tool"], cfg)]
    sends = []
    for a in state["pending_actions"]:
        cached = cache.get(call_key(a["tool"], a["args"]))
        approve = cached is None and needs_approval(a, registry, cfg)
        payload = {"action": a, "deadline": deadline, "cached": cached, "approve": approve}
        if any(a is b for b in agents):
            payload["delegation"] = {"started_at": state["started_at"], "tokens_left": tokens_left(state, cfg, len(agents))}
        sends.append(Send("act", payload))
    return sends


def tokens_left(state: ReActState, cfg: AgentConfig, shares: int) -> int | None:
    """A sub-agent call's share of the tokens the run has left (None: no token budget)."""
    if cfg.token_budget is None:
        return None
    used = (state.get("token_usage") or {}).get("total_tokens", 0)
    return max(0, cfg.token_budget - used) // shares
