"""What a tool gives back, as the observation's text: any return value (``to_text``), an exception
(``exception_text``), cut to the run's byte limit where the tool runs (``cut``). Content blocks (what MCP
tools return, and any tool that answers with ``{"type": "text", "text": ...}`` blocks) read as their text,
each non-text block named by its type, MIME type and size or address:

    [{"type": "text", "text": "sales by month"}, {"type": "image", "base64": "iVBO...", "mime_type": "image/png"}]
    -> "sales by month\\n[image: image/png, 32 bytes]"
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

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
    if item.get("type") == "text" and isinstance(item.get("text"), str):
        return True
    if not isinstance(item.get("type"), str):  # no block (and no need to load LangChain's messages to say so)
        return False
    if item["type"] == "image_url" and _url(item):  # OpenAI's image block
        return True
    from langchain_core.messages import is_data_content_block  # here: a worker process imports this module too

    return is_data_content_block(item)


def _block_text(block: str | dict[str, Any]) -> str:
    if isinstance(block, str):
        return block
    if isinstance(block.get("text"), str) and block["type"] in ("text", "text-plain"):
        return block["text"]
    mime = block.get("mime_type") or ""
    details = []
    if isinstance(data := block.get("base64") or block.get("data"), str):
        details.append(f"{_decoded_size(data):,} bytes")
    elif url := _url(block):
        if found := DATA_URL.fullmatch(url):
            mime = mime or found.group(1)
            details.append(f"{_decoded_size(found.group(2)):,} bytes")
        else:
            details.append(url)
    elif block.get("file_id"):
        details.append(f"id {block['file_id']}")
    shown = ", ".join(filter(None, [mime, *details]))
    return f"[{block['type']}: {shown}]" if shown else f"[{block['type']}]"


MEDIA = frozenset({"image", "image_url", "audio", "input_audio", "video", "file"})  # content block types that are no text


def media_blocks(value: Any) -> list[dict[str, Any]]:
    """The content blocks of ``value`` that are no text (images, audio, files) when it is a list of content blocks
    (a message's content, a tool's result: text blocks, strings and such blocks only), else []."""
    if not isinstance(value, list):
        return []
    media = [b for b in value if isinstance(b, dict) and b.get("type") in MEDIA]
    rest = [b for b in value if not any(b is m for m in media)]
    if not media or not all(isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text") for b in rest):
        return []
    return media


def media_names(blocks: list[dict[str, Any]]) -> str:
    """The blocks named for a reader: ``an image (image/png)``, ``2 images (image/png, image/jpeg)``."""
    kinds: dict[str, list[str]] = {}
    for block in blocks:
        kind = "image" if block["type"] in ("image", "image_url") else str(block["type"])
        mime = block.get("mime_type") or (DATA_URL.fullmatch(_url(block)) or [None, ""])[1] or ""
        kinds.setdefault(kind, []).append(mime)
    parts = []
    for kind, mimes in kinds.items():
        named = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}" if len(mimes) == 1 else f"{len(mimes)} {kind}s"
        shown = ", ".join(m for m in mimes if m)
        parts.append(f"{named} ({shown})" if shown else named)
    return " and ".join(parts)


def _url(block: dict[str, Any]) -> str:
    url = block.get("url") or block.get("image_url") or ""
    return url.get("url", "") if isinstance(url, dict) else str(url)


def _decoded_size(data: str) -> int:
    """Bytes a base64 text decodes to."""
    data = data.strip()
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))


def not_a_result(value: Any) -> str | None:
    """Why ``value`` is no result a tool can hand back (a generator, an iterator, a coroutine: the work not done
    yet, whose text would be ``<generator object ...>``), or None when it is one."""
    if inspect.iscoroutine(value):
        value.close()  # never awaited: no warning later
        kind = "a coroutine (an async function called without await)"
    elif inspect.isgenerator(value) or inspect.isasyncgen(value):
        kind = f"a {'generator' if inspect.isgenerator(value) else 'async generator'}"
    elif isinstance(value, Iterator) and not isinstance(value, str | bytes | bytearray | Mapping):
        kind = f"an iterator ({type(value).__name__})"
    else:
        return None
    return f"the tool returned {kind}, not its result: return a value (e.g. list(...) of what it yields)"


def to_text(value: Any) -> str:
    """A tool's return value as the observation text: a string as it is, bytes decoded, content
    blocks (MCP tools' results) as their text, a structured value as JSON, anything else by ``str``
    or ``repr``; a value none of these can show (a broken ``__str__``, a structure nested too deep)
    is named by its type."""
    try:
        content = getattr(value, "content", value)  # a ToolMessage or a similar wrapper
    except Exception:
        content = value
    if isinstance(content, str):
        return str.__str__(content)  # a plain str, also for a str subclass
    if isinstance(content, bytes | bytearray):
        return bytes(content).decode("utf-8", errors="replace")
    if (text := blocks_text(content)) is not None:
        return text
    for show in (lambda v: json.dumps(v, ensure_ascii=False, default=str), str, repr):
        try:
            text = show(content)
        except Exception:  # TypeError, ValueError, RecursionError, or whatever a broken __str__ raises
            continue
        if isinstance(text, str):
            return str.__str__(text)
    return f"(a {type(content).__name__} value that cannot be shown as text)"


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside an exception group (and inside the groups in it); ``[exc]`` for any other."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def exception_text(exc: BaseException) -> str:
    """``ExceptionType: message`` (the type alone when the message is empty or cannot be shown)."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message cannot be shown)"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def cut(text: str, limit: int) -> str:
    """``text`` as valid UTF-8 (a lone surrogate becomes '?') within about ``limit`` bytes: its first
    three quarters and its last quarter (an error or a total is often at the end; never half a
    character), ``…`` between them and a last line that marks the cut (where a shortened observation
    still shows it), e.g. ``[cut: 52,428,800 bytes, showing the first 24,576 and the last 8,192]``."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return data.decode()
    head = data[: limit * 3 // 4].decode("utf-8", errors="ignore")
    tail = data[len(data) - limit // 4 :].decode("utf-8", errors="ignore")
    shown = f"showing the first {len(head.encode()):,} and the last {len(tail.encode()):,}"
    return f"{head}\n…\n{tail}\n[cut: {len(data):,} bytes, {shown}]"
