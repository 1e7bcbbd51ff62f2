"""Sub-agents: a ReActAgent called by another as a tool, run as a subgraph of the parent's run."""

from __future__ import annotations

import threading
import time

from reactgraph import ReActAgent, ToolRegistry
from reactgraph import TerminationReason as R
from reactgraph.persistence import format_trace
from reactgraph.testing import ScriptedChatModel, tool_call


def child_agent(math_tools, **options) -> ReActAgent:
    model = ScriptedChatModel(responses=[
        tool_call("multiply", {"a": 6, "b": 7}, thought="First the product."),
        tool_call("add", {"a": 42, "b": 1}, thought="Then one more."),
        "43",
    ])
    return ReActAgent(model=model, tools=math_tools, checkpointer=None, **options)


def parent_agent(child: ReActAgent, *responses, **options) -> ReActAgent:
    model = ScriptedChatModel(responses=[
        tool_call("calculator_agent", {"task": "Compute 6*7+1."}, thought="I delegate the sums."),
        *responses,
        "The result is 43.",
    ])
    registry = ToolRegistry()
    registry.register_agent(child, "calculator_agent", "A helper that does arithmetic with its own tools.")
    return ReActAgent(model=model, tools=registry, checkpointer=None, **options)


def test_the_parent_delegates_to_a_child_that_makes_two_tool_calls(math_tools, log):
    child = child_agent(math_tools)
    parent = parent_agent(child)
    result = parent.run("What is 6*7+1?")
    assert result.termination_reason is R.SUCCESS and result.final_answer == "The result is 43."
    assert log.calls == [("multiply", {"a": 6, "b": 7}), ("add", {"a": 42, "b": 1})]
    obs = result.trace.steps[0].observations[0]
    assert (obs.tool, obs.status, obs.content) == ("calculator_agent", "ok", "43")
    nested = obs.trace
    assert nested is not None and nested.termination_reason is R.SUCCESS and nested.final_result == "43"
    assert [[a.tool for a in s.actions] for s in nested.steps] == [["multiply"], ["add"], []]
    assert [s.thought for s in nested.steps[:2]] == ["First the product.", "Then one more."]
    # the child's tokens are the parent's: one sub_agent call of the parent's step, in the run's usage
    child_tokens = nested.total_tokens.total_tokens
    assert child_tokens > 0
    assert [c.purpose for c in result.trace.steps[0].calls] == ["think", "sub_agent"]
    assert result.trace.steps[0].calls[1].token_usage.total_tokens == child_tokens
    assert sum(s.token_usage.total_tokens for s in result.trace.steps) == result.token_usage.total_tokens
    parent_only = sum(c.token_usage.total_tokens for s in result.trace.steps for c in s.calls if c.purpose != "sub_agent")
    assert result.token_usage.total_tokens == parent_only + child_tokens
    assert result.tool_usage == {"calculator_agent": 1}


def test_the_child_trace_shows_indented_under_its_call(math_tools):
    result = parent_agent(child_agent(math_tools)).run("What is 6*7+1?")
    text = format_trace(result)
    assert "Action: calculator_agent[Compute 6*7+1.]\n    Thought: First the product.\n    Action: multiply[a=6, b=7]\n" in text
    assert "    Final Answer: 43\nObservation: 43\n" in text


def test_the_child_gets_what_is_left_of_the_parents_budgets(math_tools):
    seen: list[tuple[float | None, int | None]] = []
    child = child_agent(math_tools, termination_callback=lambda step: False)
    parent = parent_agent(child, token_budget=10_000, timeout_seconds=300)
    from reactgraph.graph import subagents

    limits = subagents.child_limits

    def spy(cfg, deadline, tokens_left):
        found = limits(cfg, deadline, tokens_left)
        seen.append((found[0].get("timeout_seconds"), found[0].get("token_budget")))
        return found

    subagents.child_limits = spy
    try:
        result = parent.run("What is 6*7+1?")
    finally:
        subagents.child_limits = limits
    [(seconds, tokens)] = seen
    first_call = result.trace.steps[0].calls[0].token_usage.total_tokens
    assert tokens == 10_000 - first_call
    assert seconds is not None and 290 < seconds <= 300


def test_a_child_whose_budget_is_spent_is_not_run(math_tools, log):
    child = child_agent(math_tools)
    # the parent's first call uses more than the budget leaves; the stop rules come after the turn
    parent = parent_agent(child, token_budget=1)
    result = parent.run("What is 6*7+1?")
    assert log.calls == []
    obs = result.trace.steps[0].observations[0]
    assert obs.status == "error" and "token budget is used up" in obs.content and obs.trace is None
    assert result.termination_reason is R.TOKEN_BUDGET


def test_a_child_that_stops_at_a_limit_reports_it_to_the_parent(math_tools, log):
    child = child_agent(math_tools, max_iterations=1, early_stopping="force")
    result = parent_agent(child).run("What is 6*7+1?")
    obs = result.trace.steps[0].observations[0]
    assert obs.status == "error" and obs.error_kind == "execution_failed"
    assert "the sub-agent stopped (max_iterations" in obs.content
    assert obs.trace is not None and obs.trace.termination_reason is R.MAX_ITERATIONS
    assert log.calls == [("multiply", {"a": 6, "b": 7})]


def test_a_wrong_argument_is_an_error_observation(math_tools, log):
    child = child_agent(math_tools)
    model = ScriptedChatModel(responses=[tool_call("calculator_agent", {"job": "6*7"}), "gave up"])
    registry = ToolRegistry()
    registry.register_agent(child, "calculator_agent", "Arithmetic helper.")
    result = ReActAgent(model=model, tools=registry, checkpointer=None).run("6*7?")
    obs = result.trace.steps[0].observations[0]
    assert obs.error_kind == "invalid_parameters" and "task" in obs.content
    assert log.calls == []


def test_cancelling_the_parent_cancels_the_child(math_tools):
    started = threading.Event()

    def slow(seconds: float) -> str:
        """Wait a while."""
        started.set()
        time.sleep(seconds)
        return "waited"

    child_model = ScriptedChatModel(responses=[tool_call("slow", {"seconds": 0.5})], repeat_last=True)
    child = ReActAgent(model=child_model, tools=[slow], checkpointer=None, stall_threshold=100, max_iterations=50)
    parent = parent_agent(child)
    box: dict = {}
    runner = threading.Thread(target=lambda: box.setdefault("result", parent.run("What is 6*7+1?", thread_id="t-cancel")))
    runner.start()
    assert started.wait(10)
    parent.cancel("t-cancel")
    runner.join(30)
    result = box["result"]
    nested = result.trace.steps[0].observations[0].trace
    assert nested is not None and nested.termination_reason is R.CANCELLED
    assert len(nested.steps) <= 2  # stopped after the step in flight, not at max_iterations
    assert result.termination_reason is R.CANCELLED


def test_the_subgraph_is_drawn_under_act(math_tools):
    parent = parent_agent(child_agent(math_tools))
    nodes = set(parent.graph.get_graph(xray=1).nodes)
    assert {"act:think", "act:act", "act:observe", "act:summarize", "act:terminate"} <= nodes


def test_as_tool_outside_a_run_runs_the_agent(math_tools, log):
    tool = child_agent(math_tools).as_tool("calculator_agent", "Arithmetic helper.")
    assert tool.invoke({"task": "Compute 6*7+1."}) == "43"
    assert log.calls == [("multiply", {"a": 6, "b": 7}), ("add", {"a": 42, "b": 1})]


def test_a_question_from_the_child_pauses_the_parent_and_its_answer_reaches_the_child(math_tools, tmp_path):
    child_model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which number?"}), "Seven it is: 7"])
    child = ReActAgent(model=child_model, tools=math_tools, checkpointer=None, allow_clarification=True, answer_checks=0)
    parent_model = ScriptedChatModel(responses=[tool_call("picker", {"task": "Pick a number."}), "The pick is 7."])
    registry = ToolRegistry()
    registry.register_agent(child, "picker", "Picks a number.")
    parent = ReActAgent(model=parent_model, tools=registry, checkpointer=tmp_path / "db.sqlite")
    paused = parent.run("Pick a number for me.", thread_id="t-ask")
    assert paused.termination_reason is R.CLARIFICATION and paused.termination_detail == "Which number?"
    result = parent.resume("t-ask", "seven")
    assert result.termination_reason is R.SUCCESS and result.final_answer == "The pick is 7."
    nested = result.trace.steps[0].observations[0].trace
    assert nested.steps[0].observations[0].content == "The user answered: seven"
    assert len(child_model.calls) == 2 and len(parent_model.calls) == 2
