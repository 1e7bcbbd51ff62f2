"""act: run one tool call (one task per call, so a crash re-runs only unfinished calls); a call that
needs approval waits for a person's decision first (``reactgraph.tools.approval``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from langchain_core.messages import ToolMessage
from langgraph.types import interrupt

from reactgraph import prompts
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.deps import ASK_USER, NodeDeps, current_thread
from reactgraph.graph.subagents import delegate, is_agent
from reactgraph.models.tokens import truncate
from reactgraph.state import Action, Outcome
from reactgraph.tools import approval
from reactgraph.tools.execution import (
    CallSlots,
    call_key,
    error_outcome,
    execute,
    ok_outcome,
)
from reactgraph.tools.policy import ToolCancelled, ToolTimeout


class ActInput(TypedDict):
    """The Send payload: one action, the run's wall-clock deadline (or None), the run's cached
    result for this exact call when its tool is cacheable and it ran before, whether the call
    waits for a person's approval (decided with the turn, so a resume under another config keeps it;
    act asks again itself, so a payload can add an approval, never take one away),
    and for a sub-agent's call the run's start and the tokens it may use."""

    action: Action
    deadline: float | None
    cached: NotRequired[str | None]
    approve: NotRequired[bool]
    delegation: NotRequired[Delegated]


class Delegated(TypedDict):
    """What a sub-agent's call gets of the parent run: its start (for a cancel) and its share of the
    tokens left (None: no token budget)."""

    started_at: float
    tokens_left: int | None


def make_act(deps: NodeDeps) -> Callable[[ActInput], dict[str, Any]]:
    slots = CallSlots()

    def act(payload: ActInput) -> dict[str, Any]:
        """Reads one pending action (and, when it needs approval, a person's decision: approved, run
        with edited arguments, or rejected); writes its outcome (ok or error kind, content, duration,
        retries, cached) and, for a cacheable tool's success, the run's cache entry."""
        cfg = deps.run_config()
        action = payload["action"]
        if "rejection" in action:
            kind = action.get("rejection_kind") or ErrorKind.MALFORMED_OUTPUT
            return reported(error_outcome(action, kind, action["rejection"]), cfg.max_observation_tokens)
        if "answered" in action:  # the agent answered it itself (a question about its tools)
            return reported(ok_outcome(action, action["answered"]), cfg.max_observation_tokens)
        if action["tool"] == ASK_USER and cfg.allow_clarification:
            question = str(action["args"].get("question", "")).strip() or "(the model asked without a question)"
            answer = interrupt({"question": question, "tool_call_id": action["id"]})
            return reported(ok_outcome(action, f"The user answered: {answer}"), cfg.max_observation_tokens)
        if payload.get("cached") is not None:
            return reported(ok_outcome(action, payload["cached"], cached=True), cfg.max_observation_tokens)
        asked = None
        if payload.get("approve") or approval.needs_approval(action, deps.registry, cfg):
            decision = approval.ask(action)
            if isinstance(decision, approval.Reject):
                text = error_text(ErrorKind.REJECTED, tool=action["tool"], problem=decision.reason or "none given")
                return reported(error_outcome(action, ErrorKind.REJECTED, text), cfg.max_observation_tokens)
            if isinstance(decision, approval.Edit):
                asked, action = action["args"], {**action, "args": decision.args}
        thread_id = current_thread()
        child_usage = None
        agent = is_agent(deps.registry, action["tool"], cfg)  # a payload without its share still runs it as a subgraph
        delegated = (payload.get("delegation") or {"started_at": time.time(), "tokens_left": cfg.token_budget}) if agent else None
        # a cancel from now on stops a call in a worker process; a sub-agent's, any since the run started
        cancelled = deps.cancel_check(thread_id, delegated["started_at"] if delegated else time.time())
        try:
            with slots.hold(thread_id, cfg.max_parallel_tools, deadline=payload["deadline"], cancelled=cancelled):
                if delegated is not None:
                    outcome, child_usage = delegate(
                        deps.registry.get(action["tool"]), action, deps.registry, cfg, deadline=payload["deadline"],
                        tokens_left=delegated["tokens_left"], cancelled=cancelled,
                    )
                else:
                    outcome = execute(action, deps.registry, cfg, deadline=payload["deadline"], cancelled=cancelled)
        except (ToolTimeout, ToolCancelled) as exc:  # no slot before the run's time ran out or it was cancelled
            kind = ErrorKind.TIMEOUT if isinstance(exc, ToolTimeout) else ErrorKind.EXECUTION_FAILED
            return reported(error_outcome(action, kind, error_text(kind, tool=action["tool"], problem=str(exc))), cfg.max_observation_tokens)
        if asked is not None:
            note = prompts.EDITED_CALL.format(asked=json.dumps(asked, ensure_ascii=False, default=str))
            outcome = outcome | {"content": note + outcome["content"]}
        update = reported(outcome, cfg.max_observation_tokens)
        if child_usage is not None:  # the child's tokens are the parent's: one model call of the turn
            update |= {"token_usage": child_usage, "model_calls": [{"purpose": "sub_agent", "token_usage": child_usage}]}
        entry = deps.registry.get(action["tool"])
        if outcome["status"] == "ok" and entry is not None and entry.policy.cacheable:
            update["tool_cache"] = {call_key(action["tool"], action["args"]): outcome["content"]}
        return update

    return act


def reported(outcome: Outcome, max_tokens: int) -> dict[str, Any]:
    """act's update for one outcome: the outcome, and (for a call of a named tool, which think put in
    the chat) its result as a ToolMessage, cut as the trace's observation is."""
    update: dict[str, Any] = {"outcomes": [outcome]}
    if outcome.get("tool"):
        status = "success" if outcome["status"] == "ok" else "error"
        content, _ = truncate(outcome.get("content", ""), max_tokens)
        update["messages"] = [ToolMessage(content, tool_call_id=outcome["call_id"], name=outcome["tool"], status=status)]
    return update

