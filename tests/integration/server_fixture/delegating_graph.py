"""A served graph whose only tool is a sub-agent: the scripted arithmetic agent (scripted_graph.py)
with multiply and add. Asked DELEGATED, the parent hands the sum to the sub-agent and answers
with what it found."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from reactgraph import ReActAgent
from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call

_spec = importlib.util.spec_from_file_location("scripted_graph", Path(__file__).with_name("scripted_graph.py"))
scripted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scripted)

DELEGATED = "Ask the helper: what is 6*7 + 2*4?"


def parent_reply(messages: list[BaseMessage]) -> str | AIMessage:
    """The parent model: a pure function of the prompt."""
    found = [m.content for m in messages if isinstance(m, ToolMessage) and m.name == "calculator_agent"]
    if found:
        return f"The helper found: {found[-1]}"
    return tool_call("calculator_agent", {"task": scripted.ARITHMETIC}, thought="The helper does sums.")


child = ReActAgent(
    model=ScriptedChatModel(responses=[scripted.reply], repeat_last=True), tools=[scripted.multiply, scripted.add], checkpointer=None
)
graph = make_graph(
    model=ScriptedChatModel(responses=[parent_reply], repeat_last=True),
    tools=[child.as_tool("calculator_agent", "A helper that does arithmetic with its own tools.")],
)
