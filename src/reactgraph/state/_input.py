"""The check of what a caller sends: a question, a query, an answer, a thread id (``InvalidInputError`` naming the
field)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    BaseMessage,
    HumanMessage,
    convert_to_messages,
)


class InvalidInputError(TypeError):
    """A run's input has the wrong type; the message names the field."""


def checked_text(text: object, field: str) -> str:
    """``text`` when it is a string a database can store (one UTF-8 can hold); InvalidInputError naming ``field`` and
    what is wrong otherwise (a lone surrogate, as a non-UTF-8 command-line argument or a JSON escape becomes, is no
    text: SQLite, Postgres and the tracing clients refuse it)."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}: {text!r:.80}")
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{field} {text!r:.80} is not text UTF-8 can hold (a lone surrogate at position {exc.start})") from None
    return text


def checked_query(query: object) -> str | None:
    """``query`` when it is text (``checked_text``), or None (no query); InvalidInputError naming the field otherwise."""
    return None if query is None else checked_text(query, "query")


def checked_question(question: object) -> str:
    """A new turn's question: text (``checked_text``) with something in it; InvalidInputError otherwise (a blank
    question is no turn: it never asks the thread's last question again)."""
    if not checked_text(question, "query").strip():
        raise InvalidInputError(f"the question is blank ({question!r:.20}): ask something, or resume the thread to continue its run")
    return question  # type: ignore[return-value]


def run_input(question: object) -> dict[str, Any]:
    """A run's graph input for ``question``: a string as ``query``; a human message (a ``HumanMessage``, or a dict
    with its ``role``) or a list of content blocks (text, images ...: dicts with a ``type``) as the chat's new human
    message. InvalidInputError naming what was given otherwise."""
    if isinstance(question, str):
        return {"query": checked_question(question)}
    if isinstance(question, list) and question and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in question):
        return {"messages": [HumanMessage(content=question)]}
    if isinstance(question, BaseMessage) or (isinstance(question, dict) and ("role" in question or "type" in question)):
        try:
            message = convert_to_messages([question])[0]
        except (ValueError, TypeError, NotImplementedError) as exc:
            raise InvalidInputError(f"query: {exc}") from None
        if message.type == "human":
            return {"messages": [message]}
    raise InvalidInputError(
        f"query must be a string, got {type(question).__name__}: {question!r:.80} (or a human message, or a list of "
        "content blocks such as {'type': 'text', 'text': ...} and {'type': 'image', ...})"
    )


def checked_thread_id(thread_id: object) -> str:
    """``thread_id`` when it is text a database can store (a string UTF-8 can hold); InvalidInputError naming
    what is wrong otherwise (a lone surrogate, as a non-UTF-8 command-line argument becomes, is no text)."""
    if not isinstance(thread_id, str) or not thread_id:
        raise InvalidInputError(f"thread_id must be a non-empty string, got {type(thread_id).__name__}: {thread_id!r:.80}")
    return checked_text(thread_id, "thread_id")
