"""The default model follows what the machine has (models.resolve.default_model): the default when Ollama has it,
else a pulled model that calls tools, said so; a model the user named is never replaced, and when it is missing
the error lists what is pulled and the exact --model to use."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from reactgraph import ReActAgent
from reactgraph.agent._preparing import RUN_OVERRIDES
from reactgraph.cli import main
from reactgraph.config import DEFAULT_MODEL
from reactgraph.models.resolve import ModelUnavailableError, check_ollama, default_model
from tests.fake_ollama import FakeOllama, serving

DEFAULT = DEFAULT_MODEL.removeprefix("ollama:")


@pytest.fixture
def ollama(monkeypatch):
    """Start a FakeOllama with the models given, OLLAMA_HOST pointing at it."""
    started = []

    def start(models: dict[str, list[str] | None]) -> FakeOllama:
        context = serving(FakeOllama(models))
        fake = context.__enter__()
        started.append(context)
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        return fake

    yield start
    for context in started:
        context.__exit__(None, None, None)


def test_the_default_is_used_when_ollama_has_it(ollama, caplog):
    fake = ollama({"qwen2.5-coder:1.5b": ["completion", "tools"], DEFAULT: ["completion", "tools"]})
    assert default_model() == DEFAULT_MODEL
    result = ReActAgent(tools=[], checkpointer=None).run("What is 6*7?")
    assert result.final_answer == "42" and fake.asked == [DEFAULT]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_without_the_default_a_pulled_model_that_calls_tools_answers_and_the_user_is_told(ollama, caplog):
    fake = ollama({"nomic-embed-text:latest": ["embedding"], "gemma:2b": ["completion"], "llama3.2:3b": ["completion", "tools"]})
    agent = ReActAgent(tools=[])
    with caplog.at_level(logging.WARNING, logger="reactgraph.models.resolve"):
        result = agent.run("What is 6*7?", thread_id="picked")
    assert result.final_answer == "42" and fake.asked == ["llama3.2:3b"]
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"the default model {DEFAULT_MODEL} is not pulled at {fake.url}; using ollama:llama3.2:3b" in warning
    assert "--model" in warning and f"ollama pull {DEFAULT}" in warning
    # the run keeps the model it was given: a resume goes on with the same one
    assert json.loads(agent.run_info("picked").metadata[RUN_OVERRIDES])["model"] == "ollama:llama3.2:3b"
    agent.run("And 7*8?", thread_id="picked")
    assert fake.asked == ["llama3.2:3b"] * 2 and len(caplog.records) == 1  # found once per agent


def test_an_endpoint_that_reports_no_capabilities_offers_its_chat_models(ollama):
    ollama({"all-minilm-embed:latest": None, "qwen2.5-coder:1.5b": None})  # as the local model shim serves it
    assert default_model() == "ollama:qwen2.5-coder:1.5b"


def test_with_no_model_that_calls_tools_the_error_lists_what_is_pulled(ollama):
    fake = ollama({"nomic-embed-text:latest": ["embedding"], "gemma:2b": ["completion"]})
    with pytest.raises(ModelUnavailableError) as info:
        ReActAgent(tools=[], checkpointer=None).run("hi")
    assert str(info.value) == (
        f"Ollama at {fake.url} does not have model '{DEFAULT}'; it has nomic-embed-text:latest, "
        f"gemma:2b, none of which calls tools. Pull it with `ollama pull {DEFAULT}`."
    )


def test_a_named_model_is_never_replaced_and_its_error_gives_the_exact_model_option(ollama):
    fake = ollama({"llama3.2:3b": ["completion", "tools"]})
    with pytest.raises(ModelUnavailableError) as info:
        ReActAgent(model="ollama:mistral:7b", tools=[], checkpointer=None).run("hi")
    assert str(info.value) == (
        f"Ollama at {fake.url} does not have model 'mistral:7b'; it has llama3.2:3b. Use one with --model "
        "ollama:llama3.2:3b (model='ollama:llama3.2:3b' in Python), or pull it with `ollama pull mistral:7b`."
    )
    with pytest.raises(ModelUnavailableError, match=f"does not have model '{DEFAULT}'"):  # named, though the default
        ReActAgent(model=DEFAULT_MODEL, tools=[], checkpointer=None).run("hi")
    assert fake.asked == []


def test_nothing_pulled_says_to_pull_or_choose_another_provider(ollama):
    ollama({})
    with pytest.raises(ModelUnavailableError, match=r"nor any other\. Pull it with `ollama pull .*--model provider:model"):
        check_ollama(DEFAULT)


def test_the_command_line_answers_with_the_pulled_model_and_says_which(ollama, capsys, tmp_path):
    fake = ollama({"qwen2.5-coder:1.5b": None})
    code = main(["run", "What is 6*7?", "--tools", "calculator", "--db", str(tmp_path / "runs.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0 and "Answer: 42" in out and fake.asked == ["qwen2.5-coder:1.5b"] * 2  # 42 with no call: checked once
    assert "using ollama:qwen2.5-coder:1.5b" in err


def test_the_served_graph_runs_a_context_without_a_model_on_the_pulled_one(ollama):
    sdk_runtime = pytest.importorskip("langgraph_sdk.runtime")
    from langgraph.store.memory import InMemoryStore

    from reactgraph import server

    ollama({"llama3.2:3b": ["completion", "tools"]})
    run = sdk_runtime._ExecutionRuntime(access_context="threads.create_run", store=InMemoryStore(), context={"max_iterations": 3})
    graph = asyncio.run(server.serve(run))
    assert graph is not server.graph and graph.invoke({"query": "What is 6*7?"})["final_answer"] == "42"
    named = sdk_runtime._ExecutionRuntime(access_context="threads.create_run", store=InMemoryStore(), context={"model": "ollama:llama3.2:3b"})
    assert asyncio.run(server.serve(named)) is server.graph  # a named model runs on the served graph as it is


def test_the_compiled_graph_with_no_model_given_picks_the_pulled_one_as_run_does(ollama, monkeypatch):
    from langchain_core.messages import HumanMessage

    fake = ollama({"llama3.2:3b": ["completion", "tools"]})
    agent = ReActAgent(tools=[], checkpointer=None)
    state = agent.graph.invoke({"messages": [HumanMessage("What is 6*7?")]}, {"configurable": {"thread_id": "g"}})
    assert (state["final_answer"], state["termination"]["reason"]) == ("42", "success") and fake.asked == ["llama3.2:3b"]
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing answers: loud, before any model call
    with pytest.raises(ModelUnavailableError, match="Ollama is not reachable"):
        ReActAgent(tools=[], checkpointer=None).graph.invoke({"messages": [HumanMessage("7*8?")]}, {"configurable": {"thread_id": "g"}})


def test_a_bare_ollama_name_is_read_as_ollama_and_any_other_bad_name_is_one_line(ollama, capsys, tmp_path):
    from reactgraph.loading import load_model

    ollama({"qwen2.5-coder:1.5b": ["completion", "tools"]})
    assert load_model("qwen2.5-coder:1.5b") == "ollama:qwen2.5-coder:1.5b"
    assert load_model("ollama:qwen2.5-coder:1.5b") == "ollama:qwen2.5-coder:1.5b"
    db = str(tmp_path / "runs.sqlite")
    assert main(["run", "What is 6*7?", "--model", "qwen2.5-coder:1.5b", "--tools", "calculator", "--db", db]) == 0
    capsys.readouterr()
    assert main(["run", "What is 6*7?", "--model", "gpt-4o-mini", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "model 'gpt-4o-mini' names no provider: write 'provider:model', e.g. 'ollama:gpt-4o-mini'" in err
    assert "Traceback" not in err and len([line for line in err.splitlines() if line.strip()]) == 1
    assert ReActAgent(model="qwen2.5-coder:1.5b", tools=[], checkpointer=None).run("Hi?").final_answer == "42"
    with pytest.raises(ModelUnavailableError, match="names no provider"):
        ReActAgent(model="gpt-4o-mini", tools=[], checkpointer=None).run("hi")
