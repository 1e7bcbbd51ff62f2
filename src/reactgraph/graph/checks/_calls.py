"""Checks of the calls a reply makes to ``ask_user`` and of the reasoning before them: one question at a time goes
to the user, and with ``require_thought`` a call needs reasoning before it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, runs

DEGENERATE_THOUGHT = re.compile(
    r"^(ok(ay)?[,.]?\s*)?(i('ll| will| am going to| need to| should)|let me|let's|now i will)\s+"
    r"(use|call|run|try|invoke)\s+(the\s+|a\s+)?(\w+\s+)?(tool|function)s?[.!]?$",
    re.IGNORECASE,
)


def one_question(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """Of several questions for the user in one reply, the first is asked (one pause, one answer); the others are
    refused, to be asked after it is answered."""
    asked, out = False, []
    for action in reply.actions:
        if runs(action) and action["tool"] == ASK_USER:
            if asked:
                action = {**action, "rejection_kind": ErrorKind.INVALID_PARAMETERS.value, "rejection": prompts.ONE_QUESTION}
            asked = True
        out.append(action)
    return rewritten(reply, out)


def thought_required(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """With ``require_thought``: calls after a missing, too short or filler thought ("I will use the tool") are not
    run; the model is asked for its reasoning."""
    if not cfg.checks.require_thought or not reply.actions:
        return None
    text = reply.thought.strip()
    if len(text) >= cfg.checks.min_thought_chars and not DEGENERATE_THOUGHT.match(text):
        return None
    refused: list[Action] = [
        {**a, "rejection_kind": ErrorKind.MISSING_THOUGHT.value, "rejection": prompts.THOUGHT_REQUIRED} if runs(a) else a
        for a in reply.actions
    ]
    return rewritten(reply, refused)

