"""A plan carried out is not carried out again: a call that is the step before's call with its result in place of one
of its numbers, after the same reasoning word for word, is not run (the local model added 100 twice to "that" in
Agent Chat UI); made again right after, it runs. Other calls run; the same calls again are the stall rule's."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolRegistry

PLAN = "I need to add 100 to the result of the previous calculation."


def agent(model: ScriptedChatModel, **options) -> ReActAgent:
    return ReActAgent(model=model, tools=ToolRegistry.with_builtins(["calculator"]), checkpointer=None, summary_every=0, **options)


def test_the_same_reasoning_after_its_step_ran_is_not_carried_out_again():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "397.8 + 100"}, thought=PLAN),
        tool_call("calculator", {"expression": "497.8 + 100"}, thought=PLAN),
        "497.8",
    ])
    result = agent(model).run("17% of 2,340 is 397.8. What is that plus 100?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "497.8")
    held = result.trace.steps[1].observations[0]
    assert (held.status, held.error_kind) == ("error", "repeated_plan")
    assert held.content.startswith("your reasoning is the step before's") and "calculator[397.8 + 100] gave 497.8" in held.content
    assert result.tool_usage == {"calculator": 1}  # 497.8 + 100 never ran


def test_made_again_right_after_the_calls_run():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "100 * 1.1"}, thought="Add 10% once more."),
        tool_call("calculator", {"expression": "110 * 1.1"}, thought="Add 10% once more."),
        tool_call("calculator", {"expression": "110 * 1.1"}, thought="Add 10% once more."),
        "121",
    ])
    result = agent(model).run("Start at 100 and add 10% twice, compounding.")
    assert [o.status for s in result.trace.steps for o in s.observations] == ["ok", "error", "ok"]
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "121")


def test_other_reasoning_a_failed_step_before_or_the_same_calls_run_at_once():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "2 +"}, thought=PLAN),
        tool_call("calculator", {"expression": "2 + 2"}, thought=PLAN),  # the step before failed
        tool_call("calculator", {"expression": "4 * 3"}, thought="Now times 3."),
        tool_call("calculator", {"expression": "4 * 3"}, thought="Now times 3."),  # the same call: a repeat, not a redo
        "12",
    ])
    result = agent(model).run("What is 2 plus 2, then times 3?")
    assert [o.status for s in result.trace.steps for o in s.observations] == ["error", "ok", "ok", "ok"]
    assert result.trace.steps[3].observations[0].cached  # the same call again: a repeat, answered from the run's cache


def test_left_out_of_the_reply_checks_the_calls_run():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "397.8 + 100"}, thought=PLAN),
        tool_call("calculator", {"expression": "497.8 + 100"}, thought=PLAN),
        "597.8",
    ])
    checks = [c for c in DEFAULT_REPLY_CHECKS if c != "repeated_plan"]
    result = agent(model, reply_checks=checks).run("17% of 2,340 is 397.8. What is that plus 100?")
    assert (result.final_answer, result.tool_usage) == ("597.8", {"calculator": 2})


def test_the_same_reasoning_on_new_values_runs():
    pages: list[int] = []

    def read_page(page: int) -> str:
        """Read one page of the report."""
        pages.append(page)
        return f"Page {page} of 9: nothing about the bridge."

    model = ScriptedChatModel(responses=[
        *(tool_call("read_page", {"page": p}, thought="Read the next page.") for p in (1, 2, 3)),
        "The first three pages do not say.",
    ])
    question = "When did the bridge open? Check pages 1, 2 and 3 of the report."
    result = ReActAgent(model, [read_page], checkpointer=None, summary_every=0).run(question)
    assert pages == [1, 2, 3] and result.final_answer == "The first three pages do not say."


def test_a_lookup_then_a_calculation_or_a_chain_of_other_operations_under_one_thought_runs():
    def get_price(item: str) -> str:
        """The price of an item."""
        return "42.50"

    plan = "I need the widget's price, then add 20% tax, then 3."
    model = ScriptedChatModel(responses=[
        tool_call("get_price", {"item": "widget"}, thought=plan),
        tool_call("calculator", {"expression": "42.50 * 1.2"}, thought=plan),  # works on the lookup's result
        tool_call("calculator", {"expression": "51 + 3"}, thought=plan),  # another operation on the result
        "54",
    ])
    tools = ToolRegistry.with_builtins(["calculator"])
    tools.register("get_price", get_price)
    result = ReActAgent(model, tools, checkpointer=None, summary_every=0).run("What does a widget cost with 20% tax, plus 3?")
    assert [o.status for s in result.trace.steps for o in s.observations] == ["ok", "ok", "ok"]


def test_only_the_call_that_applies_the_step_again_is_held_back():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "397.8 + 100"}, thought=PLAN),
        tool_calls([("calculator", {"expression": "497.8 + 100"}), ("calculator", {"expression": "2 * 3"})], thought=PLAN),
        "497.8",
    ])
    steps = agent(model).run("17% of 2,340 is 397.8. What is that plus 100, and what is 2 * 3?").trace.steps
    assert [(o.status, o.error_kind) for o in steps[1].observations] == [("error", "repeated_plan"), ("ok", None)]
