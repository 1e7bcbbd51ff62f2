"""The current turn's record (``state.Turn``): started by think (or by a hook that ends a turn before think ran), a
new turn of the conversation resetting the run's fields (``fresh_turn``), and the record folded into think's update
(``folded``): on the turn's AI message when it calls tools, else in ``current_turn``."""

from __future__ import annotations

import uuid
from typing import Any, cast

from langchain_core.messages import HumanMessage
from langgraph.types import Overwrite

from reactgraph.config import AgentConfig
from reactgraph.graph.conversation import is_new_turn, last_human, question_of
from reactgraph.state import (
    ReActState,
    Turn,
    checked_query,
    current_turn,
    iteration_of,
    sum_usage,
    summarized_through,
    tokens_used,
    with_turn,
)

TURN_FIELDS = {  # the keys of think's update that go into the turn's record (``folded``), by field
    "iteration": "iteration",
    "thought": "thought",
    "pending_actions": "actions",
    "turn_format": "format",
    "turn_written": "written",
    "turn_answer": "answer",
    "turn_usage": "usage",
    "turn_calls": "calls",
    "turn_tokens": "tokens",
    "turn_checks": "checks",
    "turn_left_out": "left_out",
}


def folded(update: dict[str, Any]) -> dict[str, Any]:
    """``update`` with the turn's fields (``TURN_FIELDS``) moved into its record: on the turn's AI message when it has
    one (a tool turn: ``state.with_turn``), which the update appends to the chat, else in ``current_turn``."""
    turn = dict(update.pop("current_turn"))
    for key, field in TURN_FIELDS.items():
        if key in update:
            turn[field] = update.pop(key)
    if (message := update.pop("turn_message", None)) is None:
        return update | {"current_turn": turn}
    return update | {"messages": [*update.get("messages", []), with_turn(message, turn)]}  # type: ignore[arg-type]


def started_turn(state: ReActState, now: float, cfg: AgentConfig) -> tuple[ReActState, dict[str, Any]]:
    """(the state as the turn sees it, the turn's first update): the current turn's record started (its iteration
    still the last one's: think counts it once the question is there; the calls made ahead of it its first, the
    run's counts carried on), and a new turn's fields reset when a new turn of the conversation starts
    (``is_new_turn``: its count starts with the conversation's fold, if one was made for it)."""
    update: dict[str, Any] = {}
    last = current_turn(state)
    iteration, ahead = iteration_of(state), last.get("ahead", [])
    tokens, through = tokens_used(state), summarized_through(state)
    if is_new_turn(state):
        state, update = fresh_turn(state, now, cfg)
        iteration, through = 0, 0
        ahead = [c for c in ahead if c["purpose"] == "conversation"]
        tokens = sum_usage(c["token_usage"] for c in ahead)
    turn = Turn(
        run=state.get("turn", 0), iteration=iteration, thought="", actions=[], started=now, format=None, written=None,
        usage={}, calls=list(ahead), tokens=tokens, summarized_through=through,
    )
    return {**state, "current_turn": turn}, update | {"current_turn": turn}


def fresh_turn(state: ReActState, now: float, cfg: AgentConfig) -> tuple[ReActState, dict[str, Any]]:
    """A new turn of the thread's conversation (its first question, or the next one after a turn ended): the
    run's fields reset, the conversation's kept (with ``new_conversation``, its earlier turns no longer shown).
    A question sent as ``query`` also goes into the chat ``messages``, so a chat view shows what was asked."""
    message = last_human(state)
    question = question_of(state)
    from_query = bool((checked_query(state.get("query")) or "").strip())
    if from_query:
        message = HumanMessage(content=question, id=f"question-{uuid.uuid4().hex}")
    turns = len(state.get("turns") or [])
    fresh: dict[str, Any] = {
        "question": question,
        "query": None,  # read: a later query on this thread is a new turn
        "question_message": message.id if message else None,
        "turn": turns + 1,
        "started_at": now,
        "finished_at": None,
        "summary": "",
        "parse_failures": 0,
        "termination": None,
        "final_answer": None,
        "partial": False,
        "confidence": None,
        "confidence_signals": {},
        "tool_format": None,
        "output": None,
        "output_failures": 0,
        "answer_checks": 0,
        "playbook": None,
    }
    if from_query:
        fresh["messages"] = [message]
    if cfg.prompt.new_conversation:
        fresh |= {"conversation_summary": "", "folded_turns": turns}
    if state.get("steps") or state.get("termination"):
        fresh |= {"steps": Overwrite([]), "errors": Overwrite([]), "tool_cache": Overwrite({}), "token_usage": {}}
    view = {**state, **{k: v for k, v in fresh.items() if not isinstance(v, Overwrite) and k != "messages"}, "steps": []}
    return cast(ReActState, view), fresh
