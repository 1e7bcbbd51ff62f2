"""A written reply that makes again a call the turn already made, then writes its final answer, is that answer (the
local model wrote ``Action: calculator[397.8 + 100]`` and ``Final Answer: 497.8`` after the call had given 497.8,
until the stall rule stopped the turn). Before the call has run, or beside a new call, the calls run."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.testing import ScriptedChatModel
from reactgraph.tools import ToolRegistry

SUM = "Thought: I need to add the two numbers 397.8 and 100.\nAction: calculator[397.8 + 100]"


def run(*replies: str, question: str = "What is 397.8 plus 100?"):
    model = ScriptedChatModel(responses=list(replies))
    tools = ToolRegistry.with_builtins(["calculator"])
    with ReActAgent(model=model, tools=tools, checkpointer=None, tool_calling="text", summary_every=0) as agent:
        return agent.run(question), model


def test_the_same_call_again_with_its_answer_after_it_is_the_answer():
    result, model = run(SUM + "\nFinal Answer: 497.8", SUM, SUM + "\nFinal Answer: 497.8", "Final Answer: never asked")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "497.8")
    assert [a.args for s in result.trace.steps for a in s.actions] == [{"expression": "397.8 + 100"}] * 2
    assert result.tool_usage == {"calculator": 1}  # the second was answered from the run's cache
    assert len(model.calls) == 3


def test_before_the_call_has_run_the_answer_after_it_is_a_guess():
    result, _ = run(SUM + "\nFinal Answer: 500", "Final Answer: 497.8")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "497.8")
    assert result.tool_usage == {"calculator": 1}


def test_a_new_call_beside_a_repeated_one_runs():
    both = "Thought: add, then double.\nAction: calculator[397.8 + 100], calculator[497.8 * 2]\nFinal Answer: 995.6"
    result, _ = run(SUM, both, "Final Answer: 995.6", question="What is 397.8 plus 100, doubled?")
    assert [a.args["expression"] for a in result.trace.steps[1].actions] == ["397.8 + 100", "497.8 * 2"]
    assert result.final_answer == "995.6"


def test_a_call_that_failed_is_made_again():
    bad = "Thought: add them.\nAction: calculator[397.8 +]"
    result, _ = run(bad, bad + "\nFinal Answer: 497.8", SUM, "Final Answer: 497.8")
    assert [o.status for s in result.trace.steps for o in s.observations] == ["error", "error", "ok"]
    assert result.final_answer == "497.8"
