"""Error kinds as data: one ErrorKind enum with the texts the model sees; network failures of a
tool are network_error (transient: retried, and counted by the circuit breaker)."""

from __future__ import annotations

import errno
import socket
import urllib.error
from enum import StrEnum

import pytest

from reactgraph import ErrorKind, ReActAgent
from reactgraph.config import AgentConfig
from reactgraph.errors import error_text
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolPolicy, ToolRegistry
from reactgraph.tools.execution import execute

httpx = pytest.importorskip("httpx")
requests = pytest.importorskip("requests")


def action(tool: str, **args) -> dict:
    return {"id": "call_1", "index": 0, "tool": tool, "args": args}


def failing(error: BaseException, sleeps: list[float]) -> tuple[ToolRegistry, list[str]]:
    calls: list[str] = []

    def fetch(url: str) -> str:
        """Fetch a web page."""
        calls.append(url)
        raise error

    registry = ToolRegistry()
    registry.register(fetch, policy=ToolPolicy(sleep=sleeps.append))
    return registry, calls


def test_error_kind_is_a_str_enum_with_every_kind_in_use():
    assert issubclass(ErrorKind, StrEnum)
    assert ErrorKind.TIMEOUT == "timeout" and ErrorKind("network_error") is ErrorKind.NETWORK_ERROR
    assert {k.value for k in ErrorKind} >= {
        "tool_not_found", "invalid_parameters", "execution_failed", "timeout", "disabled", "malformed_output",
        "network_error", "empty_reply", "missing_action", "missing_thought", "non_answer",
    }


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
        ConnectionResetError("connection reset by peer"),
        socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        OSError(errno.ENETUNREACH, "Network is unreachable"),
        TimeoutError(errno.ETIMEDOUT, "Connection timed out"),
        urllib.error.URLError(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")),
        httpx.ConnectError("All connection attempts failed"),
        httpx.ReadTimeout("The read operation timed out"),
        requests.exceptions.ConnectionError("Max retries exceeded with url: /"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_connection_failure_is_network_error_and_is_retried(error):
    sleeps: list[float] = []
    registry, calls = failing(error, sleeps)
    outcome = execute(action("fetch", url="http://example.invalid"), registry, AgentConfig(max_retries=2))
    assert outcome["error_kind"] == ErrorKind.NETWORK_ERROR
    assert type(outcome["error_kind"]) is str  # a plain string in the state: checkpoints need no enum type
    assert len(calls) == 3 and sleeps == [0.1, 0.2] and outcome["retries"] == 2
    assert outcome["content"].startswith("Error (network_error) in fetch (after 2 retries): ")
    assert type(error).__name__ in outcome["content"]


@pytest.mark.parametrize(
    "error",
    [
        urllib.error.HTTPError("http://x", 404, "Not Found", {}, None),  # an answer from the server, not a failure to reach it
        OSError(errno.ENOENT, "No such file or directory"),
        ValueError("bad page"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_other_failures_stay_execution_failed(error):
    registry, calls = failing(error, [])
    outcome = execute(action("fetch", url="http://x"), registry, AgentConfig())
    assert outcome["error_kind"] == ErrorKind.EXECUTION_FAILED and len(calls) == 1


def test_the_texts_the_model_sees_come_from_the_errors_module():
    assert error_text(ErrorKind.TIMEOUT, tool="fetch", problem="no result within 2s") == (
        "Error (timeout): fetch gave no result within 2s. Try simpler arguments or another tool."
    )
    assert error_text(ErrorKind.MALFORMED_OUTPUT, problem="could not read the call") == (
        "Error (malformed_output): could not read the call."
    )
    assert error_text(ErrorKind.UNVERIFIED_ANSWER, problem="Say which tool gave it: multiply.") == (
        "Not accepted yet (unverified_answer): Say which tool gave it: multiply."  # one period, not two
    )


def test_network_errors_reach_the_trace_as_the_enum_and_trip_the_breaker(tmp_path):
    sleeps: list[float] = []
    registry, calls = failing(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), sleeps)
    turns = [tool_call("fetch", {"url": f"http://host/{n}"}, thought="Try the page.") for n in range(4)]
    model = ScriptedChatModel(responses=[*turns, "The site is down."])
    agent = ReActAgent(model, registry, checkpointer=tmp_path / "runs.sqlite", max_retries=0, allow_clarification=False, summary_every=0)
    result = agent.run("What does the page at http://host/0 say?")
    kinds = [s.observations[0].error_kind for s in result.trace.steps if s.observations]
    assert kinds == [ErrorKind.NETWORK_ERROR] * 3 + [ErrorKind.DISABLED]
    assert all(isinstance(k, ErrorKind) for k in kinds)
    assert len(calls) == 3  # the fourth call was refused: fetch was disabled after three network failures
    state = agent.graph.get_state({"configurable": {"thread_id": result.thread_id}}).values
    assert all(type(e["error_kind"]) is str for e in state["errors"])


def test_a_tools_own_timeout_is_not_a_network_error_and_an_own_retry_list_is_all_that_is_retried():
    sleeps: list[float] = []
    registry, calls = failing(TimeoutError("the bank did not confirm"), sleeps)
    outcome = execute(action("fetch", url="http://x"), registry, AgentConfig(max_retries=2))
    assert outcome["error_kind"] == ErrorKind.EXECUTION_FAILED and "could not reach" not in outcome["content"]
    calls.clear()
    registry = ToolRegistry()
    once: list[str] = []

    def pay(amount: int) -> str:
        """Pay an amount (must not run twice)."""
        once.append("paid")
        raise ConnectionResetError("connection reset by peer")

    registry.register(pay, policy=ToolPolicy(retryable_errors=(), sleep=sleeps.append))
    outcome = execute(action("pay", amount=5), registry, AgentConfig(max_retries=3))
    assert outcome["error_kind"] == ErrorKind.NETWORK_ERROR and once == ["paid"]  # no retry: the tool said so
