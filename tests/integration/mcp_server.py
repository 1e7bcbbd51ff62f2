"""A real MCP server (the `mcp` SDK's FastMCP over stdio) for the MCP tests.

    python tests/integration/mcp_server.py        # speaks MCP on stdin/stdout

With MCP_TEST_SAY set, it first writes that text to its stderr. Every call is appended to the file named by MCP_TEST_LOG as ``tool {"arg": value}``, so a test
sees which tools ran with which arguments (a call refused before it reached the server is not there).
"""

from __future__ import annotations

import json
import os
import sys
import time

from mcp.server.fastmcp import FastMCP, Image

LOG = "MCP_TEST_LOG"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24  # 32 bytes that start like a PNG

server = FastMCP("reactgraph-test", log_level="WARNING")


def logged(tool: str, **args: object) -> None:
    if path := os.environ.get(LOG):
        with open(path, "a") as f:
            f.write(f"{tool} {json.dumps(args, sort_keys=True)}\n")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    logged("add", a=a, b=b)
    return a + b


@server.tool()
def note(text: str) -> str:
    """Write a note to the log."""
    logged("note", text=text)
    return f"noted: {text}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails, with the given reason."""
    logged("fail", reason=reason)
    raise RuntimeError(reason)


@server.tool()
def chart() -> list:
    """A caption and a small PNG image."""
    logged("chart")
    return ["sales by month", Image(data=PNG, format="png")]


@server.tool()
def slow(seconds: float) -> str:
    """Sleep for a while, then answer."""
    logged("slow", seconds=seconds)
    time.sleep(seconds)
    return "awake"


if __name__ == "__main__":
    if say := os.environ.get("MCP_TEST_SAY"):  # a server that logs to its stderr, as many do
        print(say, file=sys.stderr, flush=True)
    server.run()
