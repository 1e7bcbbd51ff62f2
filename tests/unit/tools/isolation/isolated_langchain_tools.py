"""Module-level LangChain tools that take injected arguments, for the tests of what crosses to a worker process
(``test_isolated_injection``): a worker imports them by module and name."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Annotated, Any

from langchain.tools import InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime, tool


@dataclass
class Ctx:
    user_id: str


@tool
def whoami(greeting: str, runtime: ToolRuntime[Ctx]) -> str:
    """Greet the user by id, saying where it ran."""
    runtime.stream_writer({"message": f"greeting {runtime.context.user_id}"})
    return f"{greeting} {runtime.context.user_id}; call {runtime.tool_call_id}; store {runtime.store}; pid {os.getpid()}"


@tool
def first_message(messages: Annotated[list, InjectedState("messages")], call_id: Annotated[str, InjectedToolCallId]) -> str:
    """The first message, by the call's id."""
    return f"{call_id}: {messages[0].text}"


@tool
def remember(fact: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Remember a fact."""
    store.put(("facts",), "fact", {"text": fact})
    return "remembered"


@tool
def forecast(city: str) -> dict:
    """The forecast for a city."""
    return {"city": city, "pid": os.getpid()}
