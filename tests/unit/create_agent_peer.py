"""The same LangChain tools (or middleware) run by ``create_agent`` and by reactgraph on the same script: what each
run's tool calls returned, to compare (``tests/unit/tools/test_injected_args.py`` and its neighbours)."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel


def create_agent_run(script: list[Any], tools: list[Any], question: Any = "go", **options: Any) -> tuple[dict, ScriptedChatModel]:
    """create_agent's run of ``question`` on a scripted model: (its final state, the model)."""
    invoke = {k: options.pop(k) for k in ("context", "config") if k in options}
    model = ScriptedChatModel(responses=list(script))
    agent = create_agent(model, tools, **options)
    content = question if isinstance(question, list | str) else question
    state = agent.invoke({"messages": [{"role": "user", "content": content}]}, **invoke)
    return state, model


def tool_results(state: dict) -> list[str]:
    """The texts of a create_agent run's tool messages, in order."""
    return [m.text for m in state["messages"] if isinstance(m, ToolMessage)]


def final_text(state: dict) -> str:
    """create_agent's answer: its last message's text (an AI message, or a tool's with return_direct)."""
    last = state["messages"][-1]
    return last.text if isinstance(last, AIMessage | ToolMessage) else ""


def reactgraph_run(script: list[Any], tools: list[Any], question: Any = "go", *, agent_options: dict | None = None, **run: Any):
    """reactgraph's run of ``question`` on a scripted model: (its result, the model, the agent)."""
    model = ScriptedChatModel(responses=list(script))
    agent = ReActAgent(model, tools, checkpointer=None, **(agent_options or {}))
    return agent.run(question, **run), model, agent


def observations(result: Any) -> list[str]:
    """The texts of a reactgraph run's tool results, in order."""
    return [o.content for step in result.trace.steps for o in step.observations]
