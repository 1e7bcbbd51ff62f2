"""Every stop rule, as a plain function of the state, in one fixed order.

After each turn, observe checks the rules in this order and records the first that fires as the
run's ``termination`` (decided once: the router and terminate read it, never recompute it):

1. user callback (``termination_callback`` returned True)  -> custom
2. cancellation (``ReActAgent.cancel``)                    -> cancelled
3. time budget (``timeout_seconds``)                        -> timeout
4. token budget (``token_budget``)                          -> token_budget
5. stall (``stall_threshold`` repeats)                      -> stalled
   (a turn whose failures disabled a tool starts the count afresh: the model may react first)
6. max iterations (``max_iterations``)                      -> max_iterations

The routers (``routing``) read the recorded stop; think records the model's own (an answer, a give-up).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from reactgraph.config import AgentConfig
from reactgraph.models.tokens import count_tokens
from reactgraph.state import (
    ReActState,
    Termination,
    TerminationReason,
    current_turn,
    iteration_of,
    stopped,
    tokens_used,
    tool_stats,
)


class Observed(ReActState, total=False):
    """The state as the stop rules see it after a turn: with what observe asked at that moment (never stored)."""

    callback_stop: str | None  # why termination_callback stopped the run (it returned True, or raised), else None
    cancel_requested: bool  # ReActAgent.cancel asked this run to stop


Rule = Callable[[Observed, AgentConfig, float], Termination | None]


def user_callback(state: Observed, cfg: AgentConfig, now: float) -> Termination | None:
    if detail := state.get("callback_stop"):
        return stopped(TerminationReason.CUSTOM, detail, observed=iteration_of(state))
    return None


def cancellation(state: Observed, cfg: AgentConfig, now: float) -> Termination | None:
    if state.get("cancel_requested"):
        return stopped(TerminationReason.CANCELLED, "the run was cancelled on request", observed=iteration_of(state))
    return None


def time_budget(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    limit = cfg.limits.timeout_seconds
    elapsed = now - state.get("started_at", now)
    if limit is not None and elapsed >= limit:
        return stopped(TerminationReason.TIMEOUT, f"time budget of {limit:g}s used up ({elapsed:.1f}s elapsed)", limit, round(elapsed, 3))
    return None


def token_budget(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    """Stop when the tokens used, plus the next call's (``next_call``), would pass the budget."""
    budget = cfg.limits.token_budget
    if budget is None:
        return None
    used = tokens_used(state).get("total_tokens", 0)
    projected = used + next_call(state)
    if projected > budget:
        detail = f"{used} tokens used; another model call (~{projected - used}) would pass the budget of {budget}"
        return stopped(TerminationReason.TOKEN_BUDGET, detail, budget, used)
    return None


def next_call(state: ReActState) -> int:
    """The tokens of the next model call, foreseen: the last call's, plus what its turn adds to the next prompt (its
    reply, and its tool results at ``CHARS_PER_TOKEN``). A call the size of the last fell short as the prompt grew: a
    budget of 700 ended at 754."""
    turn = current_turn(state)
    usage = turn.get("usage") or {}
    if not (last := usage.get("total_tokens", 0)):
        return 0
    steps = state.get("steps") or []
    results = steps[-1].get("observations") or [] if steps and steps[-1].get("iteration") == turn.get("iteration") else []
    return last + usage.get("output_tokens", 0) + count_tokens("".join(o.get("content") or "" for o in results))


def stall(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    signals = tool_stats(state).get("stall") or {}
    for kind in ("action", "observation"):
        repeats = signals.get(f"{kind}_repeats", 0)
        if repeats >= cfg.limits.stall_threshold:
            detail = f"the same {kind} {repeats} times in a row: {signals.get(f'{kind}_text', '')[:200]}"
            return stopped(TerminationReason.STALLED, detail, cfg.limits.stall_threshold, repeats)
    return None


def max_iterations(state: ReActState, cfg: AgentConfig, now: float) -> Termination | None:
    i = iteration_of(state)
    if i >= cfg.limits.max_iterations:
        return stopped(TerminationReason.MAX_ITERATIONS, f"reached max_iterations={cfg.limits.max_iterations}", cfg.limits.max_iterations, i)
    return None


STOP_RULES: tuple[Rule, ...] = (user_callback, cancellation, time_budget, token_budget, stall, max_iterations)


def stop_reason(state: Observed, cfg: AgentConfig, now: float | None = None) -> Termination | None:
    """The first stop rule that fires, in the documented order, or None."""
    now = time.time() if now is None else now
    for rule in STOP_RULES:
        if (found := rule(state, cfg, now)) is not None:
            return found
    return None


def recursion_limit(max_iterations: int, hook_nodes: int = 0) -> int:
    """LangGraph supersteps a run of ``max_iterations`` may need: think, act, observe and summarize
    per iteration, and terminate, so that the run's own stop rules fire before LangGraph's limit; with
    middleware, each of its ``hook_nodes`` may run once per iteration too."""
    return (4 + hook_nodes) * max_iterations + 10 + hook_nodes
