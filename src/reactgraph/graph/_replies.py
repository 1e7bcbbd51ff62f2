"""A person's message sent to a thread whose turn waits on them (the model's question, calls waiting for approval)
is their reply to it, not a new question.

A chat client sends each message as a new run on the thread, also while the thread waits; LangGraph then drops
the waiting act tasks with their interrupts. Agent Chat UI sends, before the message, a made-up result
("Successfully handled tool call.") for each call that has none. At the start of such a run
(``routing.route_at_start``), ``reply`` reads the message, and the turn's calls that have no result go back to act
with it (``Reply``): the model's question gets the text as its answer, a call waiting for approval the text as the
decision (``approval.from_text``: "approve", "yes", "ok" ... run it; any other text rejects it, with the text as
the reason the model is told), any other call runs as it would have. The message and the client's made-up results
leave the chat (``reply_update``): each call's result now says what the person said ("The user answered: ...", the
rejection with their reason), as an answer given with a resume would, and the chat stays a valid one (each call's
result right after the calls). Nothing of the turn is dropped and no made-up result is taken as a tool's.

A call of the waiting turn that had finished before the thread was asked (beside one that waits) lost its result
with the dropped tasks, and runs again: LangGraph keeps it only for a resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, NotRequired, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, ToolMessage

from reactgraph.config import AgentConfig
from reactgraph.graph.conversation import HUMAN_TYPES, is_new_turn
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, ReActState, checked_query, current_turn
from reactgraph.tools.approval import needs_approval
from reactgraph.tools.registry import ToolRegistry


class Reply(TypedDict):
    """What an act task sent with a reply gets: the person's text; the first task also the ids of the messages it
    removes from the chat (the reply, the client's made-up results) and whether the reply came as ``query`` (which
    it then clears)."""

    text: str
    removes: NotRequired[list[str]]
    query: NotRequired[bool]


class Waiting(NamedTuple):
    """A reply to a waiting turn: its text, the turn's calls without a result, the messages to remove."""

    text: str
    calls: list[Action]
    removes: list[str]
    query: bool


def reply(state: ReActState, registry: ToolRegistry, cfg: AgentConfig) -> Waiting | None:
    """The reply, when new input (a human message, a ``query``) reaches a turn that waits on a person: it has not
    ended and one of its calls without a result is the model's question or needs approval. None otherwise (a new
    turn starts as usual)."""
    if state.get("termination") or not state.get("question") or not is_new_turn(state):
        return None
    calls = [a for a in current_turn(state).get("actions") or [] if a.get("tool")]
    tail = turn_tail(state.get("messages") or [])
    done = {m.tool_call_id for m in tail if isinstance(m, ToolMessage) and m.artifact is not None}  # act's results
    open_calls = [a for a in calls if a["id"] not in done]
    if not any(waits(a, registry, cfg) for a in open_calls):
        return None
    humans = [m for m in tail if m.type in HUMAN_TYPES]
    query = (checked_query(state.get("query")) or "").strip()
    text = query or "\n".join(m.text.strip() for m in humans if m.text.strip())
    if not text:
        return None
    made_up = [m for m in tail if isinstance(m, ToolMessage) and m.artifact is None]
    removes = [m.id for m in (*humans, *made_up) if m.id]
    return Waiting(text, open_calls, removes, bool(query))


def waits(action: Action, registry: ToolRegistry, cfg: AgentConfig) -> bool:
    """Whether ``action`` waits on a person: the model's question, or a call that needs approval."""
    return (action["tool"] == ASK_USER and cfg.allow_clarification) or needs_approval(action, registry, cfg)


def turn_tail(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The chat's messages after its last AI message (the waiting turn's calls), oldest first."""
    tail: list[BaseMessage] = []
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            break
        tail.append(message)
    return tail[::-1]


def replied(waiting: Waiting, index: int) -> Reply:
    """The reply the ``index``-th re-sent call's act task gets (the first removes the messages)."""
    if index:
        return {"text": waiting.text}
    return {"text": waiting.text, "removes": waiting.removes, "query": waiting.query}


def reply_update(reply: Reply | None) -> dict[str, Any]:
    """What the first task sent with a reply writes beside its result: the removed messages, a cleared query."""
    if not reply or not (reply.get("removes") or reply.get("query")):
        return {}
    update: dict[str, Any] = {"messages": [RemoveMessage(id=i) for i in reply.get("removes", [])]}
    return update | ({"query": None} if reply.get("query") else {})
