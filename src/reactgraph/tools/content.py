"""Content blocks as observation text: a tool result that is a list of LangChain content blocks
(what MCP tools return, and any tool that answers with ``{"type": "text", "text": ...}`` blocks)
reads as its text, each non-text block named by its type, MIME type and size or address:

    [{"type": "text", "text": "sales by month"}, {"type": "image", "base64": "iVBO...", "mime_type": "image/png"}]
    -> "sales by month\\n[image: image/png, 32 bytes]"
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import is_data_content_block

DATA_URL = re.compile(r"data:([^;,]*)(?:;[^,]*)?,(.*)", re.DOTALL)


def blocks_text(value: Any) -> str | None:
    """The text of a list of content blocks (strings, text blocks, data blocks); None when ``value``
    is anything else (a list of records that merely have a "type" is data, not blocks)."""
    if not isinstance(value, list) or not value or not all(map(_is_block, value)):
        return None
    return "\n".join(_block_text(block) for block in value)


def _is_block(item: Any) -> bool:
    if isinstance(item, str):
        return True
    if not isinstance(item, dict):
        return False
    return (item.get("type") == "text" and isinstance(item.get("text"), str)) or is_data_content_block(item)


def _block_text(block: str | dict[str, Any]) -> str:
    if isinstance(block, str):
        return block
    if isinstance(block.get("text"), str) and block["type"] in ("text", "text-plain"):
        return block["text"]
    mime = block.get("mime_type") or ""
    details = []
    if isinstance(data := block.get("base64") or block.get("data"), str):
        details.append(f"{_decoded_size(data):,} bytes")
    elif isinstance(url := block.get("url"), str):
        if found := DATA_URL.fullmatch(url):
            mime = mime or found.group(1)
            details.append(f"{_decoded_size(found.group(2)):,} bytes")
        else:
            details.append(url)
    elif block.get("file_id"):
        details.append(f"id {block['file_id']}")
    shown = ", ".join(filter(None, [mime, *details]))
    return f"[{block['type']}: {shown}]" if shown else f"[{block['type']}]"


def _decoded_size(data: str) -> int:
    """Bytes a base64 text decodes to."""
    data = data.strip()
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))
