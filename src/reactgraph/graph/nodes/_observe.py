"""observe: turn the turn's outcomes into one trace step, update the run's signals and decide, once,
whether a stop rule (``stops.stop_reason``) ends the run here; the router and terminate read it."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from langgraph.types import Overwrite

from reactgraph.answers.result import ReActStep
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.deps import NodeDeps, current_thread
from reactgraph.graph.nodes._act import turn_outcomes
from reactgraph.graph.nodes._summarize import condense_observation
from reactgraph.graph.stops import Observed, stop_reason
from reactgraph.models.tokens import truncate
from reactgraph.state import (
    Outcome,
    ReActState,
    TerminationReason,
    ToolStats,
    add_usage,
    compared_call,
    current_turn,
    iteration_of,
    stopped,
    sum_usage,
    tool_stats,
)
from reactgraph.tools.breaker import count_failure
from reactgraph.tools.registry import ToolRegistry

STALL_TEXTS = frozenset({"action_text", "observation_text"})  # only for the detail of a stall stop, in its step


def stall_signals(previous: dict[str, Any], outcomes: list[Outcome]) -> dict[str, Any]:
    """Count consecutive repeats of the same action set and of the same observations.

    Each is compared by a digest, so a checkpoint holds 16 characters, not the observations (a result act cut,
    as cut: the model sees no more of it); ``*_text`` keeps the start of it for the stop's detail (``STALL_TEXTS``: the stop rules see them, the step's
    statistics do not keep them). An answer that did not fit the output schema is no
    action: ``max_output_retries`` bounds those, and such a turn ends a run of repeats."""
    outcomes = [o for o in outcomes if o.get("error_kind") != ErrorKind.INVALID_OUTPUT]
    if not outcomes:
        return {"action_repeats": 0, "observation_repeats": 0}
    action = json.dumps([compared_call(o) for o in outcomes], sort_keys=True, ensure_ascii=False)
    observation = json.dumps([o["content"] for o in outcomes], ensure_ascii=False)
    signals: dict[str, Any] = {}
    for kind, text in (("action", action), ("observation", observation)):
        key = hashlib.sha256(text.encode(errors="surrogatepass")).hexdigest()[:16]  # a model may send lone surrogates
        same = previous.get(f"{kind}_key") == key
        signals |= {f"{kind}_key": key, f"{kind}_text": text[:200]}
        signals[f"{kind}_repeats"] = previous.get(f"{kind}_repeats", 0) + 1 if same else 1
    return signals


def make_observe(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
    def observe(state: ReActState) -> dict[str, Any]:
        """Reads the turn's outcomes (act's ToolMessages: ``turn_outcomes``) and model calls; writes one trace step
        (with the run's tool statistics after it: usage, breaker counts, stall signals), the error history, the
        termination when a stop rule fires (asking termination_callback and whether the run was cancelled) and, when
        the turn's tool calls spent tokens (a sub-agent, a condensed observation), the run's count in the turn's
        record."""
        cfg = deps.run_config()
        now = time.time()
        outcomes = turn_outcomes(state)
        stats = tool_stats(state)
        usage, failures = dict(stats.get("usage") or {}), dict(stats.get("failures") or {})
        errors, observations, tripped = [], [], False
        turn = current_turn(state)
        children = [o["usage"] for o in outcomes if o.get("usage") is not None]  # sub-agents' runs
        calls = [*turn.get("calls", []), *({"purpose": "sub_agent", "token_usage": u} for u in children)]
        spent = sum_usage(children) if children else {}  # and summarize_observations calls
        for o in outcomes:
            if o.get("truncated"):  # act cut it already: its ToolMessage's text
                content, cut = o["content"], True
            else:
                content, cut = truncate(o["content"], cfg.prompt.max_observation_tokens)
            if cut and cfg.prompt.summarize_observations and o["status"] == "ok":  # the model shortens it instead
                summary, used = condense_observation(deps, state, cfg, tool=o["tool"], content=o["content"])
                content = summary or content
                if used:
                    spent = add_usage(spent, used)
                    calls.append({"purpose": "condense", "token_usage": used})
            if o.get("ran"):  # the tool itself was called (cache hits and refused calls are not runs)
                usage[o["tool"]] = usage.get(o["tool"], 0) + 1
            if note := count_failure(failures, o, cfg):
                content, tripped = content + f"\n{note}", True
            elif hint := how_to_write(o, state.get("steps") or [], deps.registry):
                content += f"\n{hint}"
            if o.get("failures") and o.get("error_kind") != ErrorKind.UNVERIFIED_ANSWER:  # a check asked for is no failure
                errors.append(_error_entry(o, now))
            kept = ("call_id", "tool", "status", "error_kind", "duration", "retries", "cached", "trace", "middleware", "value")
            fields: Mapping[str, Any] = o
            observations.append({k: fields[k] for k in kept if fields.get(k) is not None} | {"content": content, "truncated": cut})
        stall = stall_signals(stats.get("stall") or {}, outcomes)
        if tripped:  # a tool was just disabled: the model gets a turn to react before repeats count again
            stall |= {"action_repeats": 1, "observation_repeats": 1}
        step = ReActStep(
            iteration=iteration_of(state),
            kind="check" if outcomes and all(o.get("error_kind") == ErrorKind.UNVERIFIED_ANSWER for o in outcomes) else "tools",
            thought=turn.get("thought", ""),
            actions=[{"id": o["call_id"], "tool": o["tool"], "args": o["args"]} for o in outcomes],
            observations=observations,
            timestamp=now,
            token_usage=sum_usage(call["token_usage"] for call in calls),
            calls=calls,
            duration=now - turn.get("started", now),
            format=turn.get("format"),
            written=turn.get("written") or None,
            answer=turn.get("answer") or None,
            hooks=state.get("hooks") or [],
            checks=turn.get("checks") or [],
            left_out=turn.get("left_out") or [],
        )
        bookkeeping: dict[str, Any] = {}

        if not tripped and min(stall["action_repeats"], stall["observation_repeats"]) >= 2 and observations:
            bookkeeping["repeated"] = True  # the same calls gave the same results again: the prompt says so
        stats = ToolStats(usage=usage, failures=failures, stall=stall)
        record = step.record(**bookkeeping, stats=stats | {"stall": {k: v for k, v in stall.items() if k not in STALL_TEXTS}})
        callback_stop, found = _ask_callback(cfg, step)
        asked = {"callback_stop": callback_stop, "cancel_requested": deps.is_cancelled(current_thread(), state.get("started_at", now))}
        update: dict[str, Any] = {"steps": [record], "errors": errors}
        if spent:
            update["current_turn"] = turn = {**turn, "tokens": add_usage(turn.get("tokens"), spent)}
        if state.get("hooks"):
            update["hooks"] = Overwrite([])
        if ended := direct_end(outcomes):  # the tools answered: the run's end, before any stop rule
            return update | ended
        view = cast(Observed, {**state, **asked, "steps": [*(state.get("steps") or []), record | {"stats": stats}], "current_turn": turn})
        termination = stop_reason(view, cfg, now)
        if found and termination is not None and termination["reason"] == TerminationReason.CUSTOM:
            update["final_answer"] = step.observation  # what the step the callback stopped at found
        return update | {"termination": termination}

    return observe


def direct_end(outcomes: list[Outcome]) -> dict[str, Any] | None:
    """The run's end when every call of the turn answered directly (``return_direct``, a Command to END: as
    ``create_agent`` ends only when all did): success, their results the answer, the detail naming the tools."""
    if not outcomes or not all(o.get("direct") and o["status"] == "ok" for o in outcomes):
        return None
    how = "; ".join(f"{o['tool']} ({o['direct']})" for o in outcomes)
    answer = "\n\n".join(o["content"] for o in outcomes)
    return {"termination": stopped(TerminationReason.SUCCESS, f"the tool's result is the answer: {how}"), "final_answer": answer}


MISWRITTEN = frozenset({ErrorKind.INVALID_PARAMETERS, ErrorKind.EXECUTION_FAILED})
"""Failures a differently written input may get past."""


def how_to_write(o: Outcome, steps: Sequence[dict[str, Any]], registry: ToolRegistry) -> str | None:
    """For a call that failed on its input when the tool's last call failed too: how to write the input, from the
    tool's first example (a model that repeats a form the tool cannot read is shown one it can)."""
    if o.get("status") != "error" or o.get("error_kind") not in MISWRITTEN:
        return None
    if (tool := registry.get(o.get("tool") or "")) is None or not tool.examples:
        return None
    earlier = [p for step in steps for p in step.get("observations") or [] if p.get("tool") == o["tool"]]
    if not earlier or earlier[-1].get("status") != "error":
        return None
    return f"{o['tool']} failed on how its input was written again. Write it like this example: {tool.examples[0]}"


def _error_entry(o: Outcome, now: float) -> dict[str, Any]:
    return {
        "tool": o["tool"] or "(model reply)",
        "error": o["failures"][-1],
        "error_type": o.get("error_type") or o.get("error_kind") or "",
        "error_kind": o.get("error_kind"),
        "retries": o.get("retries", 0),
        "recovered": o["status"] == "ok",
        "timestamp": now,
    }


def _ask_callback(cfg: AgentConfig, step: ReActStep) -> tuple[str | None, bool]:
    """(the callback's stop detail if it asked to stop or raised, whether it asked: the step holds what it looked for)."""
    if cfg.termination_callback is None:
        return None, False
    try:
        stop = cfg.termination_callback(step)
    except Exception as exc:
        return f"termination_callback raised {type(exc).__name__}: {exc}", False
    if not stop:
        return None, False
    return f"termination_callback returned True after iteration {step.iteration}", True
