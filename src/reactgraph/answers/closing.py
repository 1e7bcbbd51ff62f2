"""The AI message that closes a turn in the chat: every turn ends with one, so a chat client (Agent Chat UI,
Studio's chat view) always shows how it ended. It is the answer; a partial answer says that the turn was cut
short and why; a turn without an answer says why it stopped (stalled, failed, cut short at a limit, cancelled) and
what its tools had found by then."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

FOUND_SHOWN = 5  # the last tool results a closing message lists
FOUND_CHARS = 300  # of each result
WHY = {  # the reason's words; the termination's detail follows
    "stalled": "it stalled",
    "max_iterations": "it reached its step limit (max_iterations)",
    "token_budget": "it used up its token budget (token_budget)",
    "timeout": "it ran out of time (timeout_seconds)",
    "cancelled": "it was cancelled",
    "failure": "it failed",
    "custom": "it was stopped",
}


def closing_text(answer: str | None, termination: Mapping[str, Any], partial: bool, steps: Sequence[Mapping[str, Any]]) -> str:
    """The text of the turn's closing AI message: ``answer`` (noted as partial when the turn was cut short), or
    why the turn stopped without one and what it found (``steps``: the turn's trace)."""
    why = stopped_because(termination)
    if answer:
        return f"{answer}\n\n(A partial answer: {why}.)" if partial else answer
    found = found_in(steps)
    lines = [f"I stopped without an answer: {why}."]
    if found:
        lines += ["", "What I found:", *(f"- {line}" for line in found)]
    else:
        lines += ["", "No tool had given a result yet."]
    return "\n".join(lines)


def stopped_because(termination: Mapping[str, Any]) -> str:
    """Why the turn stopped, in words: the reason, then the termination's detail."""
    reason = str(termination.get("reason") or "failure")
    detail = str(termination.get("detail") or "").strip()
    words = WHY.get(reason, f"it ended ({reason})")
    return f"{words}: {detail}" if detail else words


def found_in(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """The last ``FOUND_SHOWN`` results the turn's tools gave, each as ``tool(args) returned: result``."""
    found = []
    for step in steps:
        for action, observation in zip(step.get("actions") or [], step.get("observations") or [], strict=False):
            if action.get("tool") and observation.get("status") == "ok":
                args = json.dumps(action.get("args") or {}, ensure_ascii=False, default=str)
                result = " ".join(str(observation.get("content", "")).split())
                if len(result) > FOUND_CHARS:
                    result = result[:FOUND_CHARS] + "..."
                found.append(f"{action['tool']}({args}) returned: {result}")
    return found[-FOUND_SHOWN:]
