"""Typos do not pass silently: an unknown tool name (agent, run, CLI --tools, graph or server
context) or an unknown option is a clear error listing the close matches; nothing runs."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest

from reactgraph import AgentConfig, ConfigError, ReActAgent, build_graph
from reactgraph.loading import load_tools
from reactgraph.testing import ScriptedChatModel
from reactgraph.tools import ToolRegistry, UnknownToolError


def calculator_agent(**options) -> tuple[ReActAgent, ScriptedChatModel]:
    model = ScriptedChatModel(responses=["42"])
    return ReActAgent(model, ToolRegistry.with_builtins(["calculator", "text"]), checkpointer=None, **options), model


def test_a_typo_in_the_agents_tools_is_an_error_naming_the_close_match():
    with pytest.raises(UnknownToolError, match=r"no tool named 'calculater' \(did you mean 'calculator'\?\); available: calculator, text"):
        calculator_agent(config=AgentConfig(tools=("calculater",)))


def test_a_typo_in_a_runs_tools_is_an_error_before_the_model_is_called():
    agent, model = calculator_agent()
    with pytest.raises(UnknownToolError, match=r"'calculater' \(did you mean 'calculator'\?\)"):
        agent.run("What is 6*7?", tools=["calculater"])
    assert model.calls == []


def test_a_tool_name_without_a_close_match_lists_the_tools():
    agent, _ = calculator_agent()
    with pytest.raises(UnknownToolError, match=r"^no tool named 'weather'; available: calculator, text$"):
        agent.run("Weather?", tools=["weather"])


def test_the_cli_tools_option_suggests_the_close_match():
    with pytest.raises(ConfigError, match=r"--tools: no tool named 'calculater' \(did you mean 'calculator'\?\); available: "):
        load_tools("calculater")


def test_a_typo_in_the_graph_context_tools_stops_before_the_model_is_called():
    model = ScriptedChatModel(responses=["42"])
    graph = build_graph(model, ToolRegistry.with_builtins(["calculator"]))
    with pytest.raises(UnknownToolError, match="did you mean 'calculator'"):
        graph.invoke({"query": "6*7?"}, context={"tools": ["calculater"]})
    assert model.calls == []


def test_an_unknown_option_names_the_close_match():
    with pytest.raises(ConfigError, match=r"unknown option 'max_iteratons' \(did you mean 'max_iterations'\?\)"):
        calculator_agent()[0].run("q", max_iteratons=3)
    with pytest.raises(ValueError, match=r"unknown option 'tool_timout' \(did you mean 'tool_execution.timeout_seconds'\?\)"):
        AgentConfig(tool_timout=3)


def test_make_graph_takes_config_fields_and_refuses_an_unknown_one_listing_the_known():
    from reactgraph.server import make_graph

    graph = make_graph(ScriptedChatModel(responses=["42"]), [], max_iterations=2, allow_clarification=False)
    assert graph.invoke({"query": "6*7?"})["final_answer"] == "42"
    with pytest.raises(ConfigError) as info:
        make_graph(tools=[], max_iteration=3, colour="red")
    message = str(info.value)
    assert "make_graph: unknown option 'max_iteration' (did you mean 'max_iterations'?)" in message
    assert "make_graph: unknown option 'colour'" in message
    assert message.endswith(", ".join(["model", "tools", "config", "output_schema", "middleware", "context_schema", "state_schema", *AgentConfig.model_fields]))


class TestServerContext:
    """The LangGraph server drops context keys that are not in the context schema before the graph
    sees them; the served graph factory checks the context it is called with first."""

    @pytest.fixture
    def runtime(self):
        sdk_runtime = pytest.importorskip("langgraph_sdk.runtime")
        from langgraph.store.memory import InMemoryStore

        def make(context=None):
            if context is None:  # a read (schemas, state): no run context
                return sdk_runtime._ReadRuntime(access_context="assistants.read", store=InMemoryStore())
            return sdk_runtime._ExecutionRuntime(access_context="threads.create_run", store=InMemoryStore(), context=context)

        return make

    def test_the_factory_takes_the_server_runtime(self):
        from langgraph_sdk.runtime import ServerRuntime

        from reactgraph import server

        # how the server finds out what to pass the factory named in langgraph.json
        hints = typing.get_type_hints(server.serve, localns={"ServerRuntime": ServerRuntime})
        assert hints["runtime"] is ServerRuntime and list(inspect.signature(server.serve).parameters) == ["runtime"]

    @staticmethod
    def refused_turn(graph) -> tuple[list, dict]:
        """The chat and the termination of a turn asked of ``graph`` (the graph ``serve`` handed over)."""
        out = graph.invoke({"messages": [{"role": "user", "content": "What is 6*7?"}]})
        return [(m.type, m.text) for m in out["messages"]], out["termination"]

    def test_unknown_context_keys_end_the_turn_naming_the_close_match(self, runtime):
        """The turn keeps its question and closes with an AI message saying what to change; no model is called."""
        from reactgraph import server

        graph = asyncio.run(server.serve(runtime({"max_iteratons": 3})))
        assert graph is not server.graph
        chat, termination = self.refused_turn(graph)
        assert chat[0] == ("human", "What is 6*7?") and termination["reason"] == "failure"
        assert "unknown option 'max_iteratons' (did you mean 'max_iterations'?)" in chat[1][1]
        assert "in the assistant's configuration or the run's context" in chat[1][1]

    def test_a_typo_in_the_context_tools_ends_the_turn_naming_it(self, runtime):
        from reactgraph import server

        chat, _ = self.refused_turn(asyncio.run(server.serve(runtime({"tools": ["calculater"]}))))
        assert "'calculater' (did you mean 'calculator'?)" in chat[1][1]

    def test_a_valid_context_gives_the_served_graph(self, runtime, monkeypatch):
        from reactgraph import server

        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the client starts; no model is called
        model = {"model": "openai:gpt-4o-mini"}
        assert asyncio.run(server.serve(runtime(model | {"max_iterations": 3, "tools": ["calculator"], "thread_id": "t"}))) is server.graph
        # a key like no option is the caller's own (the server copies configurable into the context)
        assert asyncio.run(server.serve(runtime(model | {"session_id": "abc", "max_iterations": 3}))) is server.graph
        assert asyncio.run(server.serve(runtime())) is server.graph  # a read: nothing to check

    @pytest.mark.parametrize(
        ("model", "expected"),
        [
            ("openai:gpt-4o-mini", "OPENAI_API_KEY"),  # the key is missing
            ("anthropic:claude-3-5-haiku-latest", "pip install langchain-anthropic"),  # the package is missing
            ("ollama:qwen2.5:7b", "Ollama is not reachable at http://127.0.0.1:9"),
        ],
    )
    def test_a_model_that_cannot_be_used_ends_the_turn_saying_what_to_change(self, runtime, monkeypatch, model, expected):
        """The issue's case: the question vanished from the chat, and the error told a chat user to use --model."""
        from reactgraph import server

        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
        chat, termination = self.refused_turn(asyncio.run(server.serve(runtime({"model": model}))))
        assert [kind for kind, _ in chat] == ["human", "ai"] and termination["reason"] == "failure"
        closing = chat[1][1]
        assert closing.startswith("I stopped without an answer: it failed: The model cannot be used:") and expected in closing
        assert "in the assistant's configuration or the run's context" in closing and "--model" not in closing
