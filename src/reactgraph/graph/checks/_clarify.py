"""Questions back to the user only when the user must answer: an ``ask_user`` call whose answer the conversation
already holds is answered by the agent, as the call's observation, and the run goes on without pausing.

``said_already``: the question is the user's own question, or asks for a fact they told ("What is your name?" after
"My name is Ada."), or asks for the values of a question that gives them ("What is the expression
you want to evaluate?" for "What is 48 divided by 6, times 7?"). ``asked_before``: the same question was asked in
this conversation and answered: the answer the user gave then is the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from reactgraph.answers.confidence import numbers_in
from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.conversation import chat_results, with_results
from reactgraph.graph.deps import ASK_USER
from reactgraph.playbook.bullets import keywords
from reactgraph.state import Action, runs

ANSWERED = "The user answered: "  # how act reports a clarification's answer
ASKING = frozenset(
    "you your want would like please provide give tell specify clarify confirm mean meant which what whats how many "
    "much is are do does the a an to of for in on me know need".split()
)
"""The words of a question for the user that ask rather than name what is asked about."""
VALUES = re.compile(r"\b(expression|equation|calculation|formula|numbers?|values?|amounts?|figures?|inputs?)\b", re.IGNORECASE)
SIMILAR = 0.75  # of a question's own words that an earlier question shares, to be the same question


def said_already(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """An ``ask_user`` question the user's own words answer is answered with them: the user is not asked."""
    said = [state.get("question") or "", *(t.get("question") or "" for t in state.get("turns") or [])]
    question = state.get("question") or ""
    return rewritten(reply, [
        answered(a, f"(The user was not asked: they said it already.) They wrote: {' / '.join(filter(None, said))}. "
                    "Go on with what it gives: call a tool on it or answer.")
        if asking(a) and (restates(a, said) or (VALUES.search(asked(a)) and numbers_in(question))) else a
        for a in reply.actions
    ])


def asked_before(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """An ``ask_user`` question asked and answered before in the conversation is answered with that answer."""
    chat = chat_results(state.get("messages") or [])  # an earlier turn's record leaves its results to the chat
    turns = [with_results(turn, chat) for turn in state.get("turns") or []]
    earlier = list(clarifications([*(s for t in turns for s in t.get("steps") or []), *(state.get("steps") or [])]))
    out = []
    for action in reply.actions:
        found = next((answer for question, answer in reversed(earlier)
                      if asking(action) and similar(asked(action), question)), None)
        if found is not None:
            action = answered(action, f"(The user was not asked again: they answered this before.) {ANSWERED}{found}")
        out.append(action)
    return rewritten(reply, out)


def asking(action: Action) -> bool:
    return runs(action) and action.get("tool") == ASK_USER


def asked(action: Action) -> str:
    return str((action.get("args") or {}).get("question", ""))


def answered(action: Action, text: str) -> Action:
    return {**action, "answered": text}


def clarifications(steps: Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, str]]:
    """(question, answer) of every answered ``ask_user`` call of ``steps``."""
    for step in steps:
        for action, seen in zip(step.get("actions") or [], step.get("observations") or [], strict=False):
            content = seen.get("content") or ""
            if action.get("tool") == ASK_USER and seen.get("status") == "ok" and content.startswith(ANSWERED):
                yield str((action.get("args") or {}).get("question", "")), content.removeprefix(ANSWERED)


def own_words(text: str) -> set[str]:
    """What a question is about: its words, without the ones that only ask."""
    return {w for w in keywords(text) if w not in ASKING}


CHOICE = re.compile(r"\bor\b|\bmean\b|^\W*which\b", re.IGNORECASE)
"""A question that offers the user a choice ("Which Springfield do you mean?", "Paris or Rome?"): theirs to make."""


def restates(action: Action, said: list[str]) -> bool:
    """The question offers no choice and is one the user asked (``similar``), or asks for a fact the user told ("What
    is your name?" after "My name is Ada.": one of its words, then ``is`` / ``:`` / ``=`` and a value)."""
    question = asked(action)
    if CHOICE.search(question) or not (words := own_words(question)):
        return False
    if any(similar(question, text) for text in said):
        return True
    return any(re.search(rf"\b{re.escape(word)}\s*(?:is|was|are|were|=|:)\s*\w", text, re.IGNORECASE)
               for word in words for text in said)


def similar(question: str, earlier: str) -> bool:
    words, before = own_words(question), own_words(earlier)
    return bool(words) and len(words & before) >= SIMILAR * len(words | before)
