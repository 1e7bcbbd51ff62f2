"""The peer agents the eval runs beside reactgraph, by name: LangGraph's prebuilt ``create_react_agent`` and
LangChain's ``create_agent``, each with the same tools and system prompt (and, given one, a checkpointer: a thread
is then a conversation, its messages kept across invocations). Each factory imports its library when called, so
``reactgraph --help`` reads the names without loading them."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reactgraph.prompts import SYSTEM_PROMPT

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langgraph.graph.state import CompiledStateGraph


def prebuilt_graph(model: BaseChatModel, tools: list[Any], checkpointer: Any = None) -> CompiledStateGraph:
    """LangGraph's prebuilt ``create_react_agent`` (deprecated in favour of ``create_agent``; still what many run)."""
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return create_react_agent(model, tools, prompt=SYSTEM_PROMPT, checkpointer=checkpointer)


def create_agent_graph(model: BaseChatModel, tools: list[Any], checkpointer: Any = None) -> CompiledStateGraph:
    """LangChain's ``create_agent`` (langchain 1.x), with no middleware: its plain ReAct loop."""
    from langchain.agents import create_agent

    return create_agent(model, tools, system_prompt=SYSTEM_PROMPT, checkpointer=checkpointer)


PEERS: dict[str, Callable[..., CompiledStateGraph]] = {
    "prebuilt": prebuilt_graph,
    "create_agent": create_agent_graph,
}
