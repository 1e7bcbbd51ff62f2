"""Cancel requests stored in the database (SQLite file or Postgres): another agent on the same database —
another process, as far as the database knows — cancels a run; new runs start uncancelled."""

from __future__ import annotations

import asyncio
import time

import pytest

from reactgraph import ReActAgent, TerminationReason
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.models.test_model_calls import HangingModel, wait_until


class Crash(BaseException):
    """Stops a run the way a killed process would: nothing catches it."""


def looping() -> ScriptedChatModel:
    return ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"})], repeat_last=True)


def test_requests_are_per_thread_and_cleared_by_a_new_run(run_db, math_tools, log):
    with ReActAgent(model=looping(), tools=math_tools, checkpointer=run_db) as agent, ReActAgent(checkpointer=run_db) as other:
        other.cancel("t")
        assert agent.store.cancel_requested("t", started_at=time.time())
        assert not agent.store.cancel_requested("u", started_at=0.0)
        result = agent.run("Loop", thread_id="t", max_iterations=2, early_stopping="force")  # a new run: uncancelled
        assert result.termination_reason is TerminationReason.MAX_ITERATIONS
        assert not agent.store.cancel_requested("t", started_at=0.0)


def test_cancel_all_stops_runs_started_before_it_only(run_db):
    with ReActAgent(checkpointer=run_db) as agent, ReActAgent(checkpointer=run_db) as other:
        before = time.time()
        other.cancel()
        assert agent.store.cancel_requested("any", started_at=before)
        assert not agent.store.cancel_requested("any", started_at=time.time() + 1)


def test_a_resumed_run_stops_for_a_cancel_made_while_it_was_down(run_db, math_tools, log):
    """A cancel reaches a run whose process died: resumed elsewhere, it stops after its next step."""
    turns = iter([tool_call("lookup", {"key": "paris"})])

    def crash_on_second_turn(messages):
        if (reply := next(turns, None)) is None:
            raise Crash()
        return reply

    crashing = ScriptedChatModel(responses=[crash_on_second_turn], repeat_last=True)
    with ReActAgent(model=crashing, tools=math_tools, checkpointer=run_db) as agent, pytest.raises(Crash):
        agent.run("Look up paris in a loop.", thread_id="down")
    with ReActAgent(checkpointer=run_db) as other:
        other.cancel("down")
    with ReActAgent(model=looping(), tools=math_tools, checkpointer=run_db) as agent:
        result = agent.resume("down")
    assert result.termination_reason is TerminationReason.CANCELLED
    assert [s.iteration for s in result.trace.steps] == [1, 2] and len(log.calls) == 2


def test_a_cancel_from_another_agent_cuts_a_model_call_in_flight(tmp_path, math_tools, log):
    """A call in flight looks for a stored cancel too (once a second, not on every poll)."""
    db = str(tmp_path / "db.sqlite")
    model = HangingModel(quick=[tool_call("lookup", {"key": "paris"}, thought="Look it up.")])
    agent = ReActAgent(model, math_tools, checkpointer=db, summary_every=0)

    async def cancel_while_thinking():
        run = asyncio.ensure_future(agent.arun("Where is Paris?", thread_id="job"))
        while model.started < 2:  # the second think call is hanging now
            await asyncio.sleep(0.01)
        with ReActAgent(checkpointer=db) as other:
            other.cancel("job")
        return await asyncio.wait_for(run, 20)

    result = asyncio.run(cancel_while_thinking())
    agent.close()
    assert result.termination_reason is TerminationReason.CANCELLED
    wait_until(lambda: model.cancelled == 1)
    assert model.started == 2
