"""What a person is shown when a run waits on them, and what they send back, in the shapes the ecosystem's clients
use besides LangChain 1.x's HITL request (``approval``): LangGraph's ``HumanInterrupt``, which Agent Chat UI and
Agent Inbox draw as a form, and its ``HumanResponse``; and a person's chat message read as the answer.

A ``HumanInterrupt`` is ``{"action_request": {"action", "args"}, "config": {"allow_accept", "allow_edit",
"allow_respond", "allow_ignore"}, "description"}``; the client answers with a list of one ``HumanResponse``,
``[{"type": "accept" | "edit" | "response" | "ignore", "args": ...}]`` (``edit``: the action request with new
args; ``response``: the person's text). A clarification question allows ``response`` only: the person types the
answer. A waiting call allows all four (``approval.read_decision`` reads them).
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.types import interrupt

HUMAN_RESPONSE_TYPES = ("accept", "edit", "response", "ignore")
# A chat message that approves a waiting call: the whole message, ignoring case, punctuation and a "please".
APPROVING = frozenset({
    "approve", "approved", "i approve", "accept", "accepted", "allow", "allowed", "yes", "y", "yep", "yeah", "ok", "okay",
    "sure", "go", "go ahead", "go on", "proceed", "continue", "confirm", "confirmed", "do it", "run it", "lgtm",
    "yes go ahead", "yes do it", "yes run it", "approve it", "ok go ahead",
})


def human_interrupt(
    action: str, args: dict[str, Any], description: str, *, accept: bool, edit: bool, respond: bool, ignore: bool
) -> dict[str, Any]:
    """The ``HumanInterrupt`` fields of an interrupt's value (merged into reactgraph's own request)."""
    return {
        "action_request": {"action": action, "args": args},
        "config": {"allow_accept": accept, "allow_edit": edit, "allow_respond": respond, "allow_ignore": ignore},
        "description": description,
    }


def question_request(question: str, call_id: str, problem: str | None = None) -> dict[str, Any]:
    """What a clarification interrupt shows: the question (``question``, reactgraph's own field), the call's
    ``tool_call_id``, and the question as a ``HumanInterrupt`` that is answered by typing; ``problem`` when an
    earlier answer could not be used."""
    description = question if not problem else f"{question}\n\nThe last answer could not be used: {problem}"
    shown = human_interrupt("ask_user", {"question": question}, description, accept=False, edit=False, respond=True, ignore=False)
    return {"question": question, "tool_call_id": call_id} | shown | ({"problem": problem} if problem else {})


def human_response(value: Any) -> dict[str, Any] | None:
    """The ``HumanResponse`` a resume value is (a list of one, as Agent Chat UI sends it, or the dict), else None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and value.get("type") in HUMAN_RESPONSE_TYPES and set(value) <= {"type", "args"}:
        return value
    return None


def read_answer(value: Any) -> str:
    """The person's answer to a clarification question: the text resumed with, or a ``HumanResponse`` of type
    ``response``; ValueError saying what to send for anything else (an empty answer too)."""
    response = human_response(value)
    if response is not None and response["type"] == "response":
        value = response.get("args")
    elif response is not None:
        raise ValueError(f"a question is answered with text, not {response['type']!r}; send the answer as text")
    if not isinstance(value, str) or not value.strip():
        shown = repr(value) if len(repr(value)) <= 200 else repr(value)[:200] + "..."
        raise ValueError(f"not an answer: send the answer as text (or [{{'type': 'response', 'args': 'text'}}]); got {shown}")
    return value.strip()


def approves(text: str) -> bool:
    """Whether a chat message sent while a call waits approves it (``APPROVING``); any other text is the
    person's reason for not running it."""
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    words = [w for w in words if w not in ("please", "pls", "thanks", "thank", "you")]
    return " ".join(words) in APPROVING


def ask(question: str, call_id: str) -> str:
    """Pause the act task until the person answers ``question`` (LangGraph ``interrupt``); a value that is no
    answer is asked about again, saying what was wrong with it."""
    problem = None
    while True:
        value = interrupt(question_request(question, call_id, problem))
        try:
            return read_answer(value)
        except ValueError as exc:
            problem = str(exc)
