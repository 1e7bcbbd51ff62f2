"""Checks of the calls a reply makes to ``ask_user`` and of the reasoning before them: one question at a time goes
to the user, with ``require_thought`` a call needs reasoning before it, and a plan carried out is not carried out
again."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import NUMBER
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.deps import ASK_USER
from reactgraph.models.tokens import truncate
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
    """A call that is a call of the step before with that call's result put in place of one of its numbers, after
    reasoning that repeats that step's word for word, is not run: the step carried the plan out, and this applies
    it again to its own result (the local model added 100 to 497.8, what ``397.8 + 100`` had given, under "I need to
    add 100 to the result of the previous calculation."). The model is shown that call and its result; made again
    right after, the call runs (a rate compounded twice). Other calls of the reply run; the same calls again are
    left to the stall rule (``stall_threshold``)."""
    steps = state.get("steps") or []
    thought = " ".join(reply.thought.split())
    if not thought or not steps:
        return None
    before = steps[-1]
    done = list(zip(before.get("actions") or [], before.get("observations") or [], strict=False))
    if " ".join((before.get("thought") or "").split()) != thought or not done or any(o.get("status") != "ok" for _, o in done):
        return None
    out, held = [], False
    for action in reply.actions:
        if runs(action) and (again := next(((a, o) for a, o in done if reapplied(action, a, o.get("content") or "")), None)):
            call, result = again
            shown = f"{render_action(call['tool'], call.get('args') or {})} gave {truncate(result.get('content') or '', GAVE_TOKENS)[0]}"
            action = {**action, "rejection_kind": ErrorKind.REPEATED_PLAN.value, "rejection": prompts.REPEATED_PLAN.format(gave=shown)}
            held = True
        out.append(action)
    return rewritten(reply, out) if held else None


GAVE_TOKENS = 60  # of the earlier result, in the refusal


def reapplied(new: Mapping[str, Any], old: Mapping[str, Any], result: str) -> bool:
    """Whether ``new`` is ``old`` (same tool, arguments compared as the stall rule does) with ``result`` in place of
    one of old's numbers: ``calculator("497.8 + 100")`` after ``calculator("397.8 + 100")`` gave 497.8."""
    value = result.strip()
    if new.get("tool") != old.get("tool") or NUMBER.fullmatch(value) is None:
        return False
    target, text = _text(new), _text(old)
    return any(text[: m.start()] + value + text[m.end():] == target for m in NUMBER.finditer(text))


def _text(action: Mapping[str, Any]) -> str:
    args = action.get("args")
    return json.dumps(normalise(args if isinstance(args, dict) else {}), sort_keys=True, ensure_ascii=False, default=str)
