"""Crafted inputs and outputs (issue 27, items 11-13): a typed answer shaped like a tool call, a tool that hands
back a generator, a schema nested past reason, a thread id that is no text, a run of answers that never fit,
an MCP server that never answers."""

from __future__ import annotations

import sys
import time

import pytest
from pydantic import BaseModel, create_model

from reactgraph import ReActAgent
from reactgraph import TerminationReason as R
from reactgraph.answers.typed import SchemaError, SignatureError
from reactgraph.config import AgentConfig
from reactgraph.state import InvalidInputError
from reactgraph.testing import ScriptedChatModel
from reactgraph.tools import MCPServerError, ToolRegistry, load_mcp_tools
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation.processes import running


class Forwarding(BaseModel):
    """Where to send the report: a typed answer whose fields are a call's."""

    name: str
    arguments: dict


@pytest.mark.parametrize("tool_calling", ["native", "json", "auto"])
def test_a_typed_answer_shaped_like_a_call_is_the_answer_not_a_call(tool_calling, log, math_tools):
    """Item 11: the answer {"name": "multiply", "arguments": {...}} was run as a call of multiply."""
    answer = '{"name": "multiply", "arguments": {"a": 6, "b": 7}}'
    model = ScriptedChatModel(responses=[answer, "unused"])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None, output_schema=Forwarding, tool_calling=tool_calling)
    result = agent.run("Which call forwards the report?")
    assert log.calls == []
    assert result.termination_reason is R.SUCCESS
    assert result.output == Forwarding(name="multiply", arguments={"a": 6, "b": 7})


def test_a_json_call_that_is_not_the_answers_shape_still_runs(log, math_tools):
    model = ScriptedChatModel(responses=['{"name": "multiply", "arguments": {"a": 6, "b": 7}}', '{"value": 42}'])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None, output_schema="question -> value: int",
                       tool_calling="json", summary_every=0)
    result = agent.run("6*7?")
    assert log.calls == [("multiply", {"a": 6, "b": 7})] and result.output.value == 42


def counting(n: int):
    """Count to n."""
    yield from range(n)


def test_a_tool_that_returns_a_generator_is_an_error_not_its_repr():
    """Item 12: the observation was an ok '<generator object ...>'."""
    outcome = execute({"id": "c", "index": 0, "tool": "counting", "args": {"n": 3}}, ToolRegistry([counting]), AgentConfig())
    assert outcome["status"] == "error" and outcome["error_kind"] == "execution_failed"
    assert "returned a generator, not its result" in outcome["content"] and "<generator" not in outcome["content"]


def test_a_deep_output_schema_is_refused_when_the_agent_is_made():
    """Item 13: a deep output schema raised RecursionError in the run."""
    deep: type = int
    for level in range(400):
        deep = create_model(f"Level{level}", inner=(deep, ...))
    with pytest.raises(SchemaError, match="nested deeper than 16 levels"):
        ReActAgent(model=ScriptedChatModel(responses=["{}"]), checkpointer=None, output_schema=deep)
    with pytest.raises(SignatureError, match="nested deeper than 16 levels"):
        ReActAgent(model=ScriptedChatModel(responses=["{}"]), checkpointer=None,
                   output_schema="question -> a: " + "list[" * 300 + "int" + "]" * 300)


def test_a_thread_id_that_is_no_text_is_a_clear_error_and_nothing_is_stored(tmp_path):
    """Item 13: a thread id with a lone surrogate raised a raw UnicodeEncodeError from SQLite."""
    agent = ReActAgent(model=ScriptedChatModel(responses=["x"]), checkpointer=tmp_path / "db.sqlite")
    with agent:
        for call in (lambda: agent.run("q", thread_id="a\ud800"), lambda: agent.resume("\udcff"),
                     lambda: agent.cancel("\ud800"), lambda: agent.get_result("\ud800")):
            with pytest.raises(InvalidInputError, match="lone surrogate"):
                call()
        assert agent.list_runs() == []


def test_answers_that_never_fit_end_with_max_output_retries_not_a_stall_on_nothing():
    """Item 13: more output retries than the stall threshold ended 'stalled' with the detail [["", {}]]."""
    model = ScriptedChatModel(responses=["not json"], repeat_last=True)
    agent = ReActAgent(model=model, checkpointer=None, output_schema="question -> value: float", summary_every=0,
                       max_output_retries=5)
    result = agent.run("How much?")
    assert result.termination_reason is R.FAILURE
    assert result.termination_detail.startswith("the answer did not fit the output schema 6 times (max_output_retries=5)")
    assert '[["", {}]]' not in result.termination_detail


def test_load_mcp_tools_returns_at_its_timeout_and_stops_the_server_behind(tmp_path):
    """Item 13: a server that never answered made load_mcp_tools overrun its timeout by the MCP shutdown (stdin
    closed, 2 s, then SIGTERM): it now returns at the timeout, and the server is stopped behind it (how soon depends
    on where the cancellation finds the MCP shutdown, so only that it stops is asserted)."""
    pid_file = tmp_path / "pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    with pytest.raises(MCPServerError, match="no answer within 5s"):  # time enough to start on a busy machine
        load_mcp_tools({"silent": {"command": sys.executable, "args": ["-c", script]}}, timeout=5)
    server = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while running(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(server)  # and stopped behind the caller
