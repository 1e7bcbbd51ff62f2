"""act: run one tool call (one task per call, so a crash re-runs only unfinished calls)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from langgraph.types import interrupt

from reactgraph.deps import ASK_USER, Deps
from reactgraph.state import Action, Outcome
from reactgraph.tools.execution import execute


class ActInput(TypedDict):
    """The Send payload: one action and the run's wall-clock deadline (or None)."""

    action: Action
    deadline: float | None


def make_act(deps: Deps) -> Callable[[ActInput], dict[str, Any]]:
    def act(payload: ActInput) -> dict[str, Any]:
        """Reads one pending action; writes its outcome (ok or error kind, content, duration, retries)."""
        cfg = deps.run_config()
        action = payload["action"]
        if "rejection" in action:
            outcome = _outcome(action, "error", action["rejection"], action.get("rejection_kind"))
        elif action["tool"] == ASK_USER and cfg.allow_clarification:
            question = str(action["args"].get("question", "")).strip() or "(the model asked without a question)"
            answer = interrupt({"question": question, "tool_call_id": action["id"]})
            outcome = _outcome(action, "ok", f"The user answered: {answer}", None)
        else:
            offered = deps.registry.names() if cfg.tools is None else [n for n in cfg.tools if deps.registry.has(n)]
            entry = deps.registry.get(action["tool"]) if action["tool"] in offered else None
            outcome = execute(action, entry, cfg, deadline=payload["deadline"], available=offered)
        return {"outcomes": [outcome]}

    return act


def _outcome(action: Action, status: str, content: str, kind: str | None) -> Outcome:
    return {
        "call_id": action["id"],
        "index": action["index"],
        "tool": action["tool"],
        "args": action["args"],
        "status": status,
        "error_kind": kind,
        "error_type": kind or "",
        "content": content,
        "duration": 0.0,
        "retries": 0,
        "cached": False,
        "failures": [content] if status == "error" else [],
    }
