"""Checks of whether a final reply is an answer at all: the first four send a reply back as no answer
(``non_answer`` / ``empty_reply``, bounded by ``max_parse_retries`` in a row); ``answer_stands`` ends the run with
an answer sent back to be checked when the reply to the check says nothing new."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reactgraph import prompts
from reactgraph.answers.non_answers import announced_call as announces_call
from reactgraph.answers.non_answers import copied_rule, non_answer
from reactgraph.answers.non_answers import made_up_output as shows_made_up_output
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.checks._base import Reply, SendBack, Stop
from reactgraph.graph.checks._grounding import results
from reactgraph.graph.checks._reply import find_phrase
from reactgraph.state import TerminationReason

NULLS = frozenset({"none", "null", "nil", "n/a", "na", "undefined", "nothing", "unknown", "-", "?"})
"""Answers that give no value: a model's placeholder, not a result."""
NO_REPLY = frozenset({ErrorKind.NON_ANSWER, ErrorKind.EMPTY_REPLY, ErrorKind.MISSING_ACTION})
"""Reader rejections of replies that say nothing new: empty, a copy of what the prompt showed, a Thought alone."""


def no_answer(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """An answer or give-up that is empty, repeats what the prompt showed (an error observation, the budget line, the
    format's instructions) or a line of the default system prompt's rules, is sent back as no answer."""
    if reply.text is None or (problem := empty_or_copied(reply, cfg)) is None:
        return None
    kind = ErrorKind.NON_ANSWER if reply.text.strip() else ErrorKind.EMPTY_REPLY
    return SendBack(prompts.NOT_AN_ANSWER.format(problem=problem), kind)


def null_answer(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """An answer that is a placeholder (``None``, ``null``, ``N/A``) after a tool gave a result is sent back as no
    answer: the model has a value to report, or a reason to give up."""
    if reply.answer is None or reply.answer.strip().strip(".").lower() not in NULLS or not results(state):
        return None
    problem = f"Your reply {reply.answer.strip()!r} gives no value, though the tool results above hold some"
    return SendBack(prompts.NOT_AN_ANSWER.format(problem=problem), ErrorKind.NON_ANSWER)


def announced_call(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """An answer that says it will call a tool (``I will use the calculator``) but calls none is sent back."""
    if reply.answer is None or (problem := announces_call(reply.answer, reply.tool_names)) is None:
        return None
    return SendBack(prompts.NOT_AN_ANSWER.format(problem=problem), ErrorKind.NON_ANSWER)


def made_up_output(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """An answer that shows the output of code it wrote (a fenced ``output`` block: nothing ran it) is sent back."""
    if reply.answer is None or (problem := shows_made_up_output(reply.answer)) is None:
        return None
    return SendBack(prompts.NOT_AN_ANSWER.format(problem=problem), ErrorKind.NON_ANSWER)


def answer_stands(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Stop | None:
    """After an answer (or give-up) was sent back to be checked, a reply that says nothing new (empty, a Thought
    alone, a copy of the request or of what the prompt showed, a call announced but not made) lets that answer
    stand: the run ends with it, as the request said it may."""
    steps = state.get("steps") or []
    if not steps or steps[-1].get("kind") != "check" or not (answer := steps[-1].get("answer")):
        return None
    if not says_nothing(reply, cfg):
        return None
    said = "sent back to be checked, it said nothing new"
    if (hit := find_phrase(answer, cfg.checks.failure_phrases)) is not None:
        return Stop(TerminationReason.FAILURE, f"the model gave up ({hit[0]!r}); {said}", answer)
    return Stop(TerminationReason.SUCCESS, f"the model gave a final answer; {said}", answer)


def says_nothing(reply: Reply, cfg: AgentConfig) -> bool:
    """Whether the reply says nothing new: calls that are all reader rejections of that kind (``NO_REPLY``), or an
    answer that is empty, a copy, an announced call or made-up output."""
    if reply.text is None:
        return bool(reply.actions) and all(a.get("rejection_kind") in NO_REPLY for a in reply.actions)
    if empty_or_copied(reply, cfg):
        return True
    return reply.answer is not None and bool(
        announces_call(reply.answer, reply.tool_names) or shows_made_up_output(reply.answer)
    )


def empty_or_copied(reply: Reply, cfg: AgentConfig) -> str | None:
    """Why the reply's text is no answer: empty, a copy of what the prompt showed, or (with the default system
    prompt) a line of its rules; None when it is an answer or a give-up of its own."""
    text = reply.text or ""
    if problem := non_answer(text, reply.shown):
        return problem
    if cfg.prompt.system_prompt is None and copied_rule(text, prompts.SYSTEM_PROMPT):
        return "Your reply repeats the instructions instead of answering the question"
    return None
