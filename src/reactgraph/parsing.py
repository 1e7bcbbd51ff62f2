"""Model reply -> thought, actions, or a final answer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage

from reactgraph.state import Action


@dataclass
class ParsedReply:
    """What a model reply asks for: actions to run, or an answer (``answer`` None when it acts)."""

    thought: str
    actions: list[Action] = field(default_factory=list)
    answer: str | None = None


def reply_text(message: AIMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p).strip()


def parse_reply(message: AIMessage) -> ParsedReply:
    """Native tool calls become actions; malformed ones become rejected actions; no call means an answer."""
    text = reply_text(message)
    actions: list[Action] = []
    for call in message.tool_calls or []:
        actions.append({"id": call.get("id") or _new_id(), "tool": call["name"], "args": dict(call.get("args") or {})})
    for bad in getattr(message, "invalid_tool_calls", None) or []:
        name = bad.get("name") or "(unnamed)"
        actions.append(
            {
                "id": bad.get("id") or _new_id(),
                "tool": name,
                "args": {},
                "rejection_kind": "invalid_parameters",
                "rejection": f"Error (invalid_parameters): your call to {name} could not be read "
                f"({bad.get('error') or 'arguments are not valid JSON'}): {bad.get('args')!r}. "
                "Send the arguments as a JSON object matching the tool's schema.",
            }
        )
    for index, action in enumerate(actions):
        action["index"] = index
    if actions:
        return ParsedReply(thought=text, actions=actions)
    return ParsedReply(thought=text, answer=text)


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"
