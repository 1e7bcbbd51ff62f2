"""What a caller sends a run, checked where it enters: ``ReActAgent``'s methods, and think for the
served graph (whose input comes from the LangGraph server)."""

from __future__ import annotations


class InvalidInputError(TypeError):
    """A run's input has the wrong type; the message names the field."""


def checked_query(query: object) -> str | None:
    """``query`` when it is a string, or None (no query); InvalidInputError naming the field otherwise."""
    if query is None or isinstance(query, str):
        return query
    raise InvalidInputError(f"query must be a string, got {type(query).__name__}: {query!r:.80}")
