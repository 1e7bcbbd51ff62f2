"""Answers given part-way through the model's own plan (``unfinished_plan``, on by default): the last tool result as
it came, when fewer tools ran than the plan has steps, is sent back once with the next step named."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.graph.checks._plan import planned
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolRegistry

PLAN = "To find the average:\n\n1. Add all the numbers together.\n2. Divide the sum by the number of values.\n"
QUESTION = "What is the average of 81, 94, 77 and 68?"


def run(responses: list, checks=DEFAULT_REPLY_CHECKS):
    model = ScriptedChatModel(responses=responses)
    agent = ReActAgent(model=model, tools=ToolRegistry.with_builtins(["calculator"]), checkpointer=None, summary_every=0, reply_checks=checks)
    return agent.run(QUESTION), model


def test_the_first_steps_result_given_as_the_answer_is_sent_back_with_the_next_step():
    """The suite's arith-avg on Qwen2.5-Coder-1.5B: the sum (320) answered for the average."""
    result, model = run([
        tool_call("calculator", {"expression": "81 + 94 + 77 + 68"}, thought=PLAN),
        "320",
        tool_call("calculator", {"expression": "320 / 4"}),
        "80",
    ])
    assert result.termination_reason is TerminationReason.SUCCESS and result.final_answer == "80"
    sent = result.trace.steps[1]
    assert sent.checks[0].check == "unfinished_plan" and sent.answer == "320"
    assert "step 1 of the 2 steps you planned; step 2 was: Divide the sum by the number of values." in sent.observations[0].content
    assert [s.actions[0].args for s in result.trace.steps if s.actions and s.actions[0].tool == "calculator"] == [
        {"expression": "81 + 94 + 77 + 68"}, {"expression": "320 / 4"},
    ]


def test_the_same_answer_again_stands():
    """Sent back once a turn: the model that keeps its answer gets it through."""
    result, model = run([tool_call("calculator", {"expression": "81 + 94 + 77 + 68"}, thought=PLAN), "320", "320"])
    assert result.final_answer == "320" and model.position == 3


def test_an_answer_after_every_planned_step_or_without_a_plan_is_not_sent_back():
    done, _ = run([
        tool_call("calculator", {"expression": "81 + 94 + 77 + 68"}, thought=PLAN),
        tool_call("calculator", {"expression": "320 / 4"}),
        "80",
    ], checks=["unfinished_plan"])
    unplanned, _ = run([tool_call("calculator", {"expression": "(81 + 94 + 77 + 68) / 4"}), "80"], checks=["unfinished_plan"])
    for result in (done, unplanned):
        assert result.final_answer == "80" and not any(s.checks for s in result.trace.steps)


def test_an_answer_that_is_not_the_last_result_is_not_this_checks_business():
    """The model worked on from the sum in its head (80): other checks judge that, not this one."""
    result, _ = run([tool_call("calculator", {"expression": "81 + 94 + 77 + 68"}, thought=PLAN), "80"], checks=["unfinished_plan"])
    assert result.final_answer == "80" and not any(s.checks for s in result.trace.steps)


def test_plans_are_read_from_numbered_lines_and_steps_headings():
    assert planned(PLAN) == ["Add all the numbers together.", "Divide the sum by the number of values."]
    assert planned("### Step 1: Calculate the area\ntext\n### Step 2: **Divide** it\n3) Report it") == [
        "Calculate the area", "Divide it", "Report it",
    ]
    assert planned("1. Only one step.") == []
    assert planned("2. Starts late.\n3. Goes on.") == []
    assert planned("1. a\n2. b\nsome text\n1. c\n2. d\n3. e") == ["c", "d", "e"]
