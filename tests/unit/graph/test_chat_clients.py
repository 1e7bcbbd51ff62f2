"""What the ecosystem's chat clients (Agent Chat UI, Agent Inbox, LangChain 1.x clients) see and send while a run
waits on a person, on the bare graph as ``langgraph dev`` runs it (real graph, InMemorySaver, ScriptedChatModel):

- the interrupt of a call waiting for approval carries LangChain's HITL request and LangGraph's HumanInterrupt;
  a clarification question is a HumanInterrupt answered by typing (allow_respond only);
- a resume in either answer shape decides the call (Agent Chat UI's ``[{"type": "accept", "args": null}]`` ...);
- a chat message sent to the waiting thread (with the client's made-up tool results, as Agent Chat UI sends them)
  is the answer or the decision: the waiting call is never dropped, the made-up result never kept;
- every turn closes with an AI message, also one that ends without an answer.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from reactgraph import build_graph
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call, tool_calls

CONFIG = {"configurable": {"thread_id": "t"}}
MADE_UP = "Successfully handled tool call."  # what Agent Chat UI sends as the result of a call that has none


def graph_for(responses, tools, **context):
    model = ScriptedChatModel(responses=responses, repeat_last=len(responses) == 1)
    return build_graph(model, tools, checkpointer=InMemorySaver()), model, context


def ask(graph, text: str, context: dict, **extra) -> dict:
    return graph.invoke({"messages": [HumanMessage(text, id=extra.get("id", f"h-{text}"))]}, CONFIG, context=context)


def as_ui_sends(graph, text: str, context: dict) -> dict:
    """A message typed in Agent Chat UI while the thread waits: a made-up result for each call without one, then
    the message (``ensureToolCallsHaveResponses``)."""
    chat = graph.get_state(CONFIG).values["messages"]
    calls = chat[-1].tool_calls
    made_up = [ToolMessage(MADE_UP, tool_call_id=c["id"], name=c["name"], id=f"do-not-render-{c['id']}") for c in calls]
    return graph.invoke({"messages": [*made_up, HumanMessage(text, id="reply")]}, CONFIG, context=context)


def chat_of(graph) -> list[tuple[str, str]]:
    return [(m.type, m.text) for m in graph.get_state(CONFIG).values["messages"]]


# -- the interrupts ----------------------------------------------------------------------------


def test_a_waiting_call_is_shown_as_a_hitl_request_and_a_human_interrupt(math_tools):
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}, id="a1"), "3"], math_tools, approve_tools=["add"])
    ask(graph, "1+2?", context)
    [pending] = graph.get_state(CONFIG).interrupts
    value = pending.value
    assert value["action_requests"][0]["name"] == "add" and value["review_configs"][0]["action_name"] == "add"
    # what Agent Chat UI's isAgentInboxInterruptSchema checks, and draws: the action, its args, the description
    assert value["action_request"] == {"action": "add", "args": {"a": 1, "b": 2}}
    assert value["config"] == {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True}
    assert 'Args: {"a": 1, "b": 2}' in value["description"] and value["tool_call_id"] == "a1"


def test_a_question_is_a_human_interrupt_answered_by_typing(math_tools):
    graph, _, context = graph_for([tool_call("ask_user", {"question": "Which city?"}, id="q"), "Rome it is."], math_tools)
    ask(graph, "Weather?", context)
    [pending] = graph.get_state(CONFIG).interrupts
    assert pending.value["question"] == "Which city?" and pending.value["description"] == "Which city?"
    assert pending.value["action_request"] == {"action": "ask_user", "args": {"question": "Which city?"}}
    assert pending.value["config"] == {"allow_accept": False, "allow_edit": False, "allow_respond": True, "allow_ignore": False}

    graph.invoke(Command(resume=[{"type": "accept", "args": None}]), CONFIG)  # no answer: asked again, saying why
    [again] = graph.get_state(CONFIG).interrupts
    assert "answered with text, not 'accept'" in again.value["problem"]
    out = graph.invoke(Command(resume=[{"type": "response", "args": "Rome"}]), CONFIG)  # Agent Chat UI's answer
    assert out["final_answer"] == "Rome it is."
    assert out["steps"][0]["observations"][0]["content"] == "The user answered: Rome"


@pytest.mark.parametrize(
    ("resume", "ran", "says"),
    [
        ([{"type": "accept", "args": None}], [("add", {"a": 1, "b": 2})], "3"),
        ({"type": "accept", "args": None}, [("add", {"a": 1, "b": 2})], "3"),
        ([{"type": "edit", "args": {"action": "add", "args": {"a": 2, "b": 2}}}], [("add", {"a": 2, "b": 2})], "4"),
        ([{"type": "response", "args": "not now"}], [], "Their reason: not now."),
        ([{"type": "ignore", "args": None}], [], "Their reason: none given."),
        ({"decisions": [{"type": "approve"}]}, [("add", {"a": 1, "b": 2})], "3"),  # LangChain 1.x's, as before
    ],
)
def test_a_resume_in_either_answer_shape_decides_the_call(math_tools, log, resume, ran, says):
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}, id="a1"), "done"], math_tools, approve_tools=["add"])
    ask(graph, "1+2?", context)
    out = graph.invoke(Command(resume=resume), CONFIG)
    assert log.calls == ran
    content = out["steps"][0]["observations"][0]["content"]
    assert out["final_answer"] == "done" and (content.endswith(says) if ran else says in content and "Error (rejected)" in content)


def test_an_edit_of_another_tool_is_asked_about_again(math_tools, log):
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}), "done"], math_tools, approve_tools=["add"])
    ask(graph, "1+2?", context)
    graph.invoke(Command(resume=[{"type": "edit", "args": {"action": "multiply", "args": {"a": 1, "b": 2}}}]), CONFIG)
    [again] = graph.get_state(CONFIG).interrupts
    assert "not call 'multiply' instead" in again.value["problem"] and log.calls == []


# -- a chat message sent to a waiting thread ---------------------------------------------------


def test_approve_typed_in_the_chat_runs_the_waiting_call_and_no_made_up_result_is_kept(math_tools, log):
    """The issue's case: the waiting call ran never, and the made-up result was kept as its result."""
    graph, model, context = graph_for([tool_call("add", {"a": 1, "b": 2}, id="a1"), "1 + 2 = 3"], math_tools, approve_tools=["add"])
    ask(graph, "What is 1+2?", context)
    out = as_ui_sends(graph, "Approve", context)
    assert log.calls == [("add", {"a": 1, "b": 2})]
    assert out["final_answer"] == "1 + 2 = 3" and out["turn"] == 1  # the same turn went on: no new question
    assert chat_of(graph) == [("human", "What is 1+2?"), ("ai", ""), ("tool", "3"), ("ai", "1 + 2 = 3")]
    assert MADE_UP not in str(model.calls[-1]["messages"])  # the model saw the real result only
    assert graph.get_state(CONFIG).interrupts == ()


def test_other_text_typed_in_the_chat_rejects_the_call_with_it_as_the_reason(math_tools, log):
    graph, model, context = graph_for([tool_call("add", {"a": 1, "b": 2}, id="a1"), "OK, I will not add."], math_tools, approve_tools=["add"])
    ask(graph, "What is 1+2?", context)
    out = as_ui_sends(graph, "No - use 5 and 6 instead", context)
    assert log.calls == []
    [observation] = out["steps"][0]["observations"]
    assert observation["error_kind"] == "rejected" and "Their reason: No - use 5 and 6 instead." in observation["content"]
    assert "No - use 5 and 6 instead" in str(model.calls[-1]["messages"])
    assert [t for t, _ in chat_of(graph)] == ["human", "ai", "tool", "ai"]


def test_a_message_without_made_up_results_is_read_the_same(math_tools, log):
    """A client that sends the message alone (langgraph-sdk, Studio's chat view)."""
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}), "3"], math_tools, approve_tools=["add"])
    ask(graph, "What is 1+2?", context)
    out = ask(graph, "yes, go ahead", context)
    assert log.calls == [("add", {"a": 1, "b": 2})] and out["final_answer"] == "3" and out["turn"] == 1


def test_a_message_typed_while_the_model_asks_is_the_answer(math_tools):
    reply = by_prompt(("The user answered: Rome", "The weather in Rome is sunny."), default=tool_call("ask_user", {"question": "Which city?"}))
    graph, _, context = graph_for([reply], math_tools)
    graph.get_graph()  # drawn: START may lead to act
    ask(graph, "What is the weather like?", context)
    out = as_ui_sends(graph, "Rome", context)
    assert out["final_answer"] == "The weather in Rome is sunny." and out["turn"] == 1
    assert chat_of(graph)[2:] == [("tool", "The user answered: Rome"), ("ai", "The weather in Rome is sunny.")]


def test_a_reply_sent_without_an_id_is_taken_out_of_the_chat_too(math_tools):
    """A client's message without an id (a dict from langgraph-sdk) has one id while the input is applied, when the
    start routes it, and another once saved: the removal still finds it, and the thread stays readable."""
    reply = by_prompt(("The user answered: Rome", "Sunny in Rome."), default=tool_call("ask_user", {"question": "Which city?"}))
    graph, _, context = graph_for([reply], math_tools)
    graph.invoke({"messages": [{"type": "human", "content": "Weather?"}]}, CONFIG)
    out = graph.invoke({"messages": [{"type": "human", "content": "Rome"}]}, CONFIG)
    assert out["final_answer"] == "Sunny in Rome." and out["turn"] == 1
    assert chat_of(graph) == [("human", "Weather?"), ("ai", ""), ("tool", "The user answered: Rome"), ("ai", "Sunny in Rome.")]


def test_a_query_sent_to_a_waiting_thread_is_the_reply_too(math_tools, log):
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}), "3"], math_tools, approve_tools=["add"])
    graph.invoke({"query": "What is 1+2?"}, CONFIG, context=context)
    out = graph.invoke({"query": "approve"}, CONFIG, context=context)
    assert log.calls == [("add", {"a": 1, "b": 2})] and out["final_answer"] == "3" and out["turn"] == 1
    assert graph.get_state(CONFIG).values.get("query") is None


def test_approve_typed_decides_every_call_waiting_in_the_turn(math_tools, log):
    turn = tool_calls([("add", {"a": 1, "b": 2}), ("multiply", {"a": 3, "b": 4})], ids=["a", "m"])
    graph, _, context = graph_for([turn, "3 and 12"], math_tools, approve_tools=["*"])
    ask(graph, "What are 1+2 and 3*4?", context)
    assert len(graph.get_state(CONFIG).interrupts) == 2
    out = as_ui_sends(graph, "ok", context)
    assert sorted(log.calls) == [("add", {"a": 1, "b": 2}), ("multiply", {"a": 3, "b": 4})]
    assert out["final_answer"] == "3 and 12"
    assert [t for t, _ in chat_of(graph)] == ["human", "ai", "tool", "tool", "ai"]


def test_after_the_turn_ends_a_message_is_the_next_question(math_tools, log):
    graph, _, context = graph_for([tool_call("add", {"a": 1, "b": 2}), "3", "Hello!"], math_tools, approve_tools=["add"])
    ask(graph, "What is 1+2?", context)
    as_ui_sends(graph, "approve", context)
    out = ask(graph, "Hi", context)
    assert out["final_answer"] == "Hello!" and out["turn"] == 2 and log.calls == [("add", {"a": 1, "b": 2})]


# -- every turn closes with an AI message --------------------------------------------------------


def test_a_stalled_turn_closes_with_what_it_found_and_why_it_stopped(math_tools):
    responses = [tool_call("lookup", {"key": "paris"}) for _ in range(3)] + [""]
    graph, _, context = graph_for(responses, math_tools, stall_threshold=3, max_iterations=10)
    out = ask(graph, "Where is Paris?", context)
    assert out["termination"]["reason"] == "stalled" and out["final_answer"] is None
    closing = graph.get_state(CONFIG).values["messages"][-1]
    assert isinstance(closing, AIMessage) and not closing.tool_calls
    assert closing.text.startswith("I stopped without an answer: it stalled: the same action 3 times in a row")
    assert 'lookup({"key": "paris"}) returned: France' in closing.text


def test_a_failed_turn_keeps_its_question_and_says_why(math_tools):
    def broken(messages):
        raise ValueError("the model is broken")

    graph, _, context = graph_for([broken], math_tools)
    out = ask(graph, "What is 1+2?", context)
    assert out["termination"]["reason"] == "failure"
    assert [t for t, _ in chat_of(graph)] == ["human", "ai"]
    assert chat_of(graph)[0] == ("human", "What is 1+2?")
    assert chat_of(graph)[1][1].startswith("I stopped without an answer: it failed: model call failed: ValueError: the model is broken")


def test_a_partial_answer_says_the_turn_was_cut_short(math_tools):
    responses = [tool_call("add", {"a": i, "b": 1}) for i in range(2)] + ["So far: 2."]
    graph, _, context = graph_for(responses, math_tools, max_iterations=2)
    out = ask(graph, "Keep adding", context)
    assert out["final_answer"] == "So far: 2." and graph.get_state(CONFIG).values["partial"]
    assert chat_of(graph)[-1] == ("ai", "So far: 2.\n\n(A partial answer: it reached its step limit (max_iterations): reached max_iterations=2.)")
