"""Token streaming (``stream(..., tokens=True)``, the CLI's live line) and LangChain callbacks and
config passed through to every model and tool call."""

from __future__ import annotations

import asyncio
import io
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from rich.console import Console

from reactgraph import ReActAgent, ReActResult, ReActStep, Token
from reactgraph.commands.live import LiveView
from reactgraph.testing import ScriptedChatModel, tool_call

SCRIPT = [tool_call("multiply", {"a": 6, "b": 7}, thought="I multiply six by seven."), "Six times seven is 42."]


class Recorder(BaseCallbackHandler):
    """Records the model and tool runs a handler is told about, with their tags and metadata."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, list[str], dict[str, Any]]] = []

    def on_chat_model_start(self, serialized, messages, *, run_id: UUID, tags=None, metadata=None, **kw) -> None:
        self.events.append(("model", len(messages[0]), tags or [], metadata or {}))

    def on_tool_start(self, serialized, input_str, *, run_id: UUID, tags=None, metadata=None, inputs=None, **kw) -> None:
        self.events.append(("tool", (serialized.get("name"), inputs), tags or [], metadata or {}))

    def on_tool_end(self, output, *, run_id: UUID, **kw) -> None:
        self.events.append(("tool_end", getattr(output, "content", output), [], {}))


def test_tokens_arrive_as_written_before_their_step(math_tools, log):
    agent = ReActAgent(model=ScriptedChatModel(responses=list(SCRIPT)), tools=math_tools, checkpointer=None)
    items = list(agent.stream("What is 6*7?", tokens=True))
    kinds = ["token" if isinstance(i, Token) else "step" if isinstance(i, ReActStep) else "result" for i in items]
    assert kinds == ["token"] * 5 + ["step"] + ["token"] * 5 + ["step", "result"]
    first, second = "".join(i.text for i in items[:5]), "".join(i.text for i in items[6:11])
    assert (first, second) == ("I multiply six by seven.", "Six times seven is 42.")
    assert {i.node for i in items if isinstance(i, Token)} == {"think"}
    assert log.calls == [("multiply", {"a": 6, "b": 7})]  # the streamed reply's call still ran, once
    assert items[-1].final_answer == "Six times seven is 42."


def test_without_tokens_only_steps_and_the_result(math_tools):
    agent = ReActAgent(model=ScriptedChatModel(responses=list(SCRIPT)), tools=math_tools, checkpointer=None)
    assert [type(i) for i in agent.stream("What is 6*7?")] == [ReActStep, ReActStep, ReActResult]


def test_async_stream_gives_the_same_tokens(math_tools):
    agent = ReActAgent(model=ScriptedChatModel(responses=list(SCRIPT)), tools=math_tools, checkpointer=None)

    async def collect() -> list[Any]:
        return [item async for item in agent.astream("What is 6*7?", tokens=True)]

    items = asyncio.run(collect())
    assert "".join(i.text for i in items if isinstance(i, Token)) == "I multiply six by seven.Six times seven is 42."
    assert isinstance(items[-1], ReActResult) and items[-1].final_answer == "Six times seven is 42."


def test_the_live_view_shows_the_reply_being_written():
    view = LiveView(Console(file=io.StringIO(), width=100))
    seen: list[str] = []

    def updates():
        for word in ("I ", "multiply ", "six."):
            yield Token(node="think", text=word)
            seen.append(view.status_text)
        yield Token(node="summarize", text="notes")  # not think's: not shown
        seen.append(view.status_text)
        yield "think", {"current_turn": {"thought": "I multiply six.", "actions": [{"tool": "multiply", "args": {}}]}}
        seen.append(view.status_text)
        yield ReActResult.model_construct()

    view.follow(updates())
    assert seen[:4] == ["[dim]thinking:[/] I", "[dim]thinking:[/] I multiply", "[dim]thinking:[/] I multiply six."] + [
        "[dim]thinking:[/] I multiply six."
    ]
    assert seen[4] == "[dim]running tools...[/]" and view.written == ""


def test_callbacks_and_config_reach_every_model_and_tool_call(math_tools, tmp_path):
    recorder = Recorder()
    agent = ReActAgent(model=ScriptedChatModel(responses=list(SCRIPT)), tools=math_tools, checkpointer=tmp_path / "db.sqlite")
    config = {"tags": ["mine"], "metadata": {"user": "u1"}, "configurable": {"thread_id": "from-config"}}
    with agent:
        result = agent.run("What is 6*7?", callbacks=[recorder], config=config)
    assert result.thread_id == "from-config"
    assert [e[0] for e in recorder.events] == ["model", "tool", "tool_end", "model"]
    assert recorder.events[1][1] == ("multiply", {"a": 6, "b": 7}) and recorder.events[2][1] == 42
    assert all("mine" in tags and meta.get("user") == "u1" for kind, _, tags, meta in recorder.events if kind != "tool_end")


def test_async_run_takes_callbacks_too(math_tools):
    recorder = Recorder()
    agent = ReActAgent(model=ScriptedChatModel(responses=list(SCRIPT)), tools=math_tools, checkpointer=None)
    result = asyncio.run(agent.arun("What is 6*7?", callbacks=[recorder]))
    assert result.final_answer == "Six times seven is 42."
    assert [e[0] for e in recorder.events] == ["model", "tool", "tool_end", "model"]
