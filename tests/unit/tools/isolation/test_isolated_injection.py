"""Injected arguments in a worker process (``tool_execution.isolation="process"``): what can cross does (the call's id, the
state, a ToolRuntime with the context, the call's id, the config's plain data and a stream writer that reaches the
agent's stream); what cannot is refused, saying so (the store, a live connection)."""

from __future__ import annotations

import os
import sys

import pytest
from langchain_core.messages import AIMessage

from reactgraph import Progress, ReActAgent, ToolRegistrationError
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.tools.isolation import isolated_langchain_tools as tools

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes need Linux")


def observations(result) -> list[str]:
    return [o.content for step in result.trace.steps for o in step.observations]


def test_the_runtime_crosses_with_the_context_and_writes_to_the_stream():
    model = ScriptedChatModel(responses=[tool_call("whoami", {"greeting": "hi"}, id="c1"), "Final Answer: done"])
    agent = ReActAgent(model, [tools.whoami], checkpointer=None, context_schema=tools.Ctx, tool_execution={"isolation": "process"})
    items = list(agent.stream("Say hi to me.", context=tools.Ctx("u1")))
    text = observations(items[-1])[0]
    assert text.startswith("hi u1; call c1; store None; pid ") and int(text.rsplit(" ", 1)[1]) != os.getpid()
    assert [i.data for i in items if isinstance(i, Progress)] == [{"message": "greeting u1"}]


def test_the_state_and_the_call_id_cross():
    script = [AIMessage("", tool_calls=[{"name": "first_message", "args": {}, "id": "f1", "type": "tool_call"}]), "Final Answer: ok"]
    result = ReActAgent(ScriptedChatModel(responses=script), [tools.first_message], checkpointer=None, tool_execution={"isolation": "process"}).run(
        "what did I ask?"
    )
    assert observations(result) == ["f1: what did I ask?"]


def test_a_structured_value_crosses_back():
    model = ScriptedChatModel(responses=[tool_call("forecast", {"city": "Rome"}), "Final Answer: ok"])
    result = ReActAgent(model, [tools.forecast], checkpointer=None, tool_execution={"isolation": "process"}).run("What is the forecast for Rome?")
    value = result.trace.steps[0].observations[0].value
    assert value["city"] == "Rome" and value["pid"] != os.getpid()


def test_a_tool_that_takes_the_store_cannot_run_in_a_worker_and_is_told_why():
    with pytest.raises(ToolRegistrationError, match="takes the store \\(InjectedStore\\), a live connection"):
        ReActAgent(ScriptedChatModel(), [tools.remember], checkpointer=None, tool_execution={"isolation": "process"})
