"""The trace is the record: every model call is in a step with its tokens, and the stop is decided once."""

from __future__ import annotations

import time

from langchain_core.messages import BaseMessage

from reactgraph import ReActAgent, TerminationReason, TokenUsage
from reactgraph.answers.result import ReActResult
from reactgraph.state import current_turn
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.graph.test_context import OBSERVATION_MARK, long_page


def step_tokens(result: ReActResult) -> int:
    return sum(step.token_usage.total_tokens for step in result.trace.steps)


def purposes(result: ReActResult) -> list[list[str]]:
    return [[call.purpose for call in step.calls] for step in result.trace.steps]


def test_the_answering_turn_is_a_step_with_its_thought_and_tokens(math_tools):
    answer = tool_call("add", {"a": 2, "b": 3}, thought="Add them.")
    model = ScriptedChatModel(responses=[answer, "I added them: 2 + 3 = 5"])
    result = ReActAgent(model, math_tools, checkpointer=None).run("What is 2 + 3?")
    assert result.final_answer == "I added them: 2 + 3 = 5"
    assert [step.kind for step in result.trace.steps] == ["tools", "final"]
    assert result.trace.total_iterations == len(result.trace.steps) == 2
    assert result.trace.steps[-1].iteration == 2 and result.trace.steps[-1].actions == []
    assert purposes(result) == [["think"], ["think"]]
    assert result.trace.steps[-1].token_usage.total_tokens > 0
    assert step_tokens(result) == result.token_usage.total_tokens


def test_a_give_up_keeps_its_thought_in_the_trace(math_tools):
    model = ScriptedChatModel(responses=["Thought: nothing here helps.\nFinal Answer: The question cannot be answered with these tools."])
    result = ReActAgent(model, math_tools, checkpointer=None, tool_calling="text").run("What is the moon made of?")
    assert result.termination_reason is TerminationReason.FAILURE
    assert [step.kind for step in result.trace.steps] == ["final"]
    assert "nothing here helps" in result.trace.steps[0].thought
    assert step_tokens(result) == result.token_usage.total_tokens


def test_summaries_condensed_observations_and_the_partial_answer_belong_to_steps():
    def reply(messages: list[BaseMessage]):
        if OBSERVATION_MARK in messages[0].text:
            return "The page says the bridge opened in 1932."
        if "You must stop now" in messages[-1].text:
            return "It opened in 1932."
        if messages[0].text.startswith("You keep the running notes"):
            return "Read page 1, it mentions 1932."
        return tool_call("long_page", {"n": len(messages)}, thought="Read the page.")

    model = ScriptedChatModel(responses=[reply], repeat_last=True)
    agent = ReActAgent(model, [long_page], checkpointer=None, allow_clarification=False, max_observation_tokens=100)
    question = "When did the bridge open? Its pages 2, 4 and 6 may tell."
    result = agent.run(question, summarize_observations=True, summary_every=1, max_iterations=3, stall_threshold=5)
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS and result.partial
    assert result.final_answer == "It opened in 1932."
    kinds = [step.kind for step in result.trace.steps]
    assert kinds == ["tools", "tools", "tools", "partial_answer"]
    flat = [p for step in purposes(result) for p in step]
    assert flat.count("think") == 3 and flat.count("condense") == 3 and flat.count("partial_answer") == 1
    assert flat.count("summarize") == 2  # after turns 1 and 2; the third ends the run
    assert len(flat) == len(model.calls)  # every model call is in the trace
    assert step_tokens(result) == result.token_usage.total_tokens
    for step in result.trace.steps:
        assert step.token_usage.total_tokens == sum(call.token_usage.total_tokens for call in step.calls)


def test_streamed_steps_include_the_final_turn(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 1}, thought="Add."), "1 + 1 = 2"])
    items = list(ReActAgent(model, math_tools, checkpointer=None).stream("1 + 1?"))
    assert [item.kind for item in items[:-1]] == ["tools", "final"]
    assert isinstance(items[-1], ReActResult) and items[-1].final_answer == "1 + 1 = 2"


def test_the_stop_routed_is_the_stop_reported(math_tools, monkeypatch):
    """A stall routes the run to terminate; terminate must not decide again on a later clock."""
    import reactgraph.graph.nodes._terminate as terminate

    class Later:
        @staticmethod
        def time() -> float:
            return time.time() + 3600  # terminate runs an hour after the router: the time budget is gone

    monkeypatch.setattr(terminate, "time", Later)
    responses = [tool_call("lookup", {"key": "paris"}, thought="Look it up.")] * 2 + ["Paris is in France."]
    model = ScriptedChatModel(responses=responses)
    agent = ReActAgent(model, math_tools, checkpointer=None, stall_threshold=2, timeout_seconds=600)
    result = agent.run("Where is Paris?")
    assert result.termination_reason is TerminationReason.STALLED
    assert "same action 2 times" in result.termination_detail


def test_requirement_names_are_aliases():
    assert TerminationReason.FAILURE_DETECTED is TerminationReason.FAILURE
    assert TerminationReason.USER_CANCELLED is TerminationReason.CANCELLED
    assert TerminationReason("failure") is TerminationReason.FAILURE_DETECTED


def test_trace_total_tokens_is_the_runs_token_usage(math_tools):
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 2, "b": 2}, thought="Add."), "4"])
    result = ReActAgent(model, math_tools, checkpointer=None).run("2 + 2?")
    assert isinstance(result.trace.total_tokens, TokenUsage)
    assert result.trace.total_tokens == result.token_usage and result.token_usage.total_tokens > 0


def test_a_state_without_a_recorded_stop_still_ends_for_the_limit_that_fired(math_tools, tmp_path):
    """A run checkpointed before stops were recorded (or edited by hand) reaches terminate without one."""
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 1, "b": 1}, thought="Add.")])
    agent = ReActAgent(model, math_tools, checkpointer=tmp_path / "db.sqlite", max_iterations=1, early_stopping="force")
    config = {"configurable": {"thread_id": "old"}}
    context = {"max_iterations": 1, "early_stopping": "force"}
    agent.graph.invoke({"query": "1 + 1?"}, config, context=context, interrupt_before=["terminate"])
    assert agent.graph.get_state(config).values["termination"]["reason"] == "max_iterations"  # recorded by observe
    # as an older version left it: no stop recorded, terminate next
    turn = current_turn(agent.graph.get_state(config).values)
    agent.graph.update_state(config, {"termination": None, "current_turn": {**turn, "actions": []}}, as_node="think")
    assert agent.graph.get_state(config).next == ("terminate",)
    agent.graph.invoke(None, config, context=context)
    result = agent.get_result("old")
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS and result.partial
