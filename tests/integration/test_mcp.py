"""MCP tools end to end: a real MCP server (tests/integration/mcp_server.py, FastMCP over stdio)
loaded with reactgraph.tools.load_mcp_tools and called by the agent on a scripted model."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reactgraph import ReActAgent
from reactgraph import TerminationReason as R
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import MCPServerError, aload_mcp_tools, load_mcp_tools
from reactgraph.tools.content import to_text
from reactgraph.tools.specs import tool_specs

SERVER = Path(__file__).with_name("mcp_server.py")


@pytest.fixture
def calls(tmp_path) -> Path:
    """The file where the server logs every call it ran."""
    return tmp_path / "calls.log"


@pytest.fixture
def servers(calls) -> dict:
    return {"calc": {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_LOG": str(calls)}}}


def ran(calls: Path) -> list[str]:
    return calls.read_text().splitlines() if calls.exists() else []


def run(tools, script, question="Work with the MCP tools.", **options):
    agent = ReActAgent(model=ScriptedChatModel(responses=script), tools=tools, summary_every=0, allow_clarification=False, **options)
    return agent.run(question)


def test_loads_the_servers_tools_with_their_json_schemas(servers):
    tools = load_mcp_tools(servers)
    assert [t.name for t in tools] == ["add", "note", "fail", "chart", "slow"]
    assert all(t.metadata["mcp_server"] == "calc" for t in tools)
    add = tool_specs(tools)[0]
    assert (add.name, add.description, add.params, add.required, add.types) == (
        "add", "Add two integers.", ("a", "b"), ("a", "b"), ("integer", "integer")
    )


def test_the_agent_calls_both_tools_and_sees_plain_text(servers, calls):
    tools = load_mcp_tools(servers)
    result = run(tools, [
        tool_call("add", {"a": 2, "b": 3}, thought="Add first."),
        tool_call("note", {"text": "the sum is 5"}, thought="Write it down."),
        "The sum is 5, and it is noted.",
    ], "Add 2 and 3, then note the sum.")
    assert result.termination_reason is R.SUCCESS
    steps = result.trace.steps[:-1]
    assert [(a.tool, a.args) for s in steps for a in s.actions] == [("add", {"a": 2, "b": 3}), ("note", {"text": "the sum is 5"})]
    assert [(o.status, o.content) for s in steps for o in s.observations] == [("ok", "5"), ("ok", "noted: the sum is 5")]
    assert ran(calls) == ['add {"a": 2, "b": 3}', 'note {"text": "the sum is 5"}']


def test_a_bad_call_is_invalid_parameters_never_reaches_the_server_and_does_not_trip_the_breaker(servers, calls):
    tools = load_mcp_tools(servers)
    result = run(tools, [
        tool_call("add", {"a": 2}, thought="Forgot b."),
        tool_call("add", {"a": "two", "b": 3}, thought="A word for a number."),
        tool_call("add", {"a": 2, "b": 3, "c": 4}, thought="One too many."),
        tool_call("add", {"a": 2, "b": 3}, thought="Right."),
        "5",
    ], "What is 2 + 3?", max_tool_failures=1)
    assert result.termination_reason is R.SUCCESS and result.final_answer == "5"
    missing, wrong_type, extra, good = (s.observations[0] for s in result.trace.steps[:4])
    for bad in (missing, wrong_type, extra):
        assert bad.error_kind == "invalid_parameters"
        assert "Expected arguments: a: integer, b: integer" in bad.content
    assert "'b' is a required property" in missing.content
    assert "a: 'two' is not of type 'integer'" in wrong_type.content
    assert "unexpected argument 'c'" in extra.content
    assert (good.status, good.content) == ("ok", "5")  # one failure would have disabled add: none was counted
    assert ran(calls) == ['add {"a": 2, "b": 3}']


def test_a_call_written_as_text_reaches_the_server_with_numbers(servers, calls):
    """The text format reads `add[2, 3]` as text inputs; the JSON schema says they are integers."""
    result = run(load_mcp_tools(servers), ["Thought: add them\nAction: add[2, 3]", "Final Answer: 5"], "What is 2 + 3?", tool_calling="text")
    assert result.trace.steps[0].observations[0].content == "5"
    assert ran(calls) == ['add {"a": 2, "b": 3}']


def test_an_error_in_the_server_is_an_error_observation_and_the_run_goes_on(servers, calls):
    tools = load_mcp_tools(servers)
    result = run(tools, [
        tool_call("fail", {"reason": "disk full"}),
        tool_call("add", {"a": 1, "b": 1}),
        "2",
    ], 'Make the server fail with "disk full", then add 1 and 1.')
    assert result.termination_reason is R.SUCCESS
    failed, added = (s.observations[0] for s in result.trace.steps[:2])
    assert failed.error_kind == "execution_failed" and "disk full" in failed.content
    assert not failed.content.startswith("[{")  # the server's message, not the JSON of its content blocks
    assert (added.status, added.content) == ("ok", "2")
    assert ran(calls) == ['fail {"reason": "disk full"}', 'add {"a": 1, "b": 1}']


def test_an_image_is_described_beside_the_text(servers):
    result = run(load_mcp_tools(servers), [tool_call("chart"), "done"])
    assert result.trace.steps[0].observations[0].content == "sales by month\n[image: image/png, 32 bytes]"


def test_a_call_over_its_time_is_a_timeout_and_the_next_call_works(servers, calls):
    # 10 s: each call starts its server; under CI's load the add call's start passed a 3 s budget once
    result = run(load_mcp_tools(servers), [tool_call("slow", {"seconds": 60}), tool_call("add", {"a": 4, "b": 5}), "9"],
                 "Wait 60 seconds, then add 4 and 5.", tool_execution={"timeout_seconds": 10})
    timed_out, added = (s.observations[0] for s in result.trace.steps[:2])
    assert timed_out.error_kind == "timeout"
    assert (added.status, added.content) == ("ok", "9")
    assert ran(calls) == ['slow {"seconds": 60.0}', 'add {"a": 4, "b": 5}']


def test_a_claude_desktop_config_file_is_read(tmp_path, servers, calls):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    (add,) = [t for t in load_mcp_tools(path) if t.name == "add"]
    assert to_text(asyncio.run(add.ainvoke({"a": 20, "b": 22}))) == "42"
    assert ran(calls) == ['add {"a": 20, "b": 22}']


def test_names_two_servers_share_get_their_servers_name(servers):
    both = {"left": servers["calc"], "right": servers["calc"]}
    names = [t.name for t in load_mcp_tools(both)]
    assert names[:2] == ["left_add", "left_note"] and "right_add" in names and "add" not in names
    assert [t.name for t in load_mcp_tools(servers, prefix=True)][:2] == ["calc_add", "calc_note"]


@pytest.mark.parametrize(
    ("connection", "message"),
    [
        ({"command": "/no/such/command", "args": []}, "MCP server 'broken' (/no/such/command) did not start"),
        ({"command": sys.executable, "args": ["-c", "import sys; sys.exit(2)"]}, "Connection closed"),
    ],
)
def test_a_server_that_does_not_start_is_a_clear_error(connection, message):
    with pytest.raises(MCPServerError, match=r"MCP server 'broken'") as caught:
        load_mcp_tools({"broken": connection})
    assert message in str(caught.value)


def test_the_sync_loader_inside_an_event_loop_points_to_the_async_one(servers):
    async def main():
        with pytest.raises(RuntimeError, match="aload_mcp_tools"):
            load_mcp_tools(servers)
        return await aload_mcp_tools(servers)

    assert [t.name for t in asyncio.run(main())][0] == "add"


# -- the command line ----------------------------------------------------------------------

ROOT = Path(__file__).parents[2]
REACTGRAPH = Path(sys.executable).with_name("reactgraph")
FIXTURES = "tests.integration.cli_fixtures"


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([str(REACTGRAPH), *args], capture_output=True, text=True, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=120)


@pytest.fixture
def servers_file(tmp_path, servers) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_run_with_mcp_servers_calls_their_tools(tmp_path, servers_file, calls):
    done = cli("run", "Add 1234 and 4321", "--mcp", str(servers_file), "--tools", "calculator",
               "--model", f"{FIXTURES}:adding", "--db", str(tmp_path / "db.sqlite"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert '  -> add {"a": 1234, "b": 4321}' in lines and "  <- add: 5555" in lines
    assert "Answer: 1234 + 4321 = 5555." in lines
    assert ran(calls) == ['add {"a": 1234, "b": 4321}']


def test_a_servers_own_stderr_goes_to_its_log_not_the_live_view(tmp_path, servers, calls):
    servers["calc"]["env"]["MCP_TEST_SAY"] = "calc server: INFO listening on stdio"
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers | {"broken": {"command": sys.executable, "args": ["-c", (
        "import sys; print('broken server: cannot open its config', file=sys.stderr); sys.exit(2)")]}}}))
    done = cli("run", "Add 1234 and 4321", "--mcp", str(path), "--model", f"{FIXTURES}:adding", "--db", str(tmp_path / "db.sqlite"))
    assert done.returncode == 1
    assert "broken server: cannot open its config" in done.stderr  # quoted in the error, from the log
    assert f"the end of its stderr ({tmp_path / 'mcp.log'})" in done.stderr
    path.write_text(json.dumps({"mcpServers": servers}))
    done = cli("run", "Add 1234 and 4321", "--mcp", str(path), "--model", f"{FIXTURES}:adding", "--db", str(tmp_path / "db.sqlite"))
    assert done.returncode == 0, done.stderr
    assert "calc server" not in done.stdout + done.stderr
    assert "calc server: INFO listening on stdio" in (tmp_path / "mcp.log").read_text()  # beside the checkpoint file


def test_resume_keeps_the_runs_mcp_servers(tmp_path, servers_file, calls):
    db = str(tmp_path / "db.sqlite")
    asked = cli("run", "Add two numbers", "--mcp", str(servers_file), "--model", f"{FIXTURES}:asking_then_adding", "--db", db, "--thread", "m1")
    assert asked.returncode == 3, asked.stderr
    answered = cli("resume", "m1", "--answer", "1234 and 4321", "--db", db)  # no --mcp: the run's servers
    assert answered.returncode == 0, answered.stderr
    assert "Answer: 1234 + 4321 = 5555." in answered.stdout
    assert ran(calls) == ['add {"a": 1234, "b": 4321}']


def test_tools_lists_the_mcp_tools_by_server(servers_file):
    done = cli("tools", "--mcp", str(servers_file), "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert (rows["add"]["category"], rows["add"]["description"]) == ("mcp:calc", "Add two integers.")
    assert rows["calculator"]["category"] == "basic"


@pytest.mark.parametrize(
    ("config", "code", "message"),
    [
        (None, 2, "reactgraph: usage error: MCP config {path}: no such file"),
        ("{not json", 2, "reactgraph: usage error: MCP config {path}: not valid JSON"),
        ('{"broken": {"command": "/no/such/command"}}', 1, "reactgraph: MCP server 'broken' (/no/such/command) did not start"),
    ],
)
def test_a_bad_mcp_config_or_server_is_a_clear_error(tmp_path, config, code, message):
    path = tmp_path / "servers.json"
    if config is not None:
        path.write_text(config)
    done = cli("run", "q", "--mcp", str(path), "--model", f"{FIXTURES}:adding", "--db", str(tmp_path / "db.sqlite"))
    assert done.returncode == code
    assert message.format(path=path) in done.stderr
    assert "Traceback" not in done.stderr
