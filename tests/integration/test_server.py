"""The real `langgraph dev` server, started and stopped by the test, on a free port.

1. On the repository's own langgraph.json: the assistant, the graph Studio draws (five nodes
   and their edges) and the input / output / context schemas of its forms.
2. On tests/integration/server_fixture/langgraph.json, whose graph is the same served graph
   on a ScriptedChatModel: langgraph-sdk runs with tool calls streamed node by node, the
   final state and its history, a 10-iteration run, a clarification round trip, and tool approval
   (approve, edit, reject, a malformed answer) of three parallel calls; what Agent Chat UI sends (its accept with
   no interrupt id, a message typed while the thread waits); and the same graph with an
   output schema ("typed"): its schemas show the answer's fields, and a run's state holds the typed output.
3. A run whose model cannot be used, or whose context is misspelt, keeps its question and closes with what to change.
"""

from __future__ import annotations

import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from langgraph_sdk.client import SyncLangGraphClient

from reactgraph import server as served
from tests.integration.dev_server import FIXTURE, HTTP_SECONDS, Server, scripted, serve

pytestmark = pytest.mark.server

REPO = Path(__file__).resolve().parents[2]

NODES = ["think", "act", "observe", "summarize", "terminate"]


# The server resolves graph paths against its working directory and keeps its in-memory
# state in .langgraph_api/ there: each server gets a fresh working directory.


@pytest.fixture(scope="module")
def repo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The repository's own langgraph.json, with the repository's src/ beside it."""
    app = tmp_path_factory.mktemp("repo-app")
    shutil.copy(REPO / "langgraph.json", app / "langgraph.json")
    (app / "src").symlink_to(REPO / "src", target_is_directory=True)
    yield from serve(app, tmp_path_factory)


@pytest.fixture(scope="module")
def scripted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    app = tmp_path_factory.mktemp("scripted-app") / "app"
    shutil.copytree(FIXTURE, app, ignore=shutil.ignore_patterns(".langgraph_api", "__pycache__"))
    yield from serve(app, tmp_path_factory)


# -- the served graph, in process -----------------------------------------------------------


def test_served_graph_offers_the_builtins_that_need_no_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(served.FILES_ROOT_ENV, raising=False)
    names = served.served_tools().names()
    assert {"calculator", "text"} <= set(names)
    assert not {"read_file", "list_directory", "grep_search", "search_documents"} & set(names)


def test_files_root_adds_the_confined_file_tools(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(served.FILES_ROOT_ENV, str(tmp_path))
    assert {"read_file", "list_directory", "grep_search"} <= set(served.served_tools().names())


def test_served_graph_has_no_checkpointer_and_room_for_long_runs() -> None:
    assert served.graph.checkpointer is None  # the server brings persistence
    assert served.graph.config["recursion_limit"] >= 4 * served.MAX_SERVED_ITERATIONS


def test_the_served_factory_refuses_an_unknown_tool_to_approve() -> None:
    from reactgraph.tools import UnknownToolError

    assert served.check_context({"approve_tools": ["calculator"]}, served.TOOLS).approve_tools == ("calculator",)
    with pytest.raises(UnknownToolError, match="approve_tools: no tool named 'calculater' \\(did you mean 'calculator'\\?\\)"):
        served.check_context({"approve_tools": ["calculater"]}, served.TOOLS)


# -- 1. the repository's own langgraph.json ------------------------------------------------


@pytest.fixture(scope="module")
def assistant(repo_server: Server) -> dict:
    found = repo_server.client().assistants.search(graph_id="reactgraph")
    assert len(found) == 1, repo_server.log_text()
    return found[0]


class TestRepositoryServer:
    @pytest.fixture
    def server(self, repo_server: Server) -> Server:
        return repo_server

    def test_the_assistant_is_listed(self, server: Server, assistant: dict) -> None:
        assert assistant["graph_id"] == "reactgraph"
        assert assistant["name"] == "reactgraph"

    def test_graph_has_the_five_nodes_and_their_edges(self, server: Server, assistant: dict) -> None:
        drawn = server.client().assistants.get_graph(assistant["assistant_id"])
        assert [n["id"] for n in drawn["nodes"]] == ["__start__", *NODES, "__end__"]
        edges = {(e["source"], e["target"], bool(e.get("conditional"))) for e in drawn["edges"]}
        assert edges == {
            ("__start__", "think", True),
            ("__start__", "summarize", True),  # a new turn whose conversation's older turns are folded first
            ("__start__", "act", True),  # a person's reply to a turn that waits on them (graph._replies)
            ("think", "act", True),
            ("think", "terminate", True),
            ("act", "observe", False),
            ("observe", "think", True),
            ("observe", "summarize", True),
            ("observe", "terminate", True),
            ("summarize", "think", False),
            ("terminate", "__end__", False),
        }

    def test_input_schema_takes_chat_messages_or_a_query(self, server: Server, assistant: dict) -> None:
        schemas = server.client().assistants.get_schemas(assistant["assistant_id"])
        assert schemas["input_schema"] is not None, f"no input schema; server log:\n{server.log_text()[-3000:]}"
        assert set(schemas["input_schema"]["properties"]) == {"messages", "query"}
        assert schemas["input_schema"]["properties"]["query"]["type"] == "string"
        assert schemas["input_schema"]["properties"]["messages"]["type"] == "array"

    def test_output_schema_has_answer_reason_and_trace(self, server: Server, assistant: dict) -> None:
        schemas = server.client().assistants.get_schemas(assistant["assistant_id"])
        assert schemas["output_schema"] is not None, f"no output schema; server log:\n{server.log_text()[-3000:]}"
        output = set(schemas["output_schema"]["properties"])
        assert {"final_answer", "termination", "steps", "messages", "confidence", "confidence_signals"} <= output
        assert "pending_actions" not in schemas["output_schema"]["properties"]  # internal state stays internal

    def test_context_schema_is_the_documented_run_configuration(self, server: Server, assistant: dict) -> None:
        context = server.client().assistants.get_schemas(assistant["assistant_id"])["context_schema"]
        fields = context["properties"]
        wanted = {
            "model": "string",
            "max_iterations": "integer",
            "token_budget": None,
            "timeout_seconds": None,
            "stall_threshold": "integer",
            "summary_every": "integer",
            "tools": None,
            "allow_clarification": "boolean",
            "approve_tools": "array",
        }
        for name, json_type in wanted.items():
            assert name in fields, name
            assert fields[name].get("description"), f"{name} has no description"
            if json_type:
                assert fields[name]["type"] == json_type, name
        assert fields["model"]["__template_metadata__"] == {"kind": "llm"}  # Studio's model picker
        limits = context["$defs"][fields["limits"]["$ref"].rsplit("/", 1)[1]]["properties"]
        assert limits["max_iterations"]["default"] == 10  # the documented form: the limits group, with its defaults
        assert "default" not in fields["max_iterations"]  # the flat form a 0.1 client sends: no default a form would send
        assert "termination_callback" not in fields  # a Python callable is no form field

    def ended_turn(self, server: Server, **run) -> tuple[list, dict]:
        """One run of "What is 2 + 2?" on a new thread: no error event; (the chat, the termination)."""
        client = server.client()
        thread_id = client.threads.create()["thread_id"]
        parts = list(client.runs.stream(thread_id, "reactgraph", input={"query": "What is 2 + 2?"}, **run))
        assert not [part.data for part in parts if part.event == "error"]
        values = client.threads.get_state(thread_id)["values"]
        return [(m["type"], m["content"]) for m in values["messages"]], values["termination"]

    def test_a_misspelt_context_option_ends_the_turn_naming_the_close_match(self, server: Server) -> None:
        """The server drops context keys its schema lacks; the served factory refuses them first: the turn keeps
        its question and says what to change."""
        chat, termination = self.ended_turn(server, context={"max_iteratons": 3})
        assert chat[0] == ("human", "What is 2 + 2?") and termination["reason"] == "failure"
        assert "unknown option 'max_iteratons' (did you mean 'max_iterations'?)" in chat[1][1]

    @pytest.mark.parametrize(
        ("context", "expected"),
        [
            ({"model": "openai:gpt-4o-mini"}, "OPENAI_API_KEY"),
            (None, "Ollama is not reachable at http://127.0.0.1:9"),  # the default model
        ],
    )
    def test_a_model_that_cannot_be_used_ends_the_turn_saying_what_to_change(self, server: Server, context, expected) -> None:
        """The issue's case: the question vanished from the chat, and the error asked a chat user for --model."""
        chat, termination = self.ended_turn(server, **({"context": context} if context else {}))
        assert [kind for kind, _ in chat] == ["human", "ai"] and termination["reason"] == "failure"
        closing = chat[1][1]
        assert expected in closing and "in the assistant's configuration or the run's context" in closing
        assert "--model" not in closing


def readme_sdk_block(**replaced: str) -> str:
    """The langgraph-sdk block of docs/serving.md, with ``replaced`` texts (the graph, the question and the tools,
    for the scripted server's model); it finds the server in LANGGRAPH_API_URL, which the caller sets."""
    from tests.unit.test_readme import blocks

    [code] = [code for _, code in blocks("python") if "get_sync_client(" in code]
    for old, new in replaced.items():
        assert old in code, old
        code = code.replace(old, new)
    return code


def test_the_readme_sdk_block_reports_a_turn_that_failed(
    repo_server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The repository's server has no model here (the default is not reachable): the block shows the turn's failure."""
    monkeypatch.setenv("LANGGRAPH_API_URL", repo_server.url)
    exec(readme_sdk_block(), {})  # noqa: S102
    shown = capsys.readouterr().out
    assert "{'reason': 'failure', 'detail': 'The model cannot be used: Ollama is not reachable" in shown
    assert "I stopped without an answer: it failed: The model cannot be used:" in shown


def test_the_readme_sdk_block_runs_as_written(
    scripted_server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANGGRAPH_API_URL", scripted_server.url)  # as the shell lines of docs/serving.md set it
    exec(readme_sdk_block(**{  # noqa: S102
        '"reactgraph"': '"scripted"', "What is 17 * 23 + 4?": scripted.ARITHMETIC, '["calculator"]': '["multiply", "add"]',
    }), {})
    shown = capsys.readouterr().out.splitlines()
    answer = max(i for i, line in enumerate(shown) if line.endswith(" 6*7 + 2*4 = 50."))  # after the updates
    assert shown[answer].startswith("{'reason': 'success'") and shown[answer + 1] == "6*7 + 2*4 = 50."
    history = shown[answer + 2:]
    assert (history[0], history[-1]) == ("[] 3", "['__start__'] 0")  # newest first: the end with its three steps


# -- 2. the scripted graph through langgraph-sdk -------------------------------------------


@dataclass
class Streamed:
    """One run streamed with stream_mode ['updates', 'tasks'].

    The server filters 'updates' to the output schema's keys: think's tool calls (with its thought)
    and act's results arrive as chat messages; 'tasks' carries each task's input (for act: the tool
    call) and its full result."""

    updates: list[dict]
    tasks: list[dict]

    def nodes(self) -> list[str]:
        return [node for update in self.updates for node in update]

    def tool_calls(self) -> list[tuple[str, dict]]:
        """(tool, args) of every act task, in the order the tasks started."""
        return [(t["input"]["action"]["tool"], t["input"]["action"]["args"]) for t in self.tasks if t["name"] == "act" and "input" in t]

    def tool_results(self) -> dict[str, str]:
        """call id -> the content act returned for it."""
        return {
            m["tool_call_id"]: m["content"]
            for t in self.tasks
            if t["name"] == "act" and t.get("result")
            for m in t["result"]["messages"]
        }


def _stream(client: SyncLangGraphClient, thread_id: str, **run) -> Streamed:
    """Stream one run; an error event fails the test."""
    streamed = Streamed(updates=[], tasks=[])
    for part in client.runs.stream(thread_id, "scripted", stream_mode=["updates", "tasks"], **run):
        assert part.event != "error", part.data
        if part.event == "updates":
            streamed.updates.append(part.data)
        elif part.event == "tasks":
            streamed.tasks.append(part.data)
    return streamed


@pytest.fixture(scope="module")
def client(scripted_server: Server) -> SyncLangGraphClient:
    return scripted_server.client()


@pytest.fixture(scope="module")
def arithmetic(client: SyncLangGraphClient) -> tuple[str, Streamed]:
    """One multi-step run from Studio's chat view (messages in), streamed node by node."""
    thread_id = client.threads.create()["thread_id"]
    streamed = _stream(client, thread_id, input={"messages": [{"role": "human", "content": scripted.ARITHMETIC}]})
    return thread_id, streamed


class TestScriptedServer:
    def test_stream_sends_each_node_update_as_it_happens(self, arithmetic) -> None:
        _, streamed = arithmetic
        assert streamed.nodes() == ["think", "act", "act", "observe", "think", "act", "observe", "think", "terminate"]
        assert streamed.updates[-1]["terminate"]["final_answer"] == "6*7 + 2*4 = 50."

    def test_stream_shows_the_tool_calls_and_their_results(self, arithmetic) -> None:
        _, streamed = arithmetic
        calls = streamed.tool_calls()
        assert sorted(calls[:2], key=str) == [("multiply", {"a": 2, "b": 4}), ("multiply", {"a": 6, "b": 7})]
        assert calls[2:] == [("add", {"a": 42, "b": 8})]
        assert sorted(streamed.tool_results().values()) == ["42", "50", "8"]
        # Each turn's trace step arrives with observe's update, as soon as the turn is done.
        steps = [u["observe"]["steps"] for u in streamed.updates if "observe" in u]
        assert [[(o["tool"], o["content"]) for o in step["observations"]] for [step] in steps] == [
            [("multiply", "42"), ("multiply", "8")],
            [("add", "50")],
        ]

    def test_updates_show_each_turns_thought_calls_and_results(self, arithmetic) -> None:
        _, streamed = arithmetic
        thinks = [u["think"]["messages"] for u in streamed.updates if "think" in u and u["think"].get("messages")]
        assert [[(m["content"], [(c["name"], c["args"]) for c in m["tool_calls"]]) for m in msgs] for msgs in thinks] == [
            [("First the two products.", [("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4})])],
            [("Now add the two products.", [("add", {"a": 42, "b": 8})])],
        ]
        results = [m for u in streamed.updates if "act" in u for m in u["act"]["messages"]]
        assert [(m["type"], m["name"]) for m in results] == [("tool", "multiply")] * 2 + [("tool", "add")]
        calls = {c["id"]: c for msgs in thinks for c in msgs[0]["tool_calls"]}
        assert sorted((calls[m["tool_call_id"]]["args"]["a"], m["content"]) for m in results) == [(2, "8"), (6, "42"), (42, "50")]

    def test_messages_mode_streams_the_model_tokens(self, client) -> None:
        thread_id = client.threads.create()["thread_id"]
        parts = list(client.runs.stream(thread_id, "scripted", input={"query": scripted.ARITHMETIC}, stream_mode="messages-tuple"))
        assert not [p for p in parts if p.event == "error"]
        pieces = [(m["content"], meta["langgraph_node"]) for p in parts if p.event == "messages" for m, meta in [p.data]
                  if m["type"] == "AIMessageChunk" and m["content"]]
        assert [text for text, node in pieces if node == "think"][:3] == ["First ", "the ", "two "]
        assert "".join(text for text, node in pieces if node == "think").endswith("6*7 + 2*4 = 50.")

    def test_thread_messages_hold_the_tool_calls_and_results(self, client, arithmetic) -> None:
        thread_id, _ = arithmetic
        chat = client.threads.get_state(thread_id)["values"]["messages"]
        assert [m["type"] for m in chat] == ["human", "ai", "tool", "tool", "ai", "tool", "ai"]
        assert [c["name"] for c in chat[1]["tool_calls"]] == ["multiply", "multiply"]
        assert chat[5]["content"] == "50" and chat[6]["content"] == "6*7 + 2*4 = 50."

    def test_final_state_has_answer_reason_trace_and_chat_reply(self, client, arithmetic) -> None:
        thread_id, _ = arithmetic
        state = client.threads.get_state(thread_id)
        values = state["values"]
        assert state["next"] == []
        assert values["final_answer"] == "6*7 + 2*4 = 50."
        assert values["termination"]["reason"] == "success"
        assert [[a["tool"] for a in step["actions"]] for step in values["steps"]] == [["multiply", "multiply"], ["add"], []]
        assert [step["kind"] for step in values["steps"]] == ["tools", "tools", "final"]  # terminate adds the final turn
        assert values["messages"][-1]["type"] == "ai"
        assert values["messages"][-1]["content"] == "6*7 + 2*4 = 50."
        assert values["confidence_signals"]["support"]["detail"] == "the number 50 is in a tool result"
        assert values["confidence"] == 0.9

    def test_history_has_one_checkpoint_per_superstep(self, client, arithmetic) -> None:
        thread_id, _ = arithmetic
        history = client.threads.get_history(thread_id, limit=100)
        assert [h["next"] for h in reversed(history)] == [
            ["__start__"],
            ["think"],
            ["act", "act"],
            ["observe"],
            ["think"],
            ["act"],
            ["observe"],
            ["think"],
            ["terminate"],
            [],
        ]
        assert history[0]["values"]["final_answer"] == "6*7 + 2*4 = 50."
        assert [len(h["values"].get("steps", [])) for h in reversed(history)] == [0, 0, 0, 0, 1, 1, 1, 2, 2, 3]

    def test_a_ten_iteration_run_completes(self, client) -> None:
        """max_iterations=10 with a summary every 3 turns: 35 supersteps, past LangGraph's former
        default recursion limit of 25; the run ends by its own rule, not a GraphRecursionError."""
        thread_id = client.threads.create()["thread_id"]
        streamed = _stream(
            client, thread_id, input={"query": scripted.COUNTING}, context={"max_iterations": 10, "summary_every": 3}
        )
        assert streamed.nodes().count("summarize") == 3
        assert streamed.tool_calls() == [("count", {"n": n}) for n in range(1, 11)]
        values = client.threads.get_state(thread_id)["values"]
        assert values["termination"]["reason"] == "max_iterations"
        assert values["termination"]["observed"] == 10
        tools = [step for step in values["steps"] if step["kind"] == "tools"]
        assert [step["observations"][0]["content"] for step in tools] == [f"counted {n}" for n in range(1, 11)]
        assert values["steps"][-1]["kind"] == "partial_answer"
        assert values["final_answer"] == "I counted as far as the limit allowed."
        assert values["confidence_signals"]["ended"]["detail"] == "max_iterations: a partial answer"
        assert values["confidence"] < 0.9

    @pytest.mark.parametrize("context", [{"limits": {"max_iterations": 2}}, {"max_iterations": 2}], ids=["grouped", "flat"])
    def test_run_context_overrides_the_limits(self, client, context) -> None:
        """The grouped key, and the flat one clients of 0.1 send (the context schema names both: the server keeps them)."""
        thread_id = client.threads.create()["thread_id"]
        streamed = _stream(client, thread_id, input={"query": scripted.COUNTING}, context=context)
        assert streamed.tool_calls() == [("count", {"n": 1}), ("count", {"n": 2})]
        values = client.threads.get_state(thread_id)["values"]
        assert values["termination"]["reason"] == "max_iterations"
        assert values["termination"]["limit"] == 2

    def test_a_second_run_on_a_thread_is_the_next_turn_of_its_conversation(self, client) -> None:
        """Studio's chat view sends each message as a run on the thread: the second sees the first."""
        thread_id = client.threads.create()["thread_id"]
        first = client.runs.wait(thread_id, "scripted", input={"messages": [{"role": "human", "content": scripted.INTRODUCTION}]})
        second = client.runs.wait(thread_id, "scripted", input={"messages": [{"role": "human", "content": scripted.NAME_QUESTION}]})
        assert (first["final_answer"], second["final_answer"]) == ("Nice to meet you, Ada.", "Your name is Ada.")
        assert [(t["turn"], t["question"], t["answer"]) for t in second["turns"]] == [
            (1, scripted.INTRODUCTION, "Nice to meet you, Ada."), (2, scripted.NAME_QUESTION, "Your name is Ada.")
        ]
        chat = client.threads.get_state(thread_id)["values"]["messages"]
        assert [(m["type"], m["content"]) for m in chat] == [
            ("human", scripted.INTRODUCTION), ("ai", "Nice to meet you, Ada."), ("human", scripted.NAME_QUESTION), ("ai", "Your name is Ada.")
        ]
        third = client.runs.wait(thread_id, "scripted", input={"query": scripted.NAME_QUESTION})  # a query is a turn too
        assert third["final_answer"] == "Your name is Ada." and third["turn"] == 3

    def test_clarification_round_trip(self, client) -> None:
        thread_id = client.threads.create()["thread_id"]
        asked = _stream(client, thread_id, input={"query": scripted.WEATHER})
        assert asked.nodes() == ["think", "__interrupt__"]
        [streamed] = asked.updates[-1]["__interrupt__"]
        assert streamed["value"]["question"] == scripted.CITY_QUESTION

        paused = client.threads.get_state(thread_id)
        assert paused["next"] == ["act"]
        [pending] = paused["interrupts"]
        assert pending["value"]["question"] == scripted.CITY_QUESTION

        answered = _stream(client, thread_id, command={"resume": "Paris"})
        assert answered.nodes() == ["act", "observe", "think", "terminate"]
        assert answered.tool_calls() == [("ask_user", {"question": scripted.CITY_QUESTION})]
        assert list(answered.tool_results().values()) == ["The user answered: Paris"]
        state = client.threads.get_state(thread_id)
        assert state["next"] == [] and state["interrupts"] == []
        assert state["values"]["final_answer"] == "The weather in Paris is sunny."
        assert state["values"]["termination"]["reason"] == "success"

    def test_tool_approval_round_trip(self, client) -> None:
        """approve_tools in the run's context: the three parallel calls each wait; one resume by
        interrupt id approves Ann's, edits Bob's and sends no decision for Cy's, which is asked
        about again saying why; a second resume rejects it. No call runs twice."""
        thread_id = client.threads.create()["thread_id"]
        paused = _stream(client, thread_id, input={"query": scripted.GREETINGS}, context={"approve_tools": ["greet"]})
        assert paused.tool_results() == {}  # nothing ran
        state = client.threads.get_state(thread_id)
        assert state["next"] == ["act", "act", "act"]
        waiting = {i["value"]["tool_call_id"]: i for i in state["interrupts"]}
        assert set(waiting) == {"greet_Ann", "greet_Bob", "greet_Cy"}
        request = waiting["greet_Bob"]["value"]
        assert request["action_requests"][0]["name"] == "greet" and request["action_requests"][0]["args"] == {"name": "Bob"}
        assert request["review_configs"] == [{"action_name": "greet", "allowed_decisions": ["approve", "edit", "reject"]}]
        assert "HITLResponse" in waiting["greet_Bob"]["response_schema"]["$defs"]  # the answer's form, for clients

        decisions = {
            waiting["greet_Ann"]["id"]: {"type": "approve"},
            waiting["greet_Bob"]["id"]: {"type": "edit", "edited_action": {"name": "greet", "args": {"name": "Bea"}}},
            waiting["greet_Cy"]["id"]: {"type": "maybe"},
        }
        first = _stream(client, thread_id, command={"resume": decisions})
        results = first.tool_results()
        assert set(results) == {"greet_Ann", "greet_Bob"}
        assert results["greet_Ann"] == "Hello Ann" and results["greet_Bob"].endswith("Hello Bea")
        [again] = client.threads.get_state(thread_id)["interrupts"]
        assert again["value"]["tool_call_id"] == "greet_Cy"
        assert "not an approval decision" in again["value"]["problem"]

        second = _stream(client, thread_id, command={"resume": {"decisions": [{"type": "reject", "message": "Cy is away"}]}})
        assert set(second.tool_results()) == {"greet_Cy"}  # Ann's and Bob's calls did not run again
        state = client.threads.get_state(thread_id)
        assert state["next"] == [] and state["interrupts"] == []
        values = state["values"]
        assert values["termination"]["reason"] == "success"
        answer = values["final_answer"]
        assert answer == "Greeted Ann, Bea; refused: Cy is away."
        [step] = [s for s in values["steps"] if s["kind"] == "tools"]
        assert [a["args"] for a in step["actions"]] == [{"name": "Ann"}, {"name": "Bea"}, {"name": "Cy"}]
        assert [o["error_kind"] for o in step["observations"]] == [None, None, "rejected"]


@pytest.fixture(scope="module")
def approving(client: SyncLangGraphClient) -> str:
    """An assistant of the scripted graph whose configuration approves ``greet``."""
    return client.assistants.create(graph_id="scripted", context={"approve_tools": ["greet"]}, name="approving")["assistant_id"]


class TestChatClientAnswers:
    """What Agent Chat UI sends, on the real server."""

    def waiting(self, client, assistant: str) -> tuple[str, dict]:
        thread_id = client.threads.create()["thread_id"]
        list(client.runs.stream(thread_id, assistant, input={"messages": [{"role": "human", "content": scripted.GREETING}]}))
        [pending] = client.threads.get_state(thread_id)["interrupts"]
        return thread_id, pending

    def test_the_ui_s_accept_runs_the_waiting_call(self, client, approving) -> None:
        thread_id, pending = self.waiting(client, approving)
        assert pending["value"]["action_request"] == {"action": "greet", "args": {"name": "Ann"}}
        assert pending["value"]["config"]["allow_accept"] and pending["value"]["action_requests"][0]["name"] == "greet"
        list(client.runs.stream(thread_id, approving, command={"resume": [{"type": "accept", "args": None}]}))  # no interrupt id
        values = client.threads.get_state(thread_id)["values"]
        assert values["final_answer"] == "Done: Hello Ann."
        assert [(m["type"], m["content"]) for m in values["messages"]][2:] == [("tool", "Hello Ann"), ("ai", "Done: Hello Ann.")]

    def test_approve_typed_in_the_chat_runs_the_waiting_call(self, client, approving) -> None:
        """As the UI sends it: a made-up result for the waiting call, then the message."""
        thread_id, pending = self.waiting(client, approving)
        call_id = pending["value"]["tool_call_id"]
        made_up = {"type": "tool", "tool_call_id": call_id, "name": "greet", "id": "do-not-render-1", "content": "Successfully handled tool call."}
        list(client.runs.stream(thread_id, approving, input={"messages": [made_up, {"type": "human", "content": "Approve", "id": "h2"}]}))
        state = client.threads.get_state(thread_id)
        assert state["interrupts"] == [] and state["values"]["final_answer"] == "Done: Hello Ann."
        assert [(m["type"], m["content"]) for m in state["values"]["messages"]] == [
            ("human", scripted.GREETING), ("ai", "Greet Ann with the greet tool."), ("tool", "Hello Ann"), ("ai", "Done: Hello Ann.")
        ]

    def test_an_answer_typed_in_the_chat_answers_the_question(self, client) -> None:
        thread_id = client.threads.create()["thread_id"]
        list(client.runs.stream(thread_id, "scripted", input={"messages": [{"role": "human", "content": scripted.WEATHER}]}))
        [pending] = client.threads.get_state(thread_id)["interrupts"]
        assert pending["value"]["config"]["allow_respond"] and not pending["value"]["config"]["allow_accept"]
        list(client.runs.stream(thread_id, "scripted", input={"messages": [{"type": "human", "content": "Paris"}]}))
        values = client.threads.get_state(thread_id)["values"]
        assert values["final_answer"] == "The weather in Paris is sunny." and values["turn"] == 1


class TestSubAgentServer:
    """A graph whose tool is a sub-agent (server_fixture/delegating_graph.py), on the real server."""

    def test_the_sub_agent_runs_as_a_subgraph_streamed_under_act(self, client) -> None:
        thread_id = client.threads.create()["thread_id"]
        parts = list(client.runs.stream(thread_id, "delegating", input={"query": "Ask the helper: what is 6*7 + 2*4?"},
                                        stream_mode="updates", stream_subgraphs=True))
        assert not [p for p in parts if p.event == "error"], parts
        child = [next(iter(p.data)) for p in parts if p.event.startswith("updates|act:")]
        assert child == ["think", "act", "act", "observe", "think", "act", "observe", "think", "terminate"]
        values = client.threads.get_state(thread_id)["values"]
        assert values["final_answer"] == "The helper found: 6*7 + 2*4 = 50."
        nested = values["steps"][0]["observations"][0]["trace"]
        assert [[a["tool"] for a in s["actions"]] for s in nested["steps"]] == [["multiply", "multiply"], ["add"], []]
        assert values["token_usage"]["total_tokens"] > nested["total_tokens"]["total_tokens"] > 0

    def test_studio_sees_the_subgraph(self, client) -> None:
        assistant = next(a for a in client.assistants.search(graph_id="delegating"))
        nodes = {n["id"] for n in client.assistants.get_graph(assistant["assistant_id"], xray=True)["nodes"]}
        assert {"act:think", "act:act", "act:observe", "act:terminate"} <= nodes
        assert "act" in client.assistants.get_subgraphs(assistant["assistant_id"])


@pytest.fixture(scope="module")
def typed(client: SyncLangGraphClient) -> dict:
    """The assistant of the "typed" graph."""
    [found] = client.assistants.search(graph_id="typed")
    return found


class TestTypedServer:
    """The scripted graph with an output schema (``make_graph(..., output_schema=...)``), served."""

    def test_the_output_schema_shows_the_answers_fields(self, client, typed) -> None:
        schema = client.assistants.get_schemas(typed["assistant_id"])["output_schema"]
        assert schema["properties"]["output"]["anyOf"][0] == {"$ref": "#/$defs/Answer"}
        fields = schema["$defs"]["Answer"]["properties"]
        assert {name: field["type"] for name, field in fields.items()} == {"total": "integer", "expression": "string"}
        assert {"final_answer", "termination", "steps"} <= set(schema["properties"])  # beside the usual output

    def test_a_run_ends_with_the_typed_output_in_its_state(self, client) -> None:
        thread_id = client.threads.create()["thread_id"]
        final = client.runs.wait(thread_id, "typed", input={"query": scripted.ARITHMETIC})
        assert final["output"] == {"total": 50, "expression": "6*7 + 2*4"}  # put in shape by the structured-output call
        assert final["final_answer"] == "6*7 + 2*4 = 50." and final["termination"]["reason"] == "success"
        assert [c["purpose"] for c in final["steps"][-1]["calls"]] == ["think", "structured_output"]
        untyped = client.runs.wait(client.threads.create()["thread_id"], "scripted", input={"query": scripted.ARITHMETIC})
        assert untyped.get("output") is None and untyped["final_answer"] == "6*7 + 2*4 = 50."


def test_the_playbook_lives_in_the_servers_store(client: SyncLangGraphClient) -> None:
    """context playbook=true under langgraph dev: the first run's lesson is kept in the server's store
    and shown in the prompt of the next run on a similar question."""
    namespace = ["reactgraph", "playbook", "served-test", "bullets"]
    context = {"playbook": True, "playbook_name": "served-test"}
    first, second = client.threads.create()["thread_id"], client.threads.create()["thread_id"]
    _stream(client, first, input={"query": scripted.ARITHMETIC}, context=context)
    [item] = client.store.search_items(namespace)["items"]
    assert item["value"]["tool_sequence"] == ["multiply", "add"] and item["value"]["section"] == "strategies"
    streamed = _stream(client, second, input={"query": scripted.ARITHMETIC}, context=context)
    shown = next(u["think"]["playbook"] for u in streamed.updates if "think" in u and u["think"].get("playbook"))
    assert shown["bullets"] == [item["key"]]
    assert 'multiply(a=…, b=…), then add(a=…, b=…), then answered' in shown["block"]
    [after] = client.store.search_items(namespace)["items"]
    assert (after["value"]["helpful_count"], after["value"]["runs"]) == (2, 2)


class TestLangChainToolsServer:
    """LangChain tools written for create_agent (server_fixture/langchain_tools_graph.py), on the real server."""

    def test_the_runs_context_reaches_the_tools(self, client) -> None:
        assistant = next(a for a in client.assistants.search(graph_id="langchain"))
        schema = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"]
        assert {"user_id", "max_iterations"} <= set(schema["properties"])
        final = client.runs.wait(client.threads.create()["thread_id"], "langchain", input={"query": "Who am I?"},
                                 context={"user_id": "ada", "max_iterations": 4})
        assert final["final_answer"] == "you are ada" and final["termination"]["reason"] == "success"

    def test_the_servers_store_keeps_a_fact_across_threads(self, client) -> None:
        client.runs.wait(client.threads.create()["thread_id"], "langchain", input={"query": "Remember: my cat is Tom"})
        assert client.store.get_item(["facts"], "fact")["value"] == {"text": "my cat is Tom"}
        final = client.runs.wait(client.threads.create()["thread_id"], "langchain", input={"query": "What do you remember?"})
        assert final["final_answer"] == "my cat is Tom"

    def test_progress_reaches_the_custom_stream(self, client) -> None:
        parts = list(client.runs.stream(client.threads.create()["thread_id"], "langchain",
                                        input={"query": "Crawl the site."}, stream_mode=["custom", "values"]))
        assert not [p for p in parts if p.event == "error"], parts
        assert [p.data for p in parts if p.event == "custom"] == [{"message": "page 1 of 2"}, {"message": "page 2 of 2"}]

    def test_an_image_in_the_question_reaches_the_model(self, client) -> None:
        image = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}
        message = {"role": "human", "content": [{"type": "text", "text": "What is in this image?"}, image]}
        final = client.runs.wait(client.threads.create()["thread_id"], "langchain", input={"messages": [message]})
        assert final["final_answer"] == "I was shown 1 image(s)"


@pytest.mark.parametrize("blank", [{"query": "  "}, {"messages": [{"role": "human", "content": " "}]}])
def test_a_blank_or_broken_question_is_refused_not_the_last_one_asked_again(client: SyncLangGraphClient, blank) -> None:
    """Issue 42, item 5: a blank question on a finished thread was a new turn that asked the last question again (its
    tools ran twice)."""
    thread_id = client.threads.create()["thread_id"]
    _stream(client, thread_id, input={"query": scripted.ARITHMETIC})
    before = client.threads.get_state(thread_id)["values"]["messages"]
    parts = list(client.runs.stream(thread_id, "scripted", input=blank, stream_mode=["updates", "tasks"]))
    errors = [part.data for part in parts if part.event == "error"]
    assert errors and "InvalidInputError" in str(errors), parts
    assert not [part for part in parts if part.event == "tasks" and part.data.get("name") == "act"]  # no tool ran again
    after = client.threads.get_state(thread_id)["values"]["messages"]
    assert [m for m in after if m["type"] == "ai"] == [m for m in before if m["type"] == "ai"]


def test_a_question_with_a_lone_surrogate_is_refused(scripted_server: Server, client: SyncLangGraphClient) -> None:
    """Issue 42, item 13: a JSON escape of a lone surrogate is no text a database can store (the SDK will not send it:
    sent by hand). The server's JSON reader refuses it before the graph (which would: tests/adversarial/test_inputs.py)."""
    thread_id = client.threads.create()["thread_id"]
    body = '{"assistant_id": "scripted", "input": {"query": "caf\\udce9?"}}'.encode()
    request = urllib.request.Request(f"{scripted_server.url}/threads/{thread_id}/runs/wait", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=HTTP_SECONDS) as response:
            status, answer = response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        status, answer = refused.code, refused.read().decode()
    assert status == 422 and "Invalid JSON" in answer, (status, answer)  # the server's JSON reader refuses it
    assert not client.threads.get_state(thread_id)["values"].get("steps")  # nothing ran
