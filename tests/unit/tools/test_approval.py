"""Tool approval (human in the loop): a call of a tool that needs approval pauses the run until a
person approves, edits or rejects it (real graph, real SQLite checkpointer, ScriptedChatModel)."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command

from reactgraph import Approve, Edit, ErrorKind, PendingApproval, ReActAgent, Reject, build_graph
from reactgraph import TerminationReason as R
from reactgraph.answers.waiting import AnswerError
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistry, UnknownToolError


def agent_for(responses, tools, tmp_path, **options) -> tuple[ReActAgent, ScriptedChatModel]:
    model = ScriptedChatModel(responses=responses)
    agent = ReActAgent(model=model, tools=tools, checkpointer=tmp_path / "db.sqlite", summary_every=0, **options)
    return agent, model


def tool_messages(call: dict) -> list[str]:
    """The tool results a prompt showed the model."""
    return [m.content for m in call["messages"] if isinstance(m, ToolMessage)]


def test_a_call_waits_for_approval_then_runs_once_with_the_models_args(tmp_path, math_tools, log):
    responses = [tool_call("multiply", {"a": 6, "b": 7}, thought="Multiply.", id="m1"), "6*7 = 42."]
    agent, model = agent_for(responses, math_tools, tmp_path, approve_tools=("multiply",))
    with agent:
        paused = agent.run("What is 6*7?", thread_id="t")
        assert paused.termination_reason is R.APPROVAL and paused.final_answer is None
        [pending] = paused.pending_approvals
        assert (pending.call_id, pending.tool, pending.args, pending.problem) == ("m1", "multiply", {"a": 6, "b": 7}, None)
        assert pending.interrupt_id and 'Args: {"a": 6, "b": 7}' in pending.description
        assert "multiply" in paused.termination_detail
        assert log.calls == [] and model.position == 1  # nothing ran, the model was not asked again
        info = agent.run_info("t")
        assert (info.status, info.reason) == ("waiting", "approval")

        done = agent.resume("t", approval=Approve())
    assert done.termination_reason is R.SUCCESS and done.final_answer == "6*7 = 42."
    assert log.calls == [("multiply", {"a": 6, "b": 7})]
    assert done.trace.steps[0].observations[0].content == "42"
    assert done.pending_approvals == []


def test_the_interrupt_shows_the_call_as_langchains_hitl_request(tmp_path, math_tools):
    agent, _ = agent_for([tool_call("add", {"a": 1, "b": 2}, id="a1"), "3"], math_tools, tmp_path, approve_tools=("*",))
    with agent:
        agent.run("1+2?", thread_id="t")
        [pending] = agent.graph.get_state({"configurable": {"thread_id": "t"}}).interrupts
    request = pending.value
    assert request["action_requests"][0]["name"] == "add" and request["action_requests"][0]["args"] == {"a": 1, "b": 2}
    assert "add" in request["action_requests"][0]["description"]
    assert request["review_configs"] == [{"action_name": "add", "allowed_decisions": ["approve", "edit", "reject"]}]
    assert request["tool_call_id"] == "a1"


def test_an_edited_call_runs_with_the_new_args_and_the_trace_shows_them(tmp_path, math_tools, log):
    registry = ToolRegistry()
    for tool in math_tools:
        registry.register(tool, policy=ToolPolicy(approve=True) if tool.__name__ == "multiply" else None)
    responses = [tool_call("multiply", {"a": 6, "b": 7}, id="m1"), "The product is 6."]
    agent, model = agent_for(responses, registry, tmp_path)
    with agent:
        paused = agent.run("What is 6*7?", thread_id="t")
        assert paused.termination_reason is R.APPROVAL
        done = agent.resume("t", approval=Edit({"a": 2, "b": 3}))
    assert log.calls == [("multiply", {"a": 2, "b": 3})]
    step = done.trace.steps[0]
    assert step.actions[0].args == {"a": 2, "b": 3}
    observation = step.observations[0]
    assert observation.status == "ok" and observation.content.endswith("6")
    assert '{"a": 6, "b": 7}' in observation.content  # the model is told what it asked for
    assert any("changed this call's arguments" in text for text in tool_messages(model.calls[1]))


def test_an_edit_with_bad_args_is_an_invalid_parameters_observation(tmp_path, math_tools, log):
    responses = [tool_call("multiply", {"a": 6, "b": 7}), tool_call("multiply", {"a": 6, "b": 7}), "42"]
    agent, _ = agent_for(responses, math_tools, tmp_path, approve_tools=("multiply",))
    with agent:
        agent.run("6*7?", thread_id="t")
        again = agent.resume("t", approval=Edit({"a": "six"}))
        assert again.termination_reason is R.APPROVAL  # the model's next call waits again
        observation = again.trace.steps[0].observations[0]
        assert observation.error_kind == ErrorKind.INVALID_PARAMETERS and "b" in observation.content
        done = agent.resume("t", approval=Approve())
    assert log.calls == [("multiply", {"a": 6, "b": 7})] and done.final_answer == "42"


def test_a_rejected_call_never_runs_and_the_model_sees_the_reason(tmp_path, math_tools, log):
    responses = [
        tool_call("multiply", {"a": 6, "b": 7}, id="m1"),
        tool_call("multiply", {"a": 6, "b": 7}, id="m2"),
        "I was not allowed to multiply.",
    ]
    # max_tool_failures=1: a rejection is no failure of the tool, so the breaker leaves it offered
    agent, model = agent_for(responses, math_tools, tmp_path, approve_tools=("multiply",), max_tool_failures=1)
    asked: list[PendingApproval] = []
    with agent:
        done = agent.run("6*7?", thread_id="t", on_approval=lambda call: asked.append(call) or Reject("too expensive"))
    assert [c.call_id for c in asked] == ["m1", "m2"]
    assert log.calls == []
    assert done.termination_reason is R.SUCCESS and done.final_answer == "I was not allowed to multiply."
    observation = done.trace.steps[0].observations[0]
    assert observation.status == "error" and observation.error_kind == ErrorKind.REJECTED
    assert "too expensive" in observation.content
    assert any("too expensive" in text for text in tool_messages(model.calls[1]))
    assert "multiply" in model.calls[2]["tools"]  # not disabled by the breaker
    assert done.tool_usage == {}


def test_decisions_as_langchain_dicts(tmp_path, math_tools, log):
    responses = [tool_call("add", {"a": 1, "b": 2}), tool_call("add", {"a": 3, "b": 4}), tool_call("add", {"a": 5, "b": 6}), "done"]
    agent, model = agent_for(responses, math_tools, tmp_path, approve_tools=("add",))
    with agent:
        agent.run("Add 1 and 2, 3 and 4, then 5 and 6.", thread_id="t")
        agent.resume("t", approval={"type": "approve"})
        agent.resume("t", approval={"type": "edit", "edited_action": {"name": "add", "args": {"a": 30, "b": 4}}})
        done = agent.resume("t", approval={"decisions": [{"type": "reject", "message": "enough"}]})
    assert log.calls == [("add", {"a": 1, "b": 2}), ("add", {"a": 30, "b": 4})]
    assert "enough" in done.trace.steps[2].observations[0].content


def test_two_parallel_calls_wait_at_once_and_are_decided_one_by_one(tmp_path, math_tools, log):
    turn = tool_calls([("multiply", {"a": 6, "b": 7}), ("add", {"a": 1, "b": 2})], ids=["m", "a"])
    agent, _ = agent_for([turn, "42 and 3"], math_tools, tmp_path, approve_tools=("*",))
    with agent:
        paused = agent.run("What are 6*7 and 1+2?", thread_id="t")
        assert [(p.call_id, p.tool) for p in paused.pending_approvals] == [("m", "multiply"), ("a", "add")]
        with pytest.raises(AnswerError, match="2 calls wait for approval"):
            agent.resume("t", approval=Approve())  # which one? nothing runs
        with pytest.raises(AnswerError, match="no call 'x' waits"):
            agent.resume("t", approvals={"x": Approve()})
        assert log.calls == []
        half = agent.resume("t", approvals={"m": Approve()})
        assert half.termination_reason is R.APPROVAL
        assert [p.call_id for p in half.pending_approvals] == ["a"]
        assert log.calls == [("multiply", {"a": 6, "b": 7})]
        done = agent.resume("t", approvals={"a": Edit({"a": 1, "b": 20})})
    assert log.calls == [("multiply", {"a": 6, "b": 7}), ("add", {"a": 1, "b": 20})]  # multiply ran once
    assert done.final_answer == "42 and 3"
    assert [o.content for o in done.trace.steps[0].observations][0] == "42"


def test_both_parallel_calls_decided_at_once(tmp_path, math_tools, log):
    turn = tool_calls([("multiply", {"a": 6, "b": 7}), ("add", {"a": 1, "b": 2})], ids=["m", "a"])
    agent, _ = agent_for([turn, "42"], math_tools, tmp_path, approve_tools=("multiply", "add"))
    with agent:
        agent.run("What are 6*7 and 1+2?", thread_id="t")
        done = agent.resume("t", approvals={"m": Approve(), "a": Reject("not needed")})
    assert log.calls == [("multiply", {"a": 6, "b": 7})]
    assert [o.error_kind for o in done.trace.steps[0].observations] == [None, ErrorKind.REJECTED]


def test_approval_from_a_new_agent_on_the_same_database(tmp_path, math_tools, log):
    def model() -> ScriptedChatModel:  # replies from the prompt alone: a new process needs no memory
        return ScriptedChatModel(
            responses=[by_prompt(("42", "6*7 = 42."), default=tool_call("multiply", {"a": 6, "b": 7}, id="m1"))], repeat_last=True
        )

    db = tmp_path / "db.sqlite"
    with ReActAgent(model=model(), tools=math_tools, checkpointer=db, approve_tools=("multiply",)) as first:
        assert first.run("6*7?", thread_id="t").termination_reason is R.APPROVAL
    with ReActAgent(model=model(), tools=math_tools, checkpointer=db, approve_tools=("multiply",)) as second:
        assert second.get_result("t").pending_approvals[0].call_id == "m1"
        done = second.resume("t", approval=Approve())
    assert done.final_answer == "6*7 = 42."
    assert log.calls == [("multiply", {"a": 6, "b": 7})]


def test_a_run_override_asks_for_approval_and_a_resume_keeps_it(tmp_path, math_tools, log):
    responses = [tool_call("add", {"a": 1, "b": 2}), tool_call("add", {"a": 3, "b": 4}), "done"]
    agent, _ = agent_for(responses, math_tools, tmp_path)
    with agent:
        assert agent.run("Add 1 and 2, then 3 and 4.", thread_id="t", approve_tools=["add"]).termination_reason is R.APPROVAL
        again = agent.resume("t", approval=Approve())  # the stored run option still applies
        assert again.termination_reason is R.APPROVAL and log.calls == [("add", {"a": 1, "b": 2})]


def test_cached_and_refused_calls_need_no_approval(tmp_path, math_tools, log):
    registry = ToolRegistry()
    for tool in math_tools:
        registry.register(tool, policy=ToolPolicy(approve=True, cacheable=tool.__name__ == "lookup"))
    responses = [
        tool_call("lookup", {"key": "paris"}),
        tool_calls([("lookup", {"key": "paris"}), ("add", {"a": "x"}), ("nope", {})]),
        "France",
    ]
    agent, _ = agent_for(responses, registry, tmp_path)
    with agent:
        agent.run("Look up paris, then add x to it.", thread_id="t")
        done = agent.resume("t", approval=Approve())  # the first lookup; the second turn asks nothing
    assert done.termination_reason is R.SUCCESS
    assert log.calls == [("lookup", {"key": "paris"})]
    cached, invalid, unknown = done.trace.steps[1].observations
    assert cached.cached and invalid.error_kind == ErrorKind.INVALID_PARAMETERS and unknown.error_kind == ErrorKind.TOOL_NOT_FOUND


def test_a_malformed_decision_is_an_error_before_anything_runs(tmp_path, math_tools, log):
    agent, _ = agent_for([tool_call("add", {"a": 1, "b": 2}), "3"], math_tools, tmp_path, approve_tools=("add",))
    with agent:
        agent.run("1+2?", thread_id="t")
        for bad, says in [
            ({"type": "maybe"}, "not an approval decision"),
            ({"type": "edit", "args": {"a": 1}}, "edited_action"),
            ({"type": "edit", "edited_action": {"name": "multiply", "args": {}}}, "not call 'multiply' instead"),
            ("yes", "not an approval decision"),
            (Edit(["a"]), "not an approval decision"),  # type: ignore[arg-type]
        ]:
            with pytest.raises(AnswerError, match=says):
                agent.resume("t", approval=bad)
        with pytest.raises(AnswerError, match="not waiting for an answer"):
            agent.resume("t", "Rome")
        assert log.calls == [] and agent.run_info("t").status == "waiting"
        with pytest.raises(AnswerError, match="on_approval returned"):
            agent.resume("t", on_approval=lambda call: "sure")
        assert agent.resume("t", approval=Approve()).final_answer == "3"


def test_a_malformed_resume_sent_to_the_graph_asks_again(tmp_path, math_tools, log):
    """A client that resumes the graph itself (Studio, langgraph-sdk) with a bad value: the call is
    asked about again, saying what was wrong; nothing ran, nothing crashed."""
    agent, _ = agent_for([tool_call("add", {"a": 1, "b": 2}), "3"], math_tools, tmp_path, approve_tools=("add",))
    config = {"configurable": {"thread_id": "t"}}
    with agent:
        agent.run("1+2?", thread_id="t")
        agent.graph.invoke(Command(resume={"type": "aprove"}), config)
        [again] = agent.graph.get_state(config).interrupts
        assert "not an approval decision" in again.value["problem"]
        assert log.calls == []
        assert agent.get_result("t").pending_approvals[0].problem == again.value["problem"]
        agent.graph.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    assert log.calls == [("add", {"a": 1, "b": 2})]


def test_an_unknown_tool_name_in_approve_tools_names_the_close_match(tmp_path, math_tools):
    with pytest.raises(UnknownToolError, match="approve_tools: no tool named 'mulitply' \\(did you mean 'multiply'\\?\\)"):
        ReActAgent(model=ScriptedChatModel(), tools=math_tools, approve_tools=("mulitply",))
    agent = ReActAgent(model=ScriptedChatModel(), tools=math_tools, checkpointer=None)
    with pytest.raises(UnknownToolError, match="did you mean 'lookup'"):
        agent.run("?", approve_tools=("lokup",))


def test_the_bare_graph_pauses_and_a_resume_without_the_context_still_decides(math_tools, log):
    from langgraph.checkpoint.memory import InMemorySaver

    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 2}), "3"])
    graph = build_graph(model, math_tools, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"query": "1+2?"}, config, context={"approve_tools": ["add"]})
    assert graph.get_state(config).next == ("act",) and log.calls == []
    out = graph.invoke(Command(resume={"type": "approve"}), config)  # decided with the turn: no context needed now
    assert out["final_answer"] == "3" and log.calls == [("add", {"a": 1, "b": 2})]


def test_arun_decides_with_on_approval_too(tmp_path, math_tools, log):
    import asyncio

    turn = tool_calls([("multiply", {"a": 6, "b": 7}), ("add", {"a": 1, "b": 2})], ids=["m", "a"])
    agent, _ = agent_for([turn, "42"], math_tools, tmp_path, approve_tools=("*",))
    decide = {"m": Approve(), "a": Reject("no sums")}
    with agent:
        done = asyncio.run(agent.arun("What are 6*7 and 1+2?", thread_id="t", on_approval=lambda call: decide[call.call_id]))
    assert done.final_answer == "42" and log.calls == [("multiply", {"a": 6, "b": 7})]
    assert "no sums" in done.trace.steps[0].observations[1].content


def test_a_question_and_a_call_to_approve_in_one_turn(tmp_path, math_tools, log):
    turn = tool_calls([("ask_user", {"question": "Which city?"}), ("multiply", {"a": 6, "b": 7})], ids=["q", "m"])
    agent, _ = agent_for([turn, "Rome, 42"], math_tools, tmp_path, approve_tools=("multiply",))
    with agent:
        paused = agent.run("What is 6*7, and which city do I mean?", thread_id="t")
        assert paused.termination_reason is R.CLARIFICATION and paused.termination_detail == "Which city?"
        assert [p.call_id for p in paused.pending_approvals] == ["m"]
        answered = agent.resume("t", "Rome")  # the call keeps waiting
        assert answered.termination_reason is R.APPROVAL and log.calls == []
        done = agent.resume("t", approval=Approve())
    assert done.final_answer == "Rome, 42" and log.calls == [("multiply", {"a": 6, "b": 7})]
    assert [o.content for o in done.trace.steps[0].observations] == ["The user answered: Rome", "42"]
