"""Every model call of a BFCL run, as its record keeps it (``Replies``, a LangChain callback handler): the reply (its
text and native tool calls), its prompt and completion tokens as the server reported them (``usage_metadata``; from
Ollama its ``prompt_eval_count`` and ``eval_count``), the seconds from the call's start to its reply, and, given the
model server's log (``ServerLog``), the prompt tokens the server evaluated for it: the rest its prompt cache held.

Only llama.cpp's log says what its cache served (llama-cpp-python's server, verbose as it is by default: what
``local-model.sh`` writes to its server.log, behind the Ollama shim, which reports the whole prompt as
``prompt_eval_count``). For each completion it logs, when part of the prompt is the start of the one before,
``Llama.generate: N prefix-match hit, remaining M prompt tokens to eval`` (M evaluated), or ``full prompt already
cached`` (none); without either line the whole prompt was evaluated. A completion is known to have been logged by
its timings (``llama_perf_context_print``); a call whose log window holds none has no figure (None). One client at a
time (the eval holds the model's lock), so the lines written during a call are that call's."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult

PREFIX_HIT = re.compile(r"Llama\.generate: \d+ prefix-match hit, remaining (\d+) prompt tokens to eval")
ALL_CACHED = "Llama.generate: full prompt already cached"
TIMINGS = "llama_perf_context_print"


class ServerLog:
    """llama.cpp's server log, read from where a call started to where it ended."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def mark(self) -> int:
        """Where the log ends now (0 when there is no log yet)."""
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def evaluated(self, since: int, prompt_tokens: int) -> int | None:
        """The prompt tokens the completions logged after ``since`` evaluated (``prompt_tokens``, the whole prompt,
        when the log says nothing was reused), or None when no completion was logged there."""
        try:
            with self.path.open("rb") as log:
                log.seek(since)
                text = log.read().decode(errors="replace")
        except OSError:
            return None
        if TIMINGS not in text:
            return None
        if hits := PREFIX_HIT.findall(text):
            return int(hits[-1])
        return 0 if ALL_CACHED in text else prompt_tokens


class Replies(BaseCallbackHandler):
    """Every chat model reply of a run, in order of their ends: ``{text, tool_calls, input_tokens, output_tokens,
    seconds}``, and ``evaluated`` with a server log."""

    def __init__(self, server_log: ServerLog | None = None) -> None:
        self.replies: list[dict[str, Any]] = []
        self.server_log = server_log
        self._started: dict[UUID, tuple[float, int | None]] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._start(run_id)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._start(run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        started, mark = self._end(run_id)
        for generation in (g for batch in response.generations for g in batch):
            reply: dict[str, Any] = {"text": generation.text, "tool_calls": []}
            if isinstance(generation, ChatGeneration) and isinstance(generation.message, AIMessage):
                message = generation.message
                usage: Mapping[str, Any] = message.usage_metadata or {}
                reply = {
                    "text": message.text,
                    "tool_calls": [{"name": c["name"], "args": c["args"]} for c in message.tool_calls],
                    "input_tokens": usage.get("input_tokens", 0),
                    "output_tokens": usage.get("output_tokens", 0),
                }
            reply["seconds"] = round(time.perf_counter() - started, 3)
            if self.server_log is not None and mark is not None:
                reply["evaluated"] = self.server_log.evaluated(mark, reply.get("input_tokens", 0))
            with self._lock:
                self.replies.append(reply)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def _start(self, run_id: UUID) -> None:
        mark = self.server_log.mark() if self.server_log is not None else None
        with self._lock:
            self._started[run_id] = (time.perf_counter(), mark)

    def _end(self, run_id: UUID) -> tuple[float, int | None]:
        with self._lock:
            return self._started.pop(run_id, (time.perf_counter(), None))
