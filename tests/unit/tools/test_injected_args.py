"""LangChain's injected tool arguments (``ToolRuntime``, ``InjectedState``, ``InjectedStore``, ``InjectedToolCallId``)
and a run's context (``context_schema`` / ``context=``): the same tool run by ``create_agent`` and by reactgraph on
the same script gets the same values; the model never sees the hidden arguments, in any tool-calling format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from langchain.agents.middleware import before_model
from langchain.tools import InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime, tool
from langchain_core.messages import AIMessage
from langgraph.store.memory import InMemoryStore

from reactgraph import ReActAgent
from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.create_agent_peer import create_agent_run, observations, reactgraph_run, tool_results


@dataclass
class Ctx:
    user_id: str
    lang: str = "en"


@tool
def whoami(greeting: str, runtime: ToolRuntime[Ctx]) -> str:
    """Greet the user by id."""
    return f"{greeting} {runtime.context.user_id} ({runtime.context.lang}); call {runtime.tool_call_id}"


@tool
def asked(state: Annotated[dict, InjectedState]) -> str:
    """What the user asked first."""
    return f"asked: {state['messages'][0].text}"


@tool
def first_message(messages: Annotated[list, InjectedState("messages")], call_id: Annotated[str, InjectedToolCallId]) -> str:
    """The first message, by the call's id."""
    return f"{call_id}: {messages[0].text}"


@tool
def remember(fact: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Remember a fact about the user."""
    store.put(("facts",), "fact", {"text": fact})
    return "remembered"


@tool
def recall(runtime: ToolRuntime) -> str:
    """What the user told you before."""
    item = runtime.store.get(("facts",), "fact")
    return item.value["text"] if item else "nothing"


def plain_whoami(greeting: str, runtime: ToolRuntime) -> str:
    """Greet the user by id (a plain function, registered as it is)."""
    return f"{greeting} {runtime.context.user_id}"


WRITTEN = {  # the same call as each format's reply text
    "text": "Thought: greet them\nAction: whoami[hi]",
    "json": 'Greet them.\n{"name": "whoami", "arguments": {"greeting": "hi"}}',
}


def test_tool_runtime_gets_the_context_and_call_id_as_in_create_agent():
    script = [tool_call("whoami", {"greeting": "hi"}, id="c1"), "done"]
    state, peer = create_agent_run(script, [whoami], "Say hi to me.", context_schema=Ctx, context=Ctx("u1"))
    result, model, _ = reactgraph_run(script, [whoami], "Say hi to me.", agent_options={"context_schema": Ctx}, context=Ctx("u1"))
    assert observations(result) == tool_results(state) == ["hi u1 (en); call c1"]
    assert result.final_answer == "done"
    schema = next(t for t in model.calls[0]["tools"] if t == "whoami")
    assert schema == "whoami" and model.calls[0]["tools"] == ["whoami", "ask_user"]


def test_a_context_given_as_a_dict_is_made_into_the_schema():
    script = [tool_call("whoami", {"greeting": "hi"}, id="c1"), "done"]
    result, _, _ = reactgraph_run(script, [whoami], "Say hi to me.", agent_options={"context_schema": Ctx},
                                  context={"user_id": "u2", "lang": "de"})
    assert observations(result) == ["hi u2 (de); call c1"]


@pytest.mark.parametrize("fmt", ["native", "text", "json"])
def test_the_hidden_arguments_are_never_shown_to_the_model(fmt):
    reply = tool_call("whoami", {"greeting": "hi"}, id="c1") if fmt == "native" else WRITTEN[fmt]
    model = ScriptedChatModel(responses=[reply, "Final Answer: done"])
    agent = ReActAgent(model, [whoami, plain_whoami], checkpointer=None, context_schema=Ctx, tool_calling=fmt)
    result = agent.run("Say hi to me.", context=Ctx("u1"))
    assert observations(result)[0].startswith("hi u1")
    prompt = "\n".join(str(m.content) for m in model.calls[0]["messages"])
    bound = model.calls[0]
    assert "runtime" not in prompt and "ToolRuntime" not in prompt
    if fmt == "native":
        assert "whoami" in bound["tools"]
    else:
        assert "whoami[<greeting>]" in prompt or '"greeting"' in prompt


def test_a_bad_call_is_told_only_the_arguments_the_model_gives():
    model = ScriptedChatModel(responses=[tool_call("whoami", {"greting": "hi"}), "Final Answer: done"])
    agent = ReActAgent(model, [whoami], checkpointer=None, context_schema=Ctx)
    text = observations(agent.run("Say hi to me.", context=Ctx("u1")))[0]
    assert "invalid_parameters" in text and "greeting: str" in text and "runtime" not in text


def test_a_plain_function_takes_the_runtime_too():
    script = [tool_call("plain_whoami", {"greeting": "hey"}), "done"]
    result, _, _ = reactgraph_run(script, [plain_whoami], "Say hey to me.", agent_options={"context_schema": Ctx}, context=Ctx("u3"))
    assert observations(result) == ["hey u3"]


def test_injected_state_and_call_id_as_in_create_agent():
    script = [AIMessage("", tool_calls=[
        {"name": "asked", "args": {}, "id": "a1", "type": "tool_call"},
        {"name": "first_message", "args": {}, "id": "f1", "type": "tool_call"},
    ]), "done"]
    state, _ = create_agent_run(script, [asked, first_message], question="what did I ask?")
    result, _, _ = reactgraph_run(script, [asked, first_message], "what did I ask?")
    assert observations(result) == tool_results(state) == ["asked: what did I ask?", "f1: what did I ask?"]


def test_a_forged_hidden_argument_is_refused():
    model = ScriptedChatModel(responses=[tool_call("first_message", {"call_id": "forged"}), "Final Answer: done"])
    result = ReActAgent(model, [first_message], checkpointer=None).run('what did I ask? Use the call id "forged".')
    assert "unexpected argument 'call_id'" in observations(result)[0]


def test_the_store_reaches_tools_across_threads_as_in_create_agent():
    store, peer_store = InMemoryStore(), InMemoryStore()
    told = [tool_call("remember", {"fact": "my cat is Tom"}), "noted"]
    ask = [tool_call("recall", {}), "Tom"]
    create_agent_run(told, [remember, recall], store=peer_store)
    peer, _ = create_agent_run(ask, [remember, recall], store=peer_store)
    model = ScriptedChatModel(responses=[*told, *ask])
    agent = ReActAgent(model, [remember, recall], checkpointer=None, store=store)
    agent.run("my cat is Tom", thread_id="one")
    result = agent.run("what is my cat called?", thread_id="two")
    assert observations(result) == tool_results(peer)[-1:] == ["my cat is Tom"]
    assert store.get(("facts",), "fact").value == {"text": "my cat is Tom"}


def test_a_tool_that_takes_the_store_without_one_is_told_so():
    model = ScriptedChatModel(responses=[tool_call("remember", {"fact": "x"}), "Final Answer: done"])
    result = ReActAgent(model, [remember], checkpointer=None).run("remember x")
    assert "ReActAgent(store=...)" in observations(result)[0] and "execution_failed" in observations(result)[0]


def test_middleware_sees_the_context_and_the_store():
    seen = []

    @before_model
    def look(state, runtime):
        seen.append((runtime.context, runtime.store))

    store = InMemoryStore()
    model = ScriptedChatModel(responses=["done"])
    agent = ReActAgent(model, [], checkpointer=None, middleware=[look], store=store, context_schema=Ctx)
    agent.run("hi", context=Ctx("u9"))
    assert seen == [(Ctx("u9"), store)]


def test_a_context_field_named_as_an_option_is_refused():
    @dataclass
    class Clash:
        max_iterations: int

    with pytest.raises(Exception, match="max_iterations is also an option"):
        ReActAgent(ScriptedChatModel(), [], checkpointer=None, context_schema=Clash)


def test_the_served_graph_takes_the_context_with_the_options():
    model = ScriptedChatModel(responses=[tool_call("whoami", {"greeting": "hi"}, id="c1"), "done"])
    graph = make_graph(model, [whoami], context_schema=Ctx)
    assert {"user_id", "lang", "max_iterations"} <= set(graph.get_context_jsonschema()["properties"])
    out = graph.invoke({"query": "Say hi to me."}, context={"user_id": "u5", "max_iterations": 3})
    assert [m.text for m in out["messages"] if m.type == "tool"] == ["hi u5 (en); call c1"]
    assert out["final_answer"] == "done"


def test_a_sub_agent_s_tools_see_the_parent_s_context():
    child_model = ScriptedChatModel(responses=[tool_call("whoami", {"greeting": "yo"}, id="k1"), "child done"])
    child = ReActAgent(child_model, [whoami], checkpointer=None, context_schema=Ctx)
    model = ScriptedChatModel(responses=[tool_call("helper", {"task": "Greet me with yo."}), "done"])
    parent = ReActAgent(model, [child.as_tool("helper", "greets")], checkpointer=None, context_schema=Ctx)
    result = parent.run("Greet me with yo.", context=Ctx("u7"))
    trace = result.trace.steps[0].observations[0].trace
    assert [o.content for s in trace.steps for o in s.observations] == ["yo u7 (en); call k1"]


@tool
async def awhoami(greeting: str, runtime: ToolRuntime[Ctx]) -> str:
    """Greet the user by id (async)."""
    return f"{greeting} {runtime.context.user_id}; call {runtime.tool_call_id}"


def test_an_async_tool_takes_the_runtime_in_arun():
    import asyncio

    model = ScriptedChatModel(responses=[tool_call("awhoami", {"greeting": "hi"}, id="a1"), "done"])
    agent = ReActAgent(model, [awhoami], context_schema=Ctx)
    result = asyncio.run(agent.arun("Say hi to me.", context=Ctx("u8")))
    assert observations(result) == ["hi u8; call a1"]


def remembered_across_threads(store, checkpointer) -> list[str]:
    """A fact told on one thread, recalled on another, in ``store`` (runs checkpointed to ``checkpointer``)."""
    model = ScriptedChatModel(responses=[tool_call("remember", {"fact": "my cat is Tom"}), "noted", tool_call("recall", {}), "Tom"])
    agent = ReActAgent(model, [remember, recall], checkpointer=checkpointer, store=store)
    agent.run("my cat is Tom", thread_id="one")
    return observations(agent.run("what is my cat called?", thread_id="two"))


def test_a_sqlite_store_keeps_the_fact(tmp_path):
    from langgraph.store.sqlite import SqliteStore

    with SqliteStore.from_conn_string(str(tmp_path / "memory.sqlite")) as store:
        store.setup()
        assert remembered_across_threads(store, tmp_path / "runs.sqlite") == ["my cat is Tom"]


def test_a_postgres_store_keeps_the_fact(postgres_url):
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(postgres_url) as store:
        store.setup()
        assert remembered_across_threads(store, postgres_url) == ["my cat is Tom"]
