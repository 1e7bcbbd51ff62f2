"""MCP server configs: the adapters' connections and the common `mcpServers` files, read into
connections without starting any server; what a bad config or a missing extra says."""

from __future__ import annotations

import json
import sys

import pytest

from reactgraph.tools.mcp import MCPConfigError, MCPUnavailableError, load_mcp_tools, mcp_connections


def test_an_mcp_servers_file_becomes_connections(tmp_path):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"TOKEN": "x"}, "autoApprove": ["read"]},
        "weather": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
        "events": {"type": "sse", "url": "https://example.com/sse"},
        "remote": {"type": "http", "url": "https://example.com/mcp2"},
        "off": {"command": "old-server", "disabled": True},
    }}))
    assert mcp_connections(path) == {
        "files": {"transport": "stdio", "command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"TOKEN": "x"}},
        "weather": {"transport": "streamable_http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
        "events": {"transport": "sse", "url": "https://example.com/sse"},
        "remote": {"transport": "streamable_http", "url": "https://example.com/mcp2"},
    }


def test_the_adapters_connections_are_taken_as_they_are():
    given = {
        "math": {"transport": "stdio", "command": "python", "args": ["math.py"], "cwd": "/srv"},
        "web": {"transport": "streamable_http", "url": "http://localhost:8000/mcp", "timeout": 10},
        "bare": {"command": "tool-server"},
    }
    assert mcp_connections(given) == {**given, "bare": {"transport": "stdio", "command": "tool-server", "args": []}}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[1, 2]", "an object of servers"),
        ("{", "not valid JSON"),
        ('{"mcpServers": {}}', "no MCP servers"),
        ('{"a": {"args": ["x"]}}', "server 'a': give a command (stdio) or a url"),
        ('{"a": "python server.py"}', "server 'a': give an object (command, args, env, or url), not str"),
        ('{"a": {"transport": "carrier-pigeon", "url": "x"}}', "server 'a': unknown transport 'carrier-pigeon'"),
        ('{"a": {"command": "x", "args": "--flag"}}', "server 'a': args must be a list of strings"),
    ],
)
def test_a_bad_config_says_what_is_wrong(tmp_path, config, message):
    path = tmp_path / "servers.json"
    path.write_text(config)
    with pytest.raises(MCPConfigError, match="servers.json") as caught:
        mcp_connections(path)
    assert message in str(caught.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(MCPConfigError, match=r"nothing\.json: no such file"):
        mcp_connections(tmp_path / "nothing.json")


def test_without_the_mcp_extra_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)  # as if it were not installed
    with pytest.raises(MCPUnavailableError, match=r"pip install 'reactgraph\[mcp\]'"):
        load_mcp_tools({"a": {"command": "x"}})


def test_a_server_that_exits_at_once_reads_the_same_whichever_error_wins_the_race():
    """The MCP client's "Connection closed" or anyio's error for the pipe written first: a loaded machine gave both
    for the same server (issue 42's flake), and both say the server closed its output."""
    import anyio

    from reactgraph.tools.mcp import _reason

    raced = [ExceptionGroup("x", [anyio.BrokenResourceError()]), ExceptionGroup("x", [RuntimeError("Connection closed")]),
             ExceptionGroup("x", [anyio.ClosedResourceError(), RuntimeError("Connection closed")])]
    assert {_reason(e, 30) for e in raced} == {"Connection closed: the server exited or closed its output before it answered (its stderr says why)"}
    assert _reason(ExceptionGroup("x", [OSError("No such file")]), 30) == "OSError: No such file"
