"""MCP tools: the tools of MCP servers as LangChain tools, through langchain-mcp-adapters
(``pip install 'reactgraph[mcp]'``).

    tools = load_mcp_tools("servers.json")        # or a dict; `await aload_mcp_tools(...)` in async code
    agent = ReActAgent(model, tools=tools)

``servers`` is a dict, or the path of a JSON file, in either shape:

- the adapters' connections, taken as given (any transport and option of ``MultiServerMCPClient``):
  ``{"math": {"transport": "stdio", "command": "python", "args": ["math.py"]}}``;
- the ``mcpServers`` config of Claude Desktop, Cursor and others: ``{"mcpServers": {"files": {"command":
  "npx", "args": [...], "env": {...}}, "web": {"url": "https://host/mcp", "headers": {...}}}}``. A
  ``command`` runs the server over stdio, a ``url`` reaches it over streamable HTTP (``"type": "sse"``
  for SSE); other keys (other clients' settings) are ignored; a server with ``"disabled": true`` is left out.

Each call opens its own session (a stdio server is started for the call and stopped after it), so
the tools hold no connection: they run in any thread and event loop, under reactgraph's timeout. An
error the server reports raises (an execution_failed observation), instead of coming back as output.

Logs: with ``stderr=PATH`` (the ``reactgraph`` command passes ``mcp.log`` beside the checkpoint file), what stdio
servers write to their stderr (their own log lines) is appended to that file instead of the terminal, where it
would break into the live view; an error of a server that does not start quotes the file's last lines.

Names: a tool keeps its server's name for it (characters other than letters, digits, ``_`` and ``-``
become ``_``, as chat model APIs require); when two servers offer the same name, both are named
``<server>_<tool>`` (with ``prefix=True``, every tool is). ``tool.metadata["mcp_server"]`` names the server.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import re
import shlex
import shutil
import threading
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool

from reactgraph.errors import MissingExtraError
from reactgraph.tools.content import exception_text, leaves
from reactgraph.tools.isolation.reference import IN_PROCESS

INSTALL = "pip install 'reactgraph[mcp]'"
TRANSPORTS = ("stdio", "sse", "streamable_http", "streamable-http", "http", "websocket")
FILE_TYPES = {"stdio": "stdio", "sse": "sse", "http": "streamable_http", "streamable_http": "streamable_http",
              "streamable-http": "streamable_http"}  # "type" in mcpServers configs -> the adapters' transport
FILE_KEYS = {"stdio": ("command", "args", "env", "cwd"), "url": ("url", "headers")}  # what those configs carry

Servers = Mapping[str, Any] | str | os.PathLike[str]


class MCPConfigError(ValueError):
    """The MCP servers config cannot be read; the message names the file and the server."""


class MCPServerError(RuntimeError):
    """An MCP server did not start or did not list its tools."""


class MCPUnavailableError(MissingExtraError):
    """langchain-mcp-adapters (or mcp) is not installed."""


def load_mcp_tools(
    servers: Servers, *, prefix: bool = False, timeout: float = 30.0, stderr: str | os.PathLike[str] | None = None
) -> list[BaseTool]:
    """The tools of every server in ``servers`` (see the module), each server given ``timeout``
    seconds to start and list its tools; ``stderr``: a file for what stdio servers write to their stderr
    (default: the terminal's). It returns within ``timeout``, a server that did not answer being stopped in the
    background (the MCP shutdown: its stdin closed, then SIGTERM, then SIGKILL; the process's exit waits for it).
    In async code, ``await aload_mcp_tools(...)``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("load_mcp_tools cannot run inside a running event loop: use `await aload_mcp_tools(...)`")
    box: dict[str, Any] = {}
    loaded = threading.Event()

    async def load() -> None:
        try:
            box["tools"] = await aload_mcp_tools(servers, prefix=prefix, timeout=timeout, stderr=stderr)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            loaded.set()  # asyncio.run then stops the servers that did not answer, in this thread

    loader = threading.Thread(target=asyncio.run, args=(load(),), name="mcp-load", daemon=True)
    loader.start()
    _LOADERS.append(loader)
    loaded.wait()
    if "error" in box:
        raise box["error"]
    return box["tools"]


async def aload_mcp_tools(
    servers: Servers, *, prefix: bool = False, timeout: float = 30.0, stderr: str | os.PathLike[str] | None = None
) -> list[BaseTool]:
    """``load_mcp_tools`` for async code: returns within ``timeout``; a server that did not answer is stopped by
    its task, cancelled and left to finish on the running loop."""
    connections = mcp_connections(servers)
    try:
        from langchain_mcp_adapters.client import MultiServerMCPClient
    except ImportError as exc:
        raise MCPUnavailableError(f"MCP tools need langchain-mcp-adapters and mcp ({exc}): {INSTALL}") from None
    addresses = {name: _address(connection) for name, connection in connections.items()}
    log = Path(stderr) if stderr is not None and os.name == "posix" else None
    if log is not None:
        connections = {name: _logged(name, connection, log, addresses[name]) for name, connection in connections.items()}
    # an error result raises, not returns; the connections are the adapter's Connection dicts (mcp_connections checks them)
    client = MultiServerMCPClient(connections, handle_tool_errors=False)  # type: ignore[arg-type]
    tasks = [asyncio.ensure_future(client.get_tools(server_name=name)) for name in connections]
    await asyncio.wait(tasks, timeout=timeout)
    loaded: list[Any] = []
    for task in tasks:
        if not task.done():
            task.cancel()  # not waited for: the MCP shutdown of its server takes seconds more
            loaded.append(asyncio.TimeoutError())
        else:
            loaded.append(task.exception() or task.result())
    failed = [
        f"MCP server {name!r} ({addresses[name]}) did not start: {_reason(result, timeout)}"
        for name, result in zip(connections, loaded, strict=True)
        if isinstance(result, BaseException)
    ]
    if failed:
        said = _tail(log) if log is not None else ""
        raise MCPServerError("; ".join(failed) + (f"; the end of its stderr ({log}): {said}" if said else ""))
    named = {server: [(_safe(tool.name), tool) for tool in tools] for server, tools in zip(connections, loaded, strict=True)}
    counts = Counter(name for tools in named.values() for name, _ in tools)
    return [
        tool.model_copy(update={
            "name": f"{_safe(server)}_{name}" if prefix or counts[name] > 1 else name,
            "metadata": {**(tool.metadata or {}), "mcp_server": server, IN_PROCESS: "it is an MCP tool (its server is a "
                         "process of its own; its client session lives in the agent's)"},
        })
        for server, tools in named.items()
        for name, tool in tools
    ]


_LOADERS: list[threading.Thread] = []  # sync loads whose servers may still be stopping


@atexit.register
def _stopped_servers(limit: float = 10.0) -> None:
    """At exit, wait (up to ``limit`` seconds) for the servers of timed-out loads to be stopped: none is left running."""
    deadline = time.monotonic() + limit
    for loader in _LOADERS:
        loader.join(max(0.0, deadline - time.monotonic()))


def mcp_connections(servers: Servers) -> dict[str, dict[str, Any]]:
    """The adapters' connections for ``servers`` (a dict, or a JSON file's path, in either shape)."""
    where = "MCP config"
    if isinstance(servers, Mapping):
        data: Any = dict(servers)
    else:
        path = Path(servers)
        where = f"MCP config {path}"
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise MCPConfigError(f"{where}: no such file") from None
        except json.JSONDecodeError as exc:
            raise MCPConfigError(f"{where}: not valid JSON ({exc})") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise MCPConfigError(f"{where}: cannot be read ({exception_text(exc)})") from None
    entries = data.get("mcpServers", data) if isinstance(data, dict) else data
    if not isinstance(entries, dict):
        raise MCPConfigError(f'{where}: give an object of servers, such as {{"mcpServers": {{"name": {{"command": ...}}}}}}')
    connections = {}
    for name, entry in entries.items():
        if (found := _connection(entry, f"{where}: server {name!r}")) is not None:
            connections[name] = found
    if not connections:
        raise MCPConfigError(f'{where}: no MCP servers in it (give {{"mcpServers": {{"name": {{"command": ...}}}}}})')
    return connections


def _connection(entry: Any, where: str) -> dict[str, Any] | None:
    """One server's connection; None for a disabled server."""
    if not isinstance(entry, dict):
        raise MCPConfigError(f"{where}: give an object (command, args, env, or url), not {type(entry).__name__}")
    if entry.get("disabled") is True:
        return None
    if "transport" in entry:  # the adapters' own shape
        found, transport = {key: value for key, value in entry.items() if key != "disabled"}, entry["transport"]
        if transport not in TRANSPORTS:
            raise MCPConfigError(f"{where}: unknown transport {transport!r} (one of {', '.join(TRANSPORTS)})")
    else:  # an mcpServers entry: its type, else what it gives
        kind = entry.get("type")
        transport = FILE_TYPES.get(kind) if kind is not None else "stdio" if "command" in entry else "streamable_http"
        if transport is None:
            raise MCPConfigError(f"{where}: unknown type {kind!r} (one of {', '.join(FILE_TYPES)})")
        keys = FILE_KEYS["stdio" if transport == "stdio" else "url"]
        found = {"transport": transport, **{key: entry[key] for key in keys if key in entry}}
    if transport == "stdio":
        if not isinstance(found.get("command"), str) or not found["command"]:
            raise MCPConfigError(f"{where}: give a command (stdio) or a url")
        found.setdefault("args", [])
        if not (isinstance(found["args"], list) and all(isinstance(a, str) for a in found["args"])):
            raise MCPConfigError(f"{where}: args must be a list of strings")
        if not isinstance(found.get("env") or {}, dict):
            raise MCPConfigError(f"{where}: env must be an object of names and values")
    elif not isinstance(found.get("url"), str) or not found["url"]:
        raise MCPConfigError(f"{where}: give a command (stdio) or a url")
    return found


def _address(connection: Mapping[str, Any]) -> str:
    """How a server is reached: its command line, or its URL."""
    if connection["transport"] == "stdio":
        return shlex.join([connection["command"], *connection["args"]])
    return str(connection["url"])


def _logged(name: str, connection: dict[str, Any], log: Path, address: str) -> dict[str, Any]:
    """A stdio server started through ``/bin/sh`` with its stderr appended to ``log`` (other transports as given);
    a command that is not there is an MCPServerError now, saying so."""
    if connection["transport"] != "stdio":
        return connection
    command = connection["command"]
    if connection.get("cwd") is None and shutil.which(command) is None:  # sh would only say so in the log
        raise MCPServerError(f"MCP server {name!r} ({address}) did not start: no command {command!r} (not a file, nor on PATH)")
    log.parent.mkdir(parents=True, exist_ok=True)
    return connection | {"command": "/bin/sh", "args": ["-c", 'exec "$@" 2>>"$0"', str(log), command, *connection["args"]]}


def _tail(log: Path, lines: int = 3) -> str:
    """The last lines of ``log`` (what a server that failed wrote last), on one line."""
    try:
        kept = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return " | ".join(kept[-lines:])


def _reason(exc: BaseException, timeout: float) -> str:
    """Why a server failed, from the exceptions inside the task groups the MCP client raises."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g}s"
    return "; ".join(dict.fromkeys(CLOSED if _closed(leaf) else exception_text(leaf) for leaf in leaves(exc)))


# A server that exits at once surfaces as the MCP client's "Connection closed", or as anyio's error for the pipe it
# wrote to first: which one is a race (a loaded machine showed both), so both read the same.
CLOSED = "Connection closed: the server exited or closed its output before it answered (its stderr says why)"
PIPE_ERRORS = frozenset({"BrokenResourceError", "ClosedResourceError", "EndOfStream"})


def _closed(exc: BaseException) -> bool:
    return type(exc).__name__ in PIPE_ERRORS or str(exc).strip() == "Connection closed"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)
