"""Checks of the calls a reply makes to ``ask_user`` and of the reasoning before them: one question at a time goes
to the user, with ``require_thought`` a call needs reasoning before it, and a plan carried out is not carried out
again."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import PLAIN, calculation, numbers_in
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, normalise, runs
from reactgraph.tool_calling.text import render_action

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



def repeated_plan(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """Calculations on a number the step before worked out (in its results, not in the question or its calls), after
    reasoning that repeats that step's word for word (its calls all gave a result), are not run: that step carried
    the plan out, and this applies it to its own result (the local model added 100 again to 497.8, what
    ``397.8 + 100`` gave). A search refined with what a result said runs (the recorded trajectories have those). The model is shown what the step gave; made again,
    right after, the calls run. The same calls again are left to the stall rule (``stall_threshold``)."""
    steps = state.get("steps") or []
    thought = " ".join(reply.thought.split())
    if not thought or not steps or not any(runs(a) for a in reply.actions):
        return None
    before = steps[-1]
    seen = before.get("observations") or []
    if " ".join((before.get("thought") or "").split()) != thought or not seen or any(o.get("status") != "ok" for o in seen):
        return None
    if _calls(reply.actions) == _calls(before.get("actions") or []):
        return None
    given = {*numbers_in(state.get("question") or ""), *(n for a in before.get("actions") or [] for n in _numbers(a)), *PLAIN}
    made = {n for o in seen for n in numbers_in(o.get("content") or "")} - given  # what the step worked out
    redone = [a for a in reply.actions if runs(a) and calculation(a.get("args") or {})]
    if not made.intersection(n for a in redone for n in _numbers(a)):
        return None
    gave = "; ".join(f"{render_action(a['tool'], a.get('args') or {})} gave {o.get('content', '')}"
                     for a, o in zip(before.get("actions") or [], seen, strict=False))
    problem = prompts.REPEATED_PLAN.format(gave=gave)
    return rewritten(reply, [
        {**a, "rejection_kind": ErrorKind.REPEATED_PLAN.value, "rejection": problem} if runs(a) else a for a in reply.actions
    ])


def _calls(actions: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """Calls as the stall rule compares them (``normalise``: case, spacing and key order do not matter)."""
    return [(a.get("tool") or "", normalise(a.get("args") or {})) for a in actions]


def _numbers(action: Mapping[str, Any]) -> list[Any]:
    return numbers_in(json.dumps(action.get("args") or {}))
