"""Numbers as the question writes them (``dotted_thousands``): the local model read "Wie viel sind 17 % von 2.340?"
as ``percent_of(percent=17, value=2.34)`` and answered 0.3978 at confidence 0.90. In a question written the way
German (Dutch, Spanish, ...) write numbers, the call gets 2340; an English question's 2.340 stays a decimal."""

from __future__ import annotations

from decimal import Decimal

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.graph.checks._thousands import misread
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolRegistry

GERMAN = "Wie viel sind 17 % von 2.340?"


def agent(*replies, **options) -> ReActAgent:
    tools = ToolRegistry.with_builtins(["calculator", "percent_of"])
    return ReActAgent(model=ScriptedChatModel(responses=list(replies)), tools=tools, checkpointer=None, summary_every=0, **options)


def test_the_german_question_s_2_340_is_two_thousand_three_hundred_and_forty():
    result = agent(tool_call("percent_of", {"percent": 17, "value": 2.34}), "397.8").run(GERMAN)
    step = result.trace.steps[0]
    assert [(a.tool, a.args) for a in step.actions] == [("percent_of", {"percent": 17, "value": 2340})]
    assert step.observations[0].content == "397.8" and step.checks[0].check == "dotted_thousands"
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "397.8")


def test_an_expression_s_number_is_read_the_same_way():
    result = agent(tool_call("calculator", {"expression": "0.17 * 2.340"}), "397.8").run(GERMAN)
    assert result.trace.steps[0].actions[0].args == {"expression": "0.17 * 2340"}
    assert result.trace.steps[0].observations[0].content == "397.8"


def test_an_english_question_s_2_340_stays_a_decimal_and_the_check_can_be_left_out():
    english = agent(tool_call("percent_of", {"percent": 17, "value": 2.34}), "0.3978").run("What is 17% of 2.340?")
    assert english.trace.steps[0].actions[0].args == {"percent": 17, "value": 2.34}
    off = agent(tool_call("percent_of", {"percent": 17, "value": 2.34}), "0.3978",
                reply_checks=[c for c in DEFAULT_REPLY_CHECKS if c != "dotted_thousands"]).run(GERMAN)
    assert off.trace.steps[0].actions[0].args == {"percent": 17, "value": 2.34}


def test_how_the_question_tells_its_way_of_writing_numbers():
    assert misread(GERMAN) == {Decimal("2.34"): 2340}
    assert list(misread("¿Cuánto es el 10 % de 1.500?").values()) == [1500]
    assert list(misread("What is 2,5 times 1.250?").values()) == [1250]  # a decimal comma: the dot groups
    assert misread("Add 1.234.567 and 2.5") == {}  # two dots group, but nothing reads as a decimal
    assert misread("What is 2.340 times 3?") == misread("Is 1.250 more than 1.25?") == {}
    assert misread("How much do I pay per 1.250 items, da Silva or van Dijk?") == {}  # English words of those languages
