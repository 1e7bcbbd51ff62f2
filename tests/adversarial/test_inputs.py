"""Crafted inputs and outputs (issue 27, items 11-13): a typed answer shaped like a tool call, a tool that hands
back a generator, a schema nested past reason, a thread id that is no text, a run of answers that never fit,
an MCP server that never answers; (issue 42, items 5 and 13) a blank question, a question that is no text, on every
way in."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import BaseModel, create_model

from reactgraph import ReActAgent
from reactgraph import TerminationReason as R
from reactgraph.answers.typed import SchemaError, SignatureError
from reactgraph.config import AgentConfig
from reactgraph.state import InvalidInputError
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import MCPServerError, ToolRegistry, load_mcp_tools
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation.processes import running
from tests.integration.cli_fixtures import CALL_LOG

ROOT = Path(__file__).resolve().parents[2]
MODEL = "tests.integration.cli_fixtures:answering"
TOOLS = "tests.integration.cli_fixtures:TOOLS"


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


# -- issue 42 ------------------------------------------------------------------------------------------------------


def booking_agent(tmp_path, log, *answers: str) -> ReActAgent:
    def book(room: str) -> str:
        """Book a room (a side effect: each call books one more)."""
        log.add("book", room=room)
        return f"booked {room}"

    model = ScriptedChatModel(responses=[tool_call("book", {"room": "12"}), *answers], repeat_last=True)
    return ReActAgent(model=model, tools=[book], checkpointer=tmp_path / "db.sqlite", summary_every=0)


def cli(*args, db) -> subprocess.CompletedProcess:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, CALL_LOG: str(db.parent / "calls.log")}
    return subprocess.run([sys.executable, "-m", "reactgraph.cli", *args, "--db", str(db)], capture_output=True, env=env,
                          cwd=ROOT, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_a_blank_question_is_refused_not_the_last_one_asked_again(tmp_path, log, blank):
    """Item 5: run("") on a thread became a new turn that asked the previous question again: its tool ran twice."""
    with booking_agent(tmp_path, log, "Booked room 12.") as agent:
        assert agent.run("Book room 12.", thread_id="t").final_answer == "Booked room 12."
        for attempt in (lambda: agent.run(blank, thread_id="t"), lambda: list(agent.stream(blank, thread_id="t")),
                        lambda: list(agent.stream_updates(blank, thread_id="t")),
                        lambda: asyncio.run(agent.arun(blank, thread_id="t")),
                        lambda: agent.fork("t", query=blank), lambda: agent.run(blank)):
            with pytest.raises(InvalidInputError, match="the question is blank"):
                attempt()
        assert log.calls == [("book", {"room": "12"})]
        assert [turn.question for turn in agent.conversation("t")] == ["Book room 12."]
        assert [run.thread_id for run in agent.list_runs()] == ["t"]


def test_a_blank_question_sent_to_the_graph_itself_is_refused(log):
    """Item 5, the served graph's way in (a query or a chat message with nothing in it on a finished thread)."""
    from langgraph.checkpoint.memory import InMemorySaver

    from reactgraph import build_graph

    def book(room: str) -> str:
        """Book a room."""
        log.add("book", room=room)
        return f"booked {room}"

    model = ScriptedChatModel(responses=[tool_call("book", {"room": "12"}), "Booked."], repeat_last=True)
    graph = build_graph(model, [book], AgentConfig(summary_every=0), checkpointer=None).copy({"checkpointer": InMemorySaver()})
    config = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"query": "Book room 12."}, config)["final_answer"] == "Booked."
    for blank in ({"query": "  "}, {"messages": [{"role": "user", "content": " "}]}, {"query": "\ud800"}):
        with pytest.raises(InvalidInputError):
            graph.invoke(blank, config)
    assert log.calls == [("book", {"room": "12"})]


def test_a_blank_or_broken_question_from_the_cli_is_a_usage_error_and_runs_nothing(tmp_path):
    """Items 5 and 13: `reactgraph run ""` asked the thread's last question again; a question that is not UTF-8 gave
    a 27-line traceback."""
    db = tmp_path / "db.sqlite"
    first = cli("run", "Where is Paris?", "--model", MODEL, "--tools", TOOLS, "--thread", "t", db=db)
    assert first.returncode == 0, first.stderr
    for question in ("", "  ", b"caf\xe9?"):
        done = cli("run", question, "--model", MODEL, "--tools", TOOLS, "--thread", "t", db=db)
        err = done.stderr.decode()
        assert done.returncode == 2 and "Traceback" not in err, err
        assert "the question is blank" in err or "not text UTF-8 can hold" in err
    assert (tmp_path / "calls.log").read_text().split() == ["paris"]  # the tool ran once


@pytest.mark.parametrize("question", ["", " ", "lone \ud800 surrogate"])
def test_a_question_no_database_can_store_is_refused_before_it_is_queued(question):
    """Items 5 and 13: submit() was refused only by Postgres, as a CheckpointStoreError that blamed the database (and a
    blank question was queued). Nothing is connected to: the URL names no server."""
    pytest.importorskip("procrastinate")
    from reactgraph.queue import submit

    with pytest.raises(InvalidInputError):
        submit(question, "postgresql://nobody@127.0.0.1:1/nothing", model=MODEL, tools=TOOLS)


def test_a_question_with_a_lone_surrogate_is_invalid_input_on_every_path(tmp_path, log):
    """Item 13: a raw UnicodeEncodeError in Python (run, stream, fork(query=...)); nothing is stored."""
    with booking_agent(tmp_path, log, "Booked room 12.") as agent:
        agent.run("Book room 12.", thread_id="t")
        agent.run("And again?", thread_id="t")
        for attempt in (lambda: agent.run("bad \ud800"), lambda: list(agent.stream("\udcff", thread_id="t")),
                        lambda: agent.fork("t", query="x\ud800"), lambda: agent.resume("t", answer="\ud800")):
            with pytest.raises(InvalidInputError, match="not text UTF-8 can hold"):
                attempt()
        assert [run.thread_id for run in agent.list_runs()] == ["t"]
        assert len(agent.conversation("t")) == 2
