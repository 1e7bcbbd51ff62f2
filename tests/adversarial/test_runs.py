"""Runs that an input cannot make endless (issue 27, items 9-10): a sub-agent cycle is refused when it is
built, a cycle forced in anyway still ends at the time budget or a cancel, and the partial-answer call
cannot take the run past its budget."""

from __future__ import annotations

import threading

import pytest

from reactgraph import ReActAgent, ToolRegistry
from reactgraph import TerminationReason as R
from reactgraph.persistence import thread_config
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolPolicy, ToolRegistrationError
from reactgraph.tools.base import RegisteredTool, ToolMetadata
from tests.unit.test_model_calls import HangingModel


def delegating_model(name: str, n: int = 50) -> ScriptedChatModel:
    return ScriptedChatModel(responses=[tool_call(name, {"task": "again"}, id=f"c{i}") for i in range(n)])


def test_an_agent_cannot_be_its_own_sub_agent():
    registry = ToolRegistry()
    agent = ReActAgent(model=delegating_model("me"), tools=registry, checkpointer=None)
    with pytest.raises(ToolRegistrationError, match=r"sub-agent 'me' would call itself \(me -> me\)"):
        registry.register_agent(agent, "me", "Myself.")
    assert not registry.has("me")


def test_a_cycle_through_another_agent_is_refused():
    """A -> B -> A: each agent built first, the cycle closed by the second registration."""
    reg_a, reg_b = ToolRegistry(), ToolRegistry()
    a = ReActAgent(model=delegating_model("b"), tools=reg_a, checkpointer=None)
    b = ReActAgent(model=delegating_model("a"), tools=reg_b, checkpointer=None)
    reg_a.register_agent(b, "b", "B.")
    with pytest.raises(ToolRegistrationError, match=r"\(a -> b -> a\)"):
        reg_b.register_agent(a, "a", "A.")
    # and three deep, given in a list of tools
    c = ReActAgent(model=delegating_model("a"), tools=[a.as_tool("a", "A.")], checkpointer=None)
    with pytest.raises(ToolRegistrationError, match="would call itself"):
        reg_b.register(c.as_tool("c", "C."))


def finishes(run, seconds: float = 60.0):
    """``run()`` in a thread; its result, or a failure when it does not return in ``seconds`` (a hang)."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.setdefault("result", run()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert "result" in box, "the run hung"
    return box["result"]


def forced_cycle(**options) -> ReActAgent:
    """An agent that is its own sub-agent, forced past the registry's check (as a hand-edited registry would)."""
    registry = ToolRegistry()
    agent = ReActAgent(model=delegating_model("me", 200), tools=registry, checkpointer=None, summary_every=0,
                       max_parallel_tools=1, **options)
    tool = agent.as_tool("me", "Myself.")
    registry._tools["me"] = RegisteredTool("me", tool, ToolMetadata(), ToolPolicy(), tool)
    return agent


def test_a_forced_cycle_still_ends_at_the_time_budget():
    """Item 9: the nested calls used to wait forever for a call slot their parents held, past any budget."""
    agent = forced_cycle(timeout_seconds=2)
    result = finishes(lambda: agent.run("Loop."))
    assert result.termination_reason is R.TIMEOUT


def test_a_forced_cycle_still_ends_at_a_cancel():
    agent = forced_cycle()
    model = agent._deps.model
    threading.Thread(target=lambda: (wait_for(lambda: model.position >= 2), agent.cancel()), daemon=True).start()
    result = finishes(lambda: agent.run("Loop."))
    assert result.termination_reason is R.CANCELLED


def wait_for(condition) -> None:
    done = threading.Event()
    while not condition():
        done.wait(0.01)


def test_a_hung_model_cannot_take_the_partial_answer_past_the_budget(math_tools, monkeypatch):
    """Item 10: the partial-answer call used to get its own 10 s once a 2 s budget was spent."""
    model = HangingModel(quick=[tool_call("lookup", {"key": "paris"})])
    agent = ReActAgent(model, math_tools, checkpointer=None, summary_every=0, timeout_seconds=2)
    deadlines: list[float | None] = []
    bounded = agent._deps.bounded_call

    def spy(cfg, messages, *, deadline, cancelled):
        deadlines.append(deadline)
        return bounded(cfg, messages, deadline=deadline, cancelled=cancelled)

    monkeypatch.setattr(agent._deps, "bounded_call", spy)
    result = agent.run("Where is Paris?")
    assert result.termination_reason is R.TIMEOUT and result.partial
    started = agent.graph.get_state(thread_config(result.thread_id)).values["started_at"]
    [partial] = deadlines  # the one bounded call of the run: the partial answer
    assert partial is not None and partial <= started + 2 + 1
