"""text: small, exact string operations a model often gets wrong by itself (counting, slicing)."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field

from reactgraph.tools.policy import InvalidArguments

MAX_TEXT_CHARS = 200_000

Operation = Literal["length", "upper", "lower", "trim", "replace", "split", "count", "slice"]


def text(
    operation: Annotated[Operation, Field(description="What to do with the text.")],
    text: Annotated[str, Field(description="The text to work on.", max_length=MAX_TEXT_CHARS)],
    old: Annotated[str, Field(description="replace: the substring to replace.")] = "",
    new: Annotated[str, Field(description="replace: what to put instead.")] = "",
    separator: Annotated[str | None, Field(description="split: the separator (default: any whitespace).")] = None,
    substring: Annotated[str, Field(description="count: the substring to count (default: count words).")] = "",
    start: Annotated[int | None, Field(description="slice: first character index (0-based, may be negative).")] = None,
    end: Annotated[int | None, Field(description="slice: index after the last character (may be negative).")] = None,
) -> str:
    """Exact text operations: length (characters), upper, lower, trim (strip surrounding whitespace),
    replace (every `old` with `new`), split (into a JSON list, by `separator` or whitespace),
    count (occurrences of `substring`, or words when it is empty), slice (characters start..end)."""
    if operation == "length":
        return str(len(text))
    if operation == "upper":
        return text.upper()
    if operation == "lower":
        return text.lower()
    if operation == "trim":
        return text.strip()
    if operation == "replace":
        return _replace(text, old, new)
    if operation == "split":
        if separator == "":
            raise InvalidArguments("split: the separator must not be empty (omit it to split on whitespace)")
        return json.dumps(text.split(separator), ensure_ascii=False)
    if operation == "count":
        return str(text.count(substring) if substring else len(text.split()))
    return text[start:end]


def _replace(text: str, old: str, new: str) -> str:
    if not old:
        raise InvalidArguments("replace: `old` must not be empty")
    grown = len(text) + text.count(old) * (len(new) - len(old))
    if grown > MAX_TEXT_CHARS:
        raise InvalidArguments(f"replace: the result would have {grown} characters (limit {MAX_TEXT_CHARS})")
    return text.replace(old, new)
