"""A handoff to another reactgraph agent (``handoff_to``: a ``transfer_to_<name>`` tool, as langgraph-swarm's): the
other agent takes the run's question and answers it for the run, within the run's budgets and under its approvals."""

from __future__ import annotations

from reactgraph import Approve, ReActAgent, TerminationReason, handoff_to
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.create_agent_peer import create_agent_run, final_text


def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def billing_agent(*replies, **options) -> tuple[ReActAgent, ScriptedChatModel]:
    model = ScriptedChatModel(responses=list(replies))
    return ReActAgent(model, [refund], checkpointer=None, **options), model


def test_the_other_agent_answers_the_run_s_question():
    billing, billing_model = billing_agent(tool_call("refund", {"order": "A1"}), "Final Answer: order A1 is refunded")
    model = ScriptedChatModel(responses=[tool_call("transfer_to_billing", {"note": "the user wants order A1 refunded"})])
    agent = ReActAgent(model, [handoff_to(billing, "billing")], checkpointer=None)
    result = agent.run("Please refund my order A1")
    assert result.final_answer == "order A1 is refunded" and result.termination_reason is TerminationReason.SUCCESS
    assert result.termination_detail == "the tool's result is the answer: transfer_to_billing (handoff)"
    asked = billing_model.calls[0]["messages"][1].text
    assert "Please refund my order A1" in asked and "the user wants order A1 refunded" in asked
    assert model.position == 1  # the first agent is not asked again
    child = result.trace.steps[0].observations[0].trace
    assert [o.content for s in child.steps for o in s.observations] == ["refunded A1"]


def test_create_agent_hands_over_with_the_same_tool():
    billing, _ = billing_agent("Final Answer: order A1 is refunded")
    script = [tool_call("transfer_to_billing", {"note": "refund order A1"})]
    state, peer = create_agent_run(script, [handoff_to(billing, "billing")])
    assert final_text(state) == "order A1 is refunded" and peer.position == 1


def test_the_other_agent_gets_only_the_iterations_left():
    orders = iter(range(100))
    billing, billing_model = billing_agent(lambda messages: tool_call("refund", {"order": f"A{next(orders)}"}))
    billing_model.repeat_last = True
    model = ScriptedChatModel(responses=[tool_call("transfer_to_billing", {}), "Final Answer: it could not"])
    agent = ReActAgent(model, [handoff_to(billing, "billing")], checkpointer=None, max_iterations=3)
    result = agent.run("refund A1")
    child = result.trace.steps[0].observations[0].trace
    assert child.termination_reason is TerminationReason.MAX_ITERATIONS and child.total_iterations == 2  # 3 - 1 used
    assert result.final_answer == "it could not"  # no answer from billing: the first agent goes on


def test_the_run_s_approvals_hold_for_the_other_agent():
    billing, _ = billing_agent(tool_call("refund", {"order": "A1"}), "Final Answer: refunded")
    model = ScriptedChatModel(responses=[tool_call("transfer_to_billing", {})])
    agent = ReActAgent(model, [handoff_to(billing, "billing")], approve_tools=["refund"])
    waiting = agent.run("refund A1", thread_id="h")
    assert waiting.termination_reason is TerminationReason.APPROVAL
    assert [p.tool for p in waiting.pending_approvals] == ["refund"]
    done = agent.resume("h", approval=Approve())
    assert done.final_answer == "refunded" and done.termination_reason is TerminationReason.SUCCESS
