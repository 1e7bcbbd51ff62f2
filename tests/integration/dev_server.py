"""Start and stop the real `langgraph dev` server for a test, on a free port (tests/integration/test_server.py,
tests/browser/test_chat_ui.py)."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from reactgraph import server as served

FIXTURE = Path(__file__).resolve().parent / "server_fixture"

_spec = importlib.util.spec_from_file_location("scripted_graph", FIXTURE / "scripted_graph.py")
scripted = importlib.util.module_from_spec(_spec)  # the questions the fixture's model understands
_spec.loader.exec_module(scripted)

STARTUP_SECONDS = 90  # generous: the machine is shared; a healthy start takes a few seconds
STOP_SECONDS = 15
HTTP_SECONDS = 60  # every SDK request, and every read of a stream
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Server:
    url: str
    log: Path
    process: subprocess.Popen

    def log_text(self) -> str:
        return ANSI.sub("", self.log.read_text(errors="replace"))

    def client(self) -> SyncLangGraphClient:
        return get_sync_client(url=self.url, api_key=None, timeout=HTTP_SECONDS)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env() -> dict[str, str]:
    """No browser, no network: no CLI analytics, no version check, no LangSmith tracing."""
    env = dict(os.environ)
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        PYTHONUNBUFFERED="1",
    )
    env.pop(served.FILES_ROOT_ENV, None)
    env.pop("OPENAI_API_KEY", None)
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing answers: the default model cannot be used
    return env


def _is_up(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def serve(config_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Start `langgraph dev` in ``config_dir`` (where its langgraph.json is), yield it once up, stop it."""
    langgraph = Path(sys.executable).with_name("langgraph")
    log = tmp_path_factory.mktemp("langgraph-dev") / "server.log"
    port = free_port()
    command = [str(langgraph), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=config_dir, env=_server_env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(url=f"http://127.0.0.1:{port}", log=log, process=process)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _is_up(server.url):
            if process.poll() is not None:
                pytest.fail(f"`langgraph dev` in {config_dir} exited with {process.returncode}:\n{server.log_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"`langgraph dev` in {config_dir} was not up within {STARTUP_SECONDS}s:\n{server.log_text()}")
            time.sleep(0.2)
            # The CLI moves to another port when ours was taken meanwhile; it prints the one it uses.
            if found := re.search(r"API: (http://\S+)", server.log_text()):
                server.url = found[1]
        yield server
    finally:
        stop(process)


def stop(process: subprocess.Popen) -> None:
    """Stop the server we started (its own process group: the CLI and its children)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_SECONDS)
