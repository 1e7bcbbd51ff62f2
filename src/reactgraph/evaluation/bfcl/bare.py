"""The bare model, asked BFCL's own way (the ``bare`` agent of ``reactgraph eval --suite bfcl:...``): BFCL's prompt
mode on the same endpoint as the agents, the anchor they are held against. As BFCL's handlers of chat models in
prompt mode do it (``package.prompt_mode``, BFCL's own functions, imported): the functions get the Python hint, BFCL's
default system prompt lists them (as JSON) before the entry's question, no tools are bound, the model replies once,
and the reply's text is decoded with ``default_decode_ast_prompting`` (``[f(a=1), g(b=2)]``).

What BFCL's runner then scores: a reply that does not decode, or decodes to something that is not a list of
calls, is no call (BFCL's error types ``ast_decoder:decoder_failed`` and ``ast_decoder:decoder_wrong_output_format``,
kept on the record as ``decode_error``): wrong where a call is due, right in the irrelevance categories. A native tool
call in the reply (a server that reads ``<tool_call>`` blocks even without tools, as the Ollama shim does) is kept in
the record's replies but not read: BFCL decodes the text only. Single-turn categories only."""

from __future__ import annotations

import copy
from typing import Any

from langchain_core.language_models import BaseChatModel

from reactgraph.evaluation.bfcl.calls import Replies
from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.package import prompt_mode

DECODER_FAILED = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT = "ast_decoder:decoder_wrong_output_format"


def bare_messages(entry: Entry) -> list[dict[str, str]]:
    """The chat BFCL's prompt mode sends for ``entry``: its default system prompt with the functions (each with the
    language hint), then the entry's messages (a system message of the entry's own follows BFCL's prompt in it)."""
    bfcl = prompt_mode()
    case = {"id": entry.id, "function": copy.deepcopy(list(entry.functions))}
    functions = bfcl.add_language_specific_hint_to_function_doc([case])[0]["function"]
    return bfcl.system_prompt_pre_processing_chat_model(copy.deepcopy(list(entry.messages)), functions, entry.id)


def decode(text: str) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
    """The calls of a reply's text as ``{"name", "args"}``, decoded by BFCL, and the decoder's error (None when it
    read a list of calls, which may be empty)."""
    bfcl = prompt_mode()
    try:
        decoded = bfcl.default_decode_ast_prompting(text)
    except Exception as exc:  # noqa: BLE001 — BFCL's runner catches every decoder error the same way
        return [], {"type": DECODER_FAILED, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    if not bfcl.is_function_calling_format_output(decoded):
        return [], {"type": WRONG_OUTPUT_FORMAT, "error": f"not a list of calls: {str(decoded)[:300]}"}
    return [{"name": name, "args": args} for item in decoded for name, args in item.items()], None


def run_bare(entry: Entry, model: BaseChatModel, replies: Replies) -> dict[str, Any]:
    """``entry`` through the bare model: one reply, decoded; the fields of a run's record."""
    try:
        reply = model.invoke(bare_messages(entry), config={"callbacks": [replies]})
    except Exception as exc:  # noqa: BLE001 — a crash is a measured outcome here
        return {
            "calls": [], "first_reply_calls": [], "answer": None, "reason": "error", "tokens": 0,
            "error": f"{type(exc).__name__}: {str(exc)[:300]}",
        }
    calls, error = decode(reply.text)
    usage = getattr(reply, "usage_metadata", None) or {}
    return {
        "calls": calls,
        "first_reply_calls": calls,
        "answer": None if calls else reply.text,
        "reason": "custom" if calls else "success",
        "tokens": usage.get("total_tokens", 0),
        "error": "",
        "decode_error": error,
    }

