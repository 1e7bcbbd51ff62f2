"""Calls on nothing the run was given (``unfounded_call``, on by default, last): a call none of whose telling values
the question, the earlier turns or a tool result holds is not run the first time; made again, it runs. Left out of
``reply_checks``, it acts on nothing."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.graph.checks._unfounded import is_given, telling_values
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools.specs import ToolSpec

CHECKS = DEFAULT_REPLY_CHECKS  # unfounded_call last
ran: list[tuple[str, dict]] = []


def calculate_litigation_cost(length_in_days: int, complexity: str) -> str:
    """Estimate the cost of a lawsuit."""
    ran.append(("calculate_litigation_cost", {"length_in_days": length_in_days, "complexity": complexity}))
    return "12000"


def add(a: float, b: float) -> float:
    """Add two numbers."""
    ran.append(("add", {"a": a, "b": b}))
    return a + b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    ran.append(("multiply", {"a": a, "b": b}))
    return a * b


def todo(type: Literal["add", "delete"], index: int = 1) -> str:  # noqa: A002 - the name BFCL's function has
    """Change the todo list."""
    ran.append(("todo", {"type": type, "index": index}))
    return "done"


def agent(model: ScriptedChatModel, tools: list) -> ReActAgent:
    return ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0, reply_checks=CHECKS)


def test_a_call_on_made_up_values_is_not_run_and_the_model_may_answer_without_a_tool():
    """BFCL's irrelevance_100: a litigation-cost tool called for an apple's calories, on values nobody gave."""
    ran.clear()
    model = ScriptedChatModel(responses=[
        tool_call("calculate_litigation_cost", {"length_in_days": 7, "complexity": "low"}),
        "Apples are low in calories.",
    ])
    result = agent(model, [calculate_litigation_cost]).run("How many calories does an apple have?")
    assert result.termination_reason is TerminationReason.SUCCESS and ran == []
    seen = result.trace.steps[0].observations[0]
    assert seen.error_kind == "unfounded_call" and '7, "low"' in seen.content and "answer without a tool" in seen.content


def test_the_same_call_made_again_runs():
    """A value the model rightly worked out: add(a=42, b=8) for "What is 6*7 + 2*4?"."""
    ran.clear()
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 42, "b": 8}), tool_call("add", {"a": 42, "b": 8}), "50"])
    result = agent(model, [add]).run("What is 6*7 + 2*4?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "50")
    assert [o.error_kind for s in result.trace.steps[:2] for o in s.observations] == ["unfounded_call", None]
    assert ran == [("add", {"a": 42, "b": 8})]


def test_a_call_beside_a_founded_one_runs_its_result_may_give_the_values():
    """The walkthrough's python-playbook: add(42, 8) beside the products that give 42 and 8, in one reply."""
    ran.clear()
    calls = [("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4}), ("add", {"a": 42, "b": 8})]
    model = ScriptedChatModel(responses=[tool_calls(calls), "50"])
    result = agent(model, [add, multiply]).run("What is 6*7 + 2*4?")
    assert result.final_answer == "50" and sorted(name for name, _ in ran) == ["add", "multiply", "multiply"]


def test_a_word_in_another_form_and_a_share_in_an_expression_are_given():
    """Recorded FEVER lookups (``Scientology`` for "Scientologist"); ``0.17 * 2340`` for "17 % von 2.340"."""
    given = "was l. ron hubbard a scientologist? / wie viel sind 17 % von 2.340?"
    known = {Decimal(17), Decimal(2340)}
    assert is_given("Scientology", given, known) and is_given("0.17 * 2340", given, known)
    assert not is_given("Sciences", given, known) and not is_given("0.18 * 2340", given, {Decimal(17)})


def test_values_the_question_a_result_or_an_earlier_turn_gave_run_at_once():
    ran.clear()
    model = ScriptedChatModel(responses=[
        tool_call("add", {"a": 17, "b": 25}), tool_call("add", {"a": 42, "b": 0.5}), "42.5",  # 42: the first result
        tool_call("add", {"a": 42.5, "b": 10}), "52.5",  # 42.5: the earlier turn's answer
    ])
    bot = ReActAgent(model=model, tools=[add], summary_every=0, reply_checks=CHECKS)
    first = bot.run("Add 17 and 25, then add a half (0.5).", thread_id="t")
    second = bot.run("And 10 more?", thread_id="t")
    assert (first.final_answer, second.final_answer) == ("42.5", "52.5")
    assert ran == [("add", {"a": 17, "b": 25}), ("add", {"a": 42, "b": 0.5}), ("add", {"a": 42.5, "b": 10})]


def test_on_by_default_and_off_when_left_out_the_call_runs():
    assert "unfounded_call" in DEFAULT_REPLY_CHECKS
    ran.clear()
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 42, "b": 8}), "50"])
    checks = [c for c in DEFAULT_REPLY_CHECKS if c != "unfounded_call"]
    bot = ReActAgent(model=model, tools=[add], checkpointer=None, summary_every=0, reply_checks=checks)
    result = bot.run("What is 6*7 + 2*4?")
    assert result.final_answer == "50" and ran == [("add", {"a": 42, "b": 8})]


def test_the_values_that_say_nothing_are_left_out():
    spec = ToolSpec(name="todo", params=("type", "index"), choices=(("type", ("add", "delete")),),
                    schema='{"properties": {"type": {"enum": ["add", "delete"]}, "index": {"default": 1}, "n": {"default": 5}}}')
    assert telling_values({"type": "delete", "index": 1, "flag": True, "note": " ", "n": 5, "path": "./"}, spec) == []
    assert telling_values({"type": "delete", "index": 3, "tags": ["a", None]}, spec) == [3, "a"]
