"""ScriptedChatModel: a deterministic chat model for testing agents without a real model.

    from reactgraph.testing import ScriptedChatModel, tool_call

    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "6*7"}, thought="I need to multiply."),
        "The answer is 42.",
    ])

Each item of ``responses`` is one model reply, used in order:

- a ``str``: a text reply (no tool calls);
- an ``AIMessage``: returned as given (tool calls, ``invalid_tool_calls``, anything);
- a callable ``(messages) -> str | AIMessage``: computes the reply from the prompt.

``tool_call`` and ``tool_calls`` build replies with one or several calls; ``by_prompt``
builds a reply that depends only on the prompt, so a scripted run can be resumed in a new
process (the model needs no memory of earlier calls). ``with_structured_output(Schema)`` (a typed
answer's structured-output call) works through ``bind_tools``: a ``tool_call("Schema", {...})`` reply
answers it. When the script
runs out, the model raises ``ScriptExhausted`` unless ``repeat_last=True``. Every call is
recorded in ``calls`` (the messages, the names of the tools bound and the stop sequences), and token usage is
reported as 1 token per 4 characters unless ``report_usage=False``. When streamed (LangGraph's
``stream_mode="messages"``, ``ReActAgent.stream(..., tokens=True)``) a text reply comes word by
word, its tool calls and usage with the last piece.

Demo tools, for examples and tests (never among the built-ins): ``get_weather(city)`` and ``search_flights(origin,
destination, date)``, a mock weather and flight service with fixed, made-up data (``DEMO_TOOLS`` has both). The README's
example tools, for the walkthrough suite (``reactgraph eval --suite walkthrough``) and your own tries: ``multiply``,
``add``, ``lookup`` (a made-up address book), ``send_email`` (a test double: it only records the mail in
``SENT_EMAILS``), the reply check ``names_the_tool`` and the middleware list ``readme_middleware()``.
"""

from __future__ import annotations

import datetime
import re
import threading
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from reactgraph.models.tokens import count_tokens, estimate_messages, message_text

Response = str | AIMessage | Callable[[list[BaseMessage]], "str | AIMessage"]


class ScriptExhausted(RuntimeError):
    """The scripted model was called more often than its script has replies."""


def tool_call(name: str, args: dict[str, Any] | None = None, *, thought: str = "", id: str | None = None) -> AIMessage:
    """A reply with one tool call."""
    return tool_calls([(name, args or {})], thought=thought, ids=[id] if id else None)


def tool_calls(
    calls: Sequence[tuple[str, dict[str, Any]]], *, thought: str = "", ids: Sequence[str] | None = None
) -> AIMessage:
    """A reply with several tool calls in one turn."""
    ids = list(ids) if ids else [f"call_{uuid.uuid4().hex[:12]}" for _ in calls]
    return AIMessage(
        content=thought,
        tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for (n, a), i in zip(calls, ids, strict=True)],
    )


def by_prompt(*routes: tuple[str, Response], default: Response) -> Callable[[list[BaseMessage]], str | AIMessage]:
    """A reply chosen from the prompt: the reply of the first ``(text, reply)`` route whose text
    occurs in the prompt's messages, else ``default``. Use it as the only response, with
    ``repeat_last=True``::

        ScriptedChatModel(responses=[by_prompt(("RESULT-B", "done"), ("notes", "summary"), default=call_a)], repeat_last=True)
    """

    def reply(messages: list[BaseMessage]) -> str | AIMessage:
        text = "\n".join(message_text(m) for m in messages)
        chosen = next((r for key, r in routes if key in text), default)
        return chosen(messages) if callable(chosen) else chosen

    return reply


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays a script. Supports ``bind_tools``; thread-safe."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[Any] = Field(default_factory=list)
    repeat_last: bool = False
    report_usage: bool = True
    calls: list[dict[str, Any]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _position: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def position(self) -> int:
        """How many replies have been used."""
        return self._position

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as a real tool-calling model would; the names are recorded per call."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _next(self) -> Any:
        with self._lock:
            if self._position >= len(self.responses):
                if self.repeat_last and self.responses:
                    return self.responses[-1]
                raise ScriptExhausted(f"ScriptedChatModel: script has {len(self.responses)} replies, call {self._position + 1} asked for more")
            item = self.responses[self._position]
            self._position += 1
            return item

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """The reply word by word; its tool calls and usage come with the last piece."""
        message = self._generate(messages, stop, **kwargs).generations[0].message
        assert isinstance(message, AIMessage)  # a scripted reply is one
        text = message.content if isinstance(message.content, str) else message_text(message)
        for word in re.findall(r"\S+\s*|\s+", text):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word, id=message.id))
            if run_manager:
                run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk
        last = AIMessageChunk(
            content="", id=message.id, tool_calls=message.tool_calls, invalid_tool_calls=message.invalid_tool_calls,
            usage_metadata=message.usage_metadata, additional_kwargs=message.additional_kwargs,
        )
        yield ChatGenerationChunk(message=last)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        item = self._next()
        reply = item(messages) if callable(item) else item
        message = AIMessage(content=reply) if isinstance(reply, str) else reply.model_copy(deep=True)
        tool_names = [t["function"]["name"] for t in kwargs.get("tools", [])]
        with self._lock:
            self.calls.append({"messages": list(messages), "tools": tool_names, "stop": stop})
        if self.report_usage:
            prompt = estimate_messages(messages)
            completion = count_tokens(message_text(message))
            message.usage_metadata = {
                "input_tokens": prompt,
                "output_tokens": completion,
                "total_tokens": prompt + completion,
            }
        else:
            message.usage_metadata = None
        return ChatResult(generations=[ChatGeneration(message=message)])


# -- demo tools -------------------------------------------------------------------------------
# A mock weather and flight service: fixed, made-up data, the same on every call, so an example or a test reads
# the same every time. Not built-ins: `reactgraph tools` does not list them.

DEMO_CITIES = {  # city -> (temperature in °C, conditions)
    "paris": (18, "light rain"),
    "rome": (24, "sunny"),
    "london": (14, "overcast"),
    "tokyo": (21, "clear"),
    "new york": (16, "windy"),
}


def _city(name: str) -> str:
    key = " ".join(name.lower().split())
    if key not in DEMO_CITIES:
        raise ValueError(f"the demo service knows no city {name!r}; it knows {', '.join(c.title() for c in DEMO_CITIES)}")
    return key


def get_weather(city: str) -> str:
    """The weather in a city now (a demo service: fixed, made-up data): temperature in °C and the conditions."""
    temperature, conditions = DEMO_CITIES[_city(city)]
    return f"{_city(city).title()}: {temperature} °C, {conditions}"


def search_flights(origin: str, destination: str, date: str) -> str:
    """Flights from one city to another on a date given as YYYY-MM-DD (a demo service: made-up flights), one line
    each: flight number, departure time, price in EUR."""
    start, end = _city(origin), _city(destination)
    if start == end:
        raise ValueError("origin and destination are the same city")
    try:
        day = datetime.date.fromisoformat(date)
    except ValueError:
        raise ValueError(f"date must be YYYY-MM-DD, got {date!r}") from None
    seed = zlib.crc32(f"{start}|{end}|{day}".encode())
    flights = [
        f"RG{100 + (seed >> shift) % 900} {6 + (seed >> shift) % 14:02d}:{(seed >> (shift + 4)) % 4 * 15:02d} "
        f"{80 + (seed >> (shift + 8)) % 320} EUR"
        for shift in (0, 9)
    ]
    return f"{start.title()} -> {end.title()} on {day}:\n" + "\n".join(sorted(flights, key=lambda f: f.split()[1]))


DEMO_TOOLS = [get_weather, search_flights]


# -- the README's example tools -----------------------------------------------------------------
# What the docs' examples define or import, importable so that the walkthrough suite runs them as written.


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


ADDRESS_BOOK = {"ann": "ann@example.com", "bob": "bob@example.com"}  # made-up contacts
SENT_EMAILS: list[dict[str, str]] = []  # what send_email was asked to send, in order


def lookup(name: str) -> str:
    """The email address of a contact, by name (a demo address book: made-up entries)."""
    key = " ".join(name.lower().split())
    if key not in ADDRESS_BOOK:
        raise ValueError(f"no contact {name!r}; the address book has {', '.join(n.title() for n in ADDRESS_BOOK)}")
    return ADDRESS_BOOK[key]


def send_email(to: str, body: str) -> str:
    """Send an email to an address (a test double: nothing is sent, the mail is recorded in SENT_EMAILS)."""
    SENT_EMAILS.append({"to": to, "body": body})
    return f"sent to {to}"


def names_the_tool(reply: Any, state: Any, config: Any) -> Any:
    """The docs' own reply check (docs/middleware.md): an answer must name the tool that gave its number."""
    from reactgraph.graph.checks import SendBack

    used = sorted({a["tool"] for step in state["steps"] for a in step["actions"] if a["tool"]})
    if reply.answer is not None and used and not any(tool in reply.answer for tool in used):
        return SendBack(f"Say which tool gave the number, by its name: {', '.join(used)}.")
    return None


def readme_middleware() -> list[Any]:
    """The docs' middleware example: e-mail addresses redacted before the model sees them, at most five model
    calls a run, and each model call logged (printed)."""
    from langchain.agents.middleware import ModelCallLimitMiddleware, PIIMiddleware, wrap_model_call

    @wrap_model_call
    def log_calls(request: Any, handler: Any) -> Any:
        print("model call:", len(request.messages), "messages,", len(request.tools), "tools")
        return handler(request)

    return [PIIMiddleware("email", strategy="redact"), ModelCallLimitMiddleware(run_limit=5), log_calls]
