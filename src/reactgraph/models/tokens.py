"""Token counting: the model's own ``usage_metadata`` when it reports one, else langchain-core's
estimate: a prompt by ``count_tokens_approximately`` (4 characters a token, plus each message's role and
framing), a reply by its text and tool calls, 4 characters a token."""

from __future__ import annotations

import math
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from reactgraph.state import TokenCount

CHARS_PER_TOKEN = 4


def count_tokens(text: str) -> int:
    """Estimate: 1 token per 4 characters (used where a model reports no usage)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def message_text(message: BaseMessage) -> str:
    """A message's text plus its tool calls, as counted for estimates."""
    content = message.content
    if isinstance(content, str):
        text = content
    else:
        text = "".join(part if isinstance(part, str) else str(part.get("text", "")) for part in content)
    for call in getattr(message, "tool_calls", None) or []:
        text += f"{call['name']}{call['args']}"
    return text


def estimate_messages(messages: Sequence[BaseMessage]) -> int:
    """Estimated tokens of a prompt: content, tool calls, role and per-message framing."""
    return count_tokens_approximately(messages)


def usage_of(reply: AIMessage, prompt: Sequence[BaseMessage]) -> TokenCount:
    """Usage of one model call: reported by the model, or estimated and marked so."""
    meta = getattr(reply, "usage_metadata", None)
    if meta and meta.get("total_tokens"):
        return {
            "input_tokens": int(meta.get("input_tokens", 0)),
            "output_tokens": int(meta.get("output_tokens", 0)),
            "total_tokens": int(meta["total_tokens"]),
            "estimated": False,
        }
    prompt_tokens, completion = estimate_messages(prompt), count_tokens(message_text(reply))
    return {
        "input_tokens": prompt_tokens,
        "output_tokens": completion,
        "total_tokens": prompt_tokens + completion,
        "estimated": True,
    }


def truncate(text: str, max_tokens: int) -> tuple[str, bool]:
    """Keep the head and tail of ``text`` within ~max_tokens (CHARS_PER_TOKEN characters each), with a visible marker."""
    limit = max_tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text, False
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... {cut} characters truncated ...]\n{tail}", True
