"""Models: resolving 'provider:model', the Ollama preflight, retries of transient errors, fallbacks."""

from __future__ import annotations

import http.server
import json
import re
import socket
import threading

import httpx
import pytest
from langchain_core.messages import AIMessage
from langchain_ollama import ChatOllama
from ollama import ResponseError

from reactgraph import ReActAgent
from reactgraph.config import AgentConfig, ModelSettings
from reactgraph.graph.deps import NodeDeps
from reactgraph.models.calls import ModelCallError, call_with_fallbacks, is_transient, with_retries
from reactgraph.models.resolve import ModelUnavailableError, check_ollama, resolve_model
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools.registry import ToolRegistry

FAST = AgentConfig(model_settings=ModelSettings(max_retries=2, initial_delay_seconds=1.0, max_delay_seconds=3.0))


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fake_ollama(monkeypatch):
    """A local HTTP server answering /api/tags with one pulled model; OLLAMA_HOST points at it."""

    class Tags(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]}).encode()
            self.send_response(200 if self.path == "/api/tags" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.server_port}")
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_ollama_model_gets_host_and_settings(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    cfg = AgentConfig(model_settings=ModelSettings(ollama_num_ctx=16384, temperature=0.3, ollama_keep_alive="10m", max_output_tokens=300))
    model = resolve_model("ollama:qwen2.5:7b", cfg)
    assert isinstance(model, ChatOllama)
    assert (model.model, model.base_url) == ("qwen2.5:7b", "http://gpu-box:11500")
    assert (model.num_ctx, model.num_predict, model.temperature, model.keep_alive) == (16384, 300, 0.3, "10m")


def test_default_settings_and_host(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    model = resolve_model(AgentConfig().model)
    assert (model.model, model.base_url, model.num_ctx, model.temperature) == (
        "qwen2.5:7b",
        "http://localhost:11434",
        8192,
        0.0,
    )


def test_instances_are_used_as_given_and_bad_names_refused():
    model = ScriptedChatModel(responses=["x"])
    assert resolve_model(model) is model
    with pytest.raises(ValueError, match="provider:model"):
        resolve_model("qwen2.5")


def test_other_providers_go_through_init_chat_model(monkeypatch):
    seen = []
    stand_in = ScriptedChatModel(responses=["x"])

    def init_chat_model(spec, **kwargs):
        seen.append((spec, kwargs))
        return stand_in

    monkeypatch.setattr("langchain.chat_models.init_chat_model", init_chat_model)
    assert resolve_model("openai:gpt-4o-mini", AgentConfig(temperature=0.2)) is stand_in
    assert resolve_model("openai:gpt-4o-mini", AgentConfig(temperature=None, max_output_tokens=None)) is stand_in
    assert seen == [
        ("openai:gpt-4o-mini", {"temperature": 0.2, "max_tokens": AgentConfig().max_output_tokens}),
        ("openai:gpt-4o-mini", {}),
    ]


def test_unreachable_ollama_is_reported_clearly(monkeypatch):
    port = closed_port()
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{port}")
    with pytest.raises(ModelUnavailableError) as info:
        check_ollama("qwen2.5:7b", timeout=1)
    message = str(info.value)
    assert f"http://127.0.0.1:{port}" in message and "ollama serve" in message and "OLLAMA_HOST" in message


def test_model_not_pulled_is_reported_with_the_pull_command(fake_ollama):
    with pytest.raises(ModelUnavailableError, match=r"does not have model 'qwen2.5:7b'.*`ollama pull qwen2.5:7b`"):
        check_ollama("qwen2.5:7b")
    check_ollama("llama3.2")  # pulled (as llama3.2:latest): no error


def test_agent_preflight_reports_a_missing_model_once_before_any_call(fake_ollama):
    agent = ReActAgent("ollama:qwen2.5:7b", tools=[], checkpointer=None)
    with pytest.raises(ModelUnavailableError, match="ollama pull qwen2.5:7b"):
        agent.run("hi")


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionResetError("connection reset by peer"),
        TimeoutError("read timed out"),
        httpx.ConnectError("All connection attempts failed"),
        httpx.ReadTimeout("timed out"),
        ResponseError("server overloaded", status_code=503),
        ResponseError("too many requests", status_code=429),
        RuntimeError("502 Bad Gateway"),
    ],
)
def test_transient_errors(exc):
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [ValueError("bad prompt"), ResponseError("model 'x' not found", status_code=404), KeyError("tools")],
)
def test_permanent_errors(exc):
    assert not is_transient(exc)


def flaky(failures: list[BaseException], reply: str = "ok"):
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return reply

    return call, calls


def test_transient_errors_are_retried_with_exponential_backoff():
    sleeps: list[float] = []
    call, calls = flaky([ConnectionResetError("reset"), TimeoutError("timed out")])
    assert with_retries(call, FAST, sleep=sleeps.append) == "ok"
    assert len(calls) == 3 and sleeps == [1.0, 2.0]


def test_retries_stop_after_model_retries_and_permanent_errors_are_not_retried():
    sleeps: list[float] = []
    call, calls = flaky([TimeoutError("timed out")] * 5)
    with pytest.raises(TimeoutError):
        with_retries(call, FAST, sleep=sleeps.append)
    assert len(calls) == 3 and sleeps == [1.0, 2.0]
    call, calls = flaky([ValueError("bad request")])
    with pytest.raises(ValueError):
        with_retries(call, FAST, sleep=sleeps.append)
    assert len(calls) == 1


def test_fallbacks_are_tried_in_order_when_the_primary_keeps_failing():
    broken = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(ConnectionError("down"))] * 3)
    second = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(ValueError("bad"))])
    third = ScriptedChatModel(responses=["from the third"])
    sleeps: list[float] = []
    reply = call_with_fallbacks([broken, second, third], lambda m: m.invoke("hi"), FAST, sleep=sleeps.append)
    assert reply.text == "from the third"
    assert (broken.position, second.position, third.position) == (3, 1, 1)  # retried, not retried, used
    assert sleeps == [1.0, 2.0]


def test_all_models_failing_names_every_failure():
    a = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(ValueError("first broke"))])
    b = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(KeyError("second broke"))])
    with pytest.raises(ModelCallError, match="all 2 models failed: .*first broke.*second broke"):
        call_with_fallbacks([a, b], lambda m: m.invoke("hi"), FAST, sleep=lambda s: None)


def test_fallback_names_resolve_once_after_the_primary(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:1")
    primary = ScriptedChatModel(responses=["x"])
    cfg = AgentConfig(fallback_models=("ollama:llama3.2:3b", "ollama:qwen2.5:3b"))
    deps = NodeDeps(config=AgentConfig(), registry=ToolRegistry(), model=primary)
    first, second = deps.candidates(cfg), deps.candidates(cfg)
    assert first[0] is primary and [m.model for m in first[1:]] == ["llama3.2:3b", "qwen2.5:3b"]
    assert all(a is b for a, b in zip(first, second, strict=True))


def test_a_run_survives_a_transient_model_error(math_tools, log):
    replies = iter([ConnectionResetError("connection reset by peer"), None, None])

    def maybe_fail(messages):
        if (error := next(replies)) is not None:
            raise error
        return tool_call("add", {"a": 2, "b": 3}) if len(messages) == 2 else "The sum is 5."

    model = ScriptedChatModel(responses=[maybe_fail] * 3)
    result = ReActAgent(model, math_tools, checkpointer=None, model_settings={"initial_delay_seconds": 0}).run("2+3?")
    assert result.termination_reason.value == "success" and result.final_answer == "The sum is 5."
    assert log.calls == [("add", {"a": 2, "b": 3})] and model.position == 3


def test_a_run_whose_models_all_fail_ends_with_failure_as_data(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")
    model = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(ValueError("primary is broken"))])
    agent = ReActAgent(model, [], checkpointer=None, model_settings={"fallback_models": ("ollama:tiny",), "max_retries": 0})
    result = agent.run("hi")
    assert result.termination_reason.value == "failure"
    assert "primary is broken" in result.termination_detail and "ollama" in result.termination_detail.lower()


def test_model_reply_instances_pass_through_unchanged():
    model = ScriptedChatModel(responses=[AIMessage(content="hello")])
    assert call_with_fallbacks([model], lambda m: m.invoke("hi"), FAST).text == "hello"


def test_no_retry_waits_past_the_deadline():
    import time

    sleeps: list[float] = []
    call, calls = flaky([TimeoutError("timed out")] * 5)
    with pytest.raises(TimeoutError):
        with_retries(call, FAST, deadline=time.time() + 1.5, sleep=sleeps.append)
    assert len(calls) == 2 and sleeps == [1.0]  # the second wait (2 s) would end after the deadline


def test_a_cut_call_is_neither_retried_nor_handed_to_a_fallback():
    from reactgraph.models.calls import DeadlineReached

    cut = ScriptedChatModel(responses=[lambda m: (_ for _ in ()).throw(DeadlineReached("time is up"))] * 3)
    fallback = ScriptedChatModel(responses=["too late"])
    with pytest.raises(DeadlineReached):
        call_with_fallbacks([cut, fallback], lambda m: m.invoke("hi"), FAST, sleep=lambda s: None)
    assert (cut.position, fallback.position) == (1, 0) and not is_transient(DeadlineReached("timed out"))


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-4o-mini", "OPENAI_API_KEY"),  # no key: the client refuses to start
        ("anthropic:claude-3-5-haiku-latest", "pip install langchain-anthropic"),  # no provider package
    ],
)
def test_a_model_that_cannot_be_used_fails_before_the_run(monkeypatch, tmp_path, model, expected):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ReActAgent(model, tools=[], checkpointer=tmp_path / "runs.sqlite") as agent:
        with pytest.raises(ModelUnavailableError, match=re.escape(expected)) as info:
            agent.run("hi")
        assert str(info.value).startswith(f"model {model!r} cannot be used")
        assert agent.list_runs() == []  # nothing started


def test_the_cli_reports_a_missing_key_before_the_run(monkeypatch, tmp_path, capsys):
    from reactgraph.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["run", "hi", "--model", "openai:gpt-4o-mini", "--db", str(tmp_path / "runs.sqlite")]) == 1
    err = capsys.readouterr().err
    assert "model 'openai:gpt-4o-mini' cannot be used" in err and "OPENAI_API_KEY" in err
