"""A thread is a conversation: each question on it is a turn, and a turn sees the earlier ones.

A new question on a thread whose last turn has ended starts the next turn (``is_new_turn``; think resets
the run's fields, keeps the conversation's). terminate records each finished turn in the state's ``turns``
(``turn_record``: question, answer, how it ended, its steps and tokens; a tool result the chat holds as it was
observed is not copied into the record: ``with_results`` gives it back from the chat). The prompt of a turn shows the
earlier turns in a bounded form, before its question (``conversation_text``): the last ``keep_recent_turns``
of them as the user's question and the agent's answer, and the older ones as notes, ``conversation_summary``;
each of these texts quoted as data (``quoted``: a JSON string, one line, cut to its own bound), so that no line of
an answer or of the notes reads as the prompt's own (a rule, a forged ``User:`` turn).
When more than ``keep_recent_turns`` unfolded turns have gathered at the start of a turn, summarize folds
all but the last half of them into the notes (``fold_due``, ``fold_prompt``: one model call, which is
given each folded turn's tool results so that a fact a later turn needs survives). ``new_conversation``
starts the model's context anew: the earlier turns stay in the thread's history but are not shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.models.tokens import truncate
from reactgraph.state import InvalidInputError, ReActState, checked_query, checked_text, iteration_of
from reactgraph.tools.content import media_blocks

FOLDED_RESULT_CHARS = 400  # of each tool result a fold is given
NOTES_BOUND = 2  # the notes (and a running summary) are cut to this many times max_observation_tokens


HUMAN_TYPES = frozenset({"human", "HumanMessageChunk"})  # a message's ``type`` when it is a HumanMessage


def last_human(state: ReActState) -> HumanMessage | None:
    """The last human message with text."""
    return last_human_in(state.get("messages") or [])


def last_human_in(messages: Sequence[BaseMessage]) -> HumanMessage | None:
    """The last human message with text among ``messages``. Compared by ``type``, not ``isinstance``: the scan
    passes a whole turn's messages, at every step."""
    for message in reversed(messages):
        if message.type in HUMAN_TYPES and message.text.strip():
            return cast(HumanMessage, message)
    return None


class LastHumans:
    """``last_human`` of a run's states in order (its checkpoints, oldest first): a chat that extends the one
    before it (the same messages first, compared by C's list equality, which is identity here) is scanned only
    past that one, so a long turn is not scanned again, message by message, at each checkpoint."""

    def __init__(self) -> None:
        self._chat: Sequence[BaseMessage] = []
        self._last: HumanMessage | None = None

    def __call__(self, state: ReActState) -> HumanMessage | None:
        chat = state.get("messages") or []
        if chat is not self._chat:
            seen = len(self._chat)
            if len(chat) >= seen and chat[:seen] == self._chat:
                found = last_human_in(chat[seen:])
                self._last = found if found is not None else self._last
            else:
                self._last = last_human_in(chat)
            self._chat = chat
        return self._last


def question_media(state: ReActState) -> list[dict[str, Any]]:
    """The images (or other media) the turn's question came with: the content blocks of its human message that are
    no text ([] for a question sent as ``query``)."""
    wanted = state.get("question_message")
    if not wanted:
        return []
    for message in reversed(state.get("messages") or []):
        if message.id == wanted:
            return media_blocks(message.content)
    return []


def question_of(state: ReActState) -> str:
    """The question of a turn that starts: ``query`` when given, else the last human message with text, unless that is
    the question of the turn before (``question_message``); InvalidInputError when there is none (a blank ``query`` or
    message: a new turn never asks the thread's last question again) or it is no text a database can store."""
    if query := (checked_query(state.get("query")) or "").strip():
        return query
    message = last_human(state)
    if message is None or message.id == state.get("question_message"):
        raise InvalidInputError(
            "the question is blank: a new turn needs a question (a `query` or a human message with text); "
            "to continue the thread's waiting or interrupted run, resume it"
        )
    return checked_text(message.text, "the question").strip()


def is_new_turn(state: ReActState, human: Callable[[ReActState], HumanMessage | None] = last_human) -> bool:
    """A new turn starts on this thread: the first one, a finished one's successor, or new input (a
    ``query``, which a turn clears once read, or a human message the turn has not seen, found by ``human``) that
    arrives while an earlier turn is unfinished (paused or crashed: it is left unrecorded)."""
    if state.get("termination") or not state.get("question") or (checked_query(state.get("query")) or "").strip():
        return True
    message = human(state)
    return message is not None and message.id != state.get("question_message")


def turn_of(
    values: ReActState, upcoming: list[str], human: Callable[[ReActState], HumanMessage | None] = last_human
) -> int:
    """The turn a checkpoint belongs to (its ``values`` and the nodes that run from it): the one its values
    name, or, at the start of a new turn (the question arrived, think has not run), the turn to come. ``human``
    finds the last human message (``LastHumans`` for a run's checkpoints in order)."""
    if upcoming and is_new_turn(values, human):
        return len(values.get("turns") or []) + 1
    return values.get("turn") or 1


def shown_turns(state: ReActState, cfg: AgentConfig) -> list[dict[str, Any]]:
    """The earlier turns a turn shows verbatim: the last ``keep_recent_turns`` of those not folded."""
    turns = state.get("turns") or []
    return turns[state.get("folded_turns", 0) :][-cfg.prompt.keep_recent_turns :]


def fold_due(state: ReActState, cfg: AgentConfig) -> bool:
    """At the start of a turn: more earlier turns than ``keep_recent_turns`` are not in the notes yet."""
    if not is_new_turn(state) or cfg.prompt.new_conversation:
        return False
    return len(state.get("turns") or []) - state.get("folded_turns", 0) > cfg.prompt.keep_recent_turns


def to_fold(state: ReActState, cfg: AgentConfig) -> list[dict[str, Any]]:
    """The turns a fold puts into the notes: every unfolded one but the last half of ``keep_recent_turns``."""
    turns = state.get("turns") or []
    kept = max(1, cfg.prompt.keep_recent_turns // 2)
    return turns[state.get("folded_turns", 0) : max(state.get("folded_turns", 0), len(turns) - kept)]


def quoted(text: str, max_tokens: int) -> str:
    """``text`` as data in a prompt: cut head-and-tail to ``max_tokens``, as a JSON string (one line, its quotes and
    line breaks escaped), so that nothing in it reads as the prompt's own lines."""
    return json.dumps(truncate(text, max_tokens)[0], ensure_ascii=False)


def notes_of(text: str, cfg: AgentConfig) -> str:
    """Model-written notes (the conversation's, a running summary) cut to their bound, ``NOTES_BOUND`` times
    ``max_observation_tokens``: a reply of any length never goes whole into every later prompt."""
    return truncate(text, NOTES_BOUND * cfg.prompt.max_observation_tokens)[0]


def turn_text(turn: dict[str, Any], cfg: AgentConfig, results: dict[str, str] | None = None) -> str:
    """A turn for the notes: its question, the tools' ok results (the start of each), and its answer (question and
    answer ``quoted``; ``results``: the chat's, ``chat_results``, for those the record does not copy)."""
    lines = [f"[turn {turn['turn']}] User: {quoted(turn['question'], cfg.prompt.max_observation_tokens)}"]
    for step in with_results(turn, results or {}).get("steps") or []:
        for action, obs in zip(step.get("actions") or [], step.get("observations") or [], strict=False):
            if action.get("tool") and obs.get("status") == "ok":
                lines.append(f"    {action['tool']} returned: {' '.join(obs['content'].split())[:FOLDED_RESULT_CHARS]}")
    answer = turn.get("answer")
    shown = f"    Answer: {quoted(answer, cfg.prompt.max_observation_tokens)}" if answer else None
    lines.append(shown or f"    No answer (the turn ended: {turn.get('reason', 'failure')})")
    return "\n".join(lines)


def fold_prompt(state: ReActState, turns: list[dict[str, Any]], cfg: AgentConfig) -> str:
    """The prompt that folds ``turns`` into the conversation's notes (the old notes ``quoted``)."""
    old = state.get("conversation_summary") or ""
    notes = prompts.SUMMARY_NOTES.format(summary=quoted(old, NOTES_BOUND * cfg.prompt.max_observation_tokens)) if old else ""
    results = chat_results(state.get("messages") or [])
    return prompts.FOLD_PROMPT.format(notes=notes, turns="\n".join(turn_text(t, cfg, results) for t in turns))


def folded_as_text(state: ReActState, turns: list[dict[str, Any]], cfg: AgentConfig) -> str:
    """The notes without the model (its call failed or said nothing): the old notes and the turns as text, bounded."""
    results = chat_results(state.get("messages") or [])
    text = "\n".join(filter(None, [state.get("conversation_summary") or "", *(turn_text(t, cfg, results) for t in turns)]))
    return notes_of(text, cfg)


def conversation_text(state: ReActState, cfg: AgentConfig) -> str:
    """What a turn's question is preceded by ('' on a thread's first turn): the notes on the folded turns,
    then the shown earlier turns as the user asked them and the agent answered, in the same message as the
    question, so that a turn reads as a question with its context (a small model kept calling tools when the earlier
    turns came as chat messages). Every one of these texts is ``quoted`` data with its own bound: each question and
    answer ``max_observation_tokens``, the notes ``NOTES_BOUND`` times that."""
    limit = cfg.prompt.max_observation_tokens
    notes = state.get("conversation_summary")
    parts = [prompts.CONVERSATION_NOTES.format(notes=quoted(notes, NOTES_BOUND * limit))] if notes else []
    shown = [
        prompts.EARLIER_TURN.format(question=quoted(turn["question"], limit), answer=quoted(turn["answer"], limit))
        if turn.get("answer")
        else prompts.EARLIER_TURN_UNANSWERED.format(question=quoted(turn["question"], limit), reason=turn.get("reason", "failure"))
        for turn in shown_turns(state, cfg)
    ]
    if shown:
        parts.append(prompts.EARLIER_TURNS.format(turns="\n".join(shown)))
    return "\n\n".join(parts)


def turn_record(state: ReActState, turn_number: int) -> dict[str, Any]:
    """A finished turn as the state's ``turns`` keeps it (terminate's finished state): plain JSON data, each tool
    result the chat holds as observed left to the chat (``with_results`` reads it back)."""
    results = chat_results(state.get("messages") or [])
    return {
        "turn": turn_number,
        "question": state.get("question", ""),
        "answer": state.get("final_answer"),
        "reason": (state.get("termination") or {}).get("reason", "failure"),
        "detail": (state.get("termination") or {}).get("detail", ""),
        "partial": bool(state.get("partial")),
        "iterations": iteration_of(state),
        "token_usage": dict(state.get("token_usage") or {}),
        "confidence": state.get("confidence"),
        "output": state.get("output"),
        "started_at": state.get("started_at"),
        "finished_at": state.get("finished_at"),
        "steps": [_without_results(step, results) for step in state.get("steps") or []],
    }


def chat_results(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """The text of each tool result in the chat, by its call's id."""
    return {m.tool_call_id: m.text for m in messages if isinstance(m, ToolMessage)}


def with_results(record: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    """A turn's record with each observation's text: the record's, or, where the record leaves it to the chat (no
    ``content``), the chat's result of that call (``results``: ``chat_results``; "" when the chat no longer holds it,
    a message removed since)."""
    if all("content" in o for step in record.get("steps") or [] for o in step.get("observations") or []):
        return record
    steps = [
        step | {"observations": [o if "content" in o else o | {"content": results.get(o.get("call_id") or "", "")}
                                 for o in step.get("observations") or []]}
        for step in record.get("steps") or []
    ]
    return record | {"steps": steps}


def _without_results(step: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    """A step for a turn's record: an observation whose text is its call's result in the chat has no ``content``
    (the chat keeps it; the run's own trace keeps it too, so a finished turn would store each result three times)."""

    def in_chat(observation: dict[str, Any]) -> bool:
        return observation.get("call_id") in results and results[observation["call_id"]] == observation.get("content")

    observations = step.get("observations") or []
    if not any(map(in_chat, observations)):
        return step
    return step | {"observations": [{k: v for k, v in o.items() if k != "content"} if in_chat(o) else o for o in observations]}
