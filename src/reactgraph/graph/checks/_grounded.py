"""Checks that send a final answer or give-up back once to be checked with a tool (``unverified_answer``: the model
is shown its answer as it gave it, and the request; ``answer_checks`` bounds them in a turn, and the next reply
stands): an answer no tool result backs, a name nothing gave, a bare yes to a question that also asks which."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import check_reason, confidence_of, numbers_in
from reactgraph.answers.non_answers import unfounded_names
from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, SendBack
from reactgraph.graph.checks._grounding import results
from reactgraph.graph.deps import ASK_USER
from reactgraph.playbook.bullets import keywords
from reactgraph.state import TerminationReason, stopped
from reactgraph.tools.specs import ToolSpec


def unsupported_number(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """A numeric answer no tool result backs (the confidence's ``support`` below 0), or given with no tool call to a
    question a tool on offer could work out (``unchecked``), is sent back to be checked with a tool."""
    if reply.answer is None:
        return None
    success = stopped(TerminationReason.SUCCESS, reply.why)
    signals = confidence_of({**state, "final_answer": reply.answer, "termination": success, "partial": False}).signals
    if "unchecked" in signals and not tools_could_answer(state.get("question") or "", reply.tools):
        return None
    reason = check_reason(signals)
    return SendBack(prompts.CHECK_ANSWER.format(reason=reason)) if reason else None


def unfounded_name(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """A short answer that is mostly a name neither the question nor any tool result holds ("John Doe" for a mayor
    the search did not find) is sent back, the name said."""
    found = results(state)
    if reply.answer is None or not found:
        return None
    if not (names := unfounded_names(reply.answer, [state.get("question") or "", *found])):
        return None
    return SendBack(prompts.UNFOUNDED_NAME.format(names=" ".join(dict.fromkeys(names))))


SHORT_ANSWER = 4  # words: "Yes", "No, it is not."
YES_NO = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)
OPEN_QUESTION = re.compile(r"^\W*(?:which|what|when|where|who|whom|whose|why|how)\b", re.IGNORECASE)
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|'[^']*\?[^']*'")
SENTENCE_END = re.compile(r"(?<=[?!.])\s+")


def answers_each(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """A bare yes or no ("Yes", four words at most) to a question that also asks which, what, when, where, who, why or
    how ("Is it warmer in Rome than in Paris? Which flights go from Paris to Rome on 2026-05-01?") is sent back, each
    question named: a yes cannot answer a "which". Not with an output schema (its answer is the schema's)."""
    answer = reply.answer
    if answer is None or reply.schema is not None or len(answer.split()) > SHORT_ANSWER or not YES_NO.match(answer):
        return None
    asked = questions_in(state.get("question") or "")
    if len(asked) < 2 or not any(OPEN_QUESTION.match(q) for q in asked):
        return None
    listed = " ".join(f"({i}) {q}" for i, q in enumerate(asked, 1))
    return SendBack(prompts.ANSWER_EACH.format(answer=answer.strip(), count=len(asked), questions=listed))


def questions_in(text: str) -> list[str]:
    """The sentences of ``text`` (quotes left out) that end with a question mark and have three words or more."""
    sentences = SENTENCE_END.split(QUOTED.sub(" ", text).strip())
    return [s.strip() for s in sentences if s.strip().endswith("?") and len(s.split()) >= 3]


def tools_could_answer(question: str, specs: Sequence[ToolSpec]) -> bool:
    """Whether a tool on offer could work out the question's answer: the question has numbers to compute from, or it
    shares a word (its first five letters) with a tool's name or description. An answer to a question no tool fits (a
    year the model knows, beside a calculator), or with no tool on offer, is not sent back."""
    tools = [s for s in specs if s.name != ASK_USER]
    if not tools:
        return False
    if numbers_in(question):
        return True
    asked = {w[:5] for w in keywords(question) if len(w) >= 4}
    told = {w[:5] for s in tools for w in keywords(f"{s.name.replace('_', ' ')} {s.description}") if len(w) >= 4}
    return bool(asked & told)
