"""Questions back to the user only when the user must answer (``said_already``): an ``ask_user`` call that is the
user's own question, or asks for a fact they told ("What is your name?" after "My name is Ada."), or asks for the
values of a question that gives them ("What is the expression you want to evaluate?" for "What is 48 divided by 6,
times 7?"), is answered by the agent with their words, as the call's observation, and the run goes on. And asked
when only the user can answer (``guessed_values``): a call on numbers from nowhere, for a question about the user's
own things ("Multiply my two lucky numbers."), is not run: the agent asks the user for them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from reactgraph import prompts
from reactgraph.answers.confidence import PLAIN, numbers_in
from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Rewrite, acted_before, rewritten
from reactgraph.graph.checks._grounding import known_numbers, numbers_of
from reactgraph.graph.deps import ASK_USER
from reactgraph.playbook.bullets import keywords
from reactgraph.state import Action, runs

ASKING = frozenset(
    "you your want would like please provide give tell specify clarify confirm mean meant which what whats how many "
    "much is are do does the a an to of for in on me know need result answer".split()
)
"""The words of a question for the user that ask rather than name what is asked about."""
VALUES = re.compile(r"\b(expression|equation|calculation|formula|numbers?|values?|amounts?|figures?|inputs?)\b", re.IGNORECASE)
SIMILAR = 0.75  # of a question's own words that an earlier question shares, to be the same question


def said_already(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """An ``ask_user`` question the user's own words answer is answered with them: the user is not asked."""
    said = [state.get("question") or "", *(t.get("question") or "" for t in state.get("turns") or [])]
    return rewritten(reply, [
        answered(a, f"(The user was not asked: they said it already.) They wrote: {' / '.join(filter(None, said))}. "
                    "Go on with what it gives: call a tool on it or answer.")
        if asking(a) and (restates(a, said) or (VALUES.search(asked(a)) and numbers_in(said[0]))) else a
        for a in reply.actions
    ])


def asking(action: Action) -> bool:
    return runs(action) and action.get("tool") == ASK_USER


def asked(action: Action) -> str:
    return str((action.get("args") or {}).get("question", ""))


def answered(action: Action, text: str) -> Action:
    return {**action, "answered": text}


def own_words(text: str) -> set[str]:
    """What a question is about: its words, without the ones that only ask."""
    return {w for w in keywords(text) if w not in ASKING}


CHOICE = re.compile(r"\bor\b|\bmean\b|^\W*which\b", re.IGNORECASE)
"""A question that offers the user a choice ("Which Springfield do you mean?", "Paris or Rome?"): theirs to make."""


def restates(action: Action, said: list[str]) -> bool:
    """The question offers no choice and is one the user asked (``similar``, ``worked_out``), or asks for a fact the
    user told ("What is your name?" after "My name is Ada.": one of its words, then ``is`` / ``:`` / ``=`` and a
    value)."""
    question = asked(action)
    if CHOICE.search(question):
        return False
    if any(worked_out(question, text) for text in said):
        return True
    if not (words := own_words(question)):
        return False
    if any(similar(question, text) for text in said):
        return True
    return any(re.search(rf"\b{re.escape(word)}\s*(?:is|was|are|were|=|:)\s*\w", text, re.IGNORECASE)
               for word in words for text in said)


def worked_out(question: str, earlier: str) -> bool:
    """The question asks for a result of values the user gave, in their words ("What is the result of 12.5 times 8?"
    for "What is 12.5 times 8? Mail it to ann@example.com"): its numbers and its own words are all theirs."""
    numbers = numbers_in(question)
    return bool(numbers) and set(numbers) <= set(numbers_in(earlier)) and own_words(question) <= set(keywords(earlier))


def similar(question: str, earlier: str) -> bool:
    """Most of the question's own words are the earlier text's, and its numbers all are."""
    words, before = own_words(question), own_words(earlier)
    return (bool(words) and len(words & before) >= SIMILAR * len(words | before)
            and set(numbers_in(question)) <= set(numbers_in(earlier)))


OWN = re.compile(r"\b(?:my|our)\s+([\w' -]{1,40}?)(?=[.,;:?!]|$|\s+(?:and|by|with|to|from|of|times|plus|minus)\b)", re.IGNORECASE)
"""The user's own things a question names ("my two lucky numbers"): values only the user knows."""


def guessed_values(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """With ``ask_user`` on offer, calls whose numbers neither the user (the question, the earlier turns) nor a tool
    result gave, for a question about the user's own things ("Multiply my two lucky numbers."), are not run: only
    the user knows them, and the agent asks them ("What are your two lucky numbers?") in place of the first (the
    local model multiplied 7 by 13 and answered 91; told to ask, it answered that the user must give them). Once a
    turn: after the user's answer, the calls run."""
    question = state.get("question") or ""
    if ASK_USER not in reply.tool_names or not (own := OWN.search(question)) or any(asking(a) for a in reply.actions):
        return None
    if acted_before(state, "guessed_values"):
        return None
    earlier = [str(t.get(k) or "") for t in state.get("turns") or [] for k in ("question", "answer")]
    known = known_numbers(state) | {n for text in earlier for n in numbers_in(text)}
    guessed = [a for a in reply.actions if runs(a) and (numbers := set(numbers_of(a.get("args"))) - PLAIN) and not numbers & known]
    if not guessed:
        return None
    things = own.group(1).strip()
    asked_for = prompts.USERS_OWN.format(verb="are" if things.endswith("s") else "is", things=things)
    ask = cast(Action, {k: v for k, v in guessed[0].items() if k in ("id", "index")} | {"tool": ASK_USER, "args": {"question": asked_for}})
    return Rewrite(tuple(ask if a is guessed[0] else a for a in reply.actions if a is guessed[0] or a not in guessed))
