"""Model calls bounded by the run: the time budget cuts a call in flight (and the partial-answer
call after it), cancel() stops one in arun, and a cut call is cancelled, not left running."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from reactgraph import ReActAgent
from reactgraph.config import Limits
from reactgraph.models.calls import CallCancelled, DeadlineReached, has_async, invoke_within
from reactgraph.testing import ScriptedChatModel, tool_call


class HangingModel(BaseChatModel):
    """Answers the first ``quick`` calls at once, then hangs for ``hang`` seconds per call. Counts
    the calls that started and the ones that were cancelled while hanging."""

    quick: list[Any] = []
    partial: str | None = None  # answered at once when asked for a partial answer
    hang: float = 60.0
    started: int = 0
    cancelled: int = 0

    @property
    def _llm_type(self) -> str:
        return "hanging"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=tools, **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: CallbackManagerForLLMRun | None = None, **kw: Any) -> ChatResult:
        raise AssertionError("the agent calls models with an async implementation asynchronously")

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: AsyncCallbackManagerForLLMRun | None = None, **kw: Any
    ) -> ChatResult:
        self.started += 1
        if self.partial is not None and messages[-1].content.startswith("You must stop now"):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.partial))])
        if self.quick:
            reply = self.quick.pop(0)
            return ChatResult(generations=[ChatGeneration(message=reply if isinstance(reply, AIMessage) else AIMessage(content=reply))])
        try:
            await asyncio.sleep(self.hang)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="too late"))])


def wait_until(condition, seconds: float = 10.0) -> None:
    done = threading.Event()
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("condition not met in time")


def test_the_time_budget_cuts_a_hanging_model_call_and_the_partial_answer_call(math_tools, log):
    """The budget (3 s: the first turn, a lookup, must end within it on a loaded machine; 1 s failed once under
    load) cuts the hanging think call, then the partial-answer call at its own bound."""
    model = HangingModel(quick=[tool_call("lookup", {"key": "paris"}, thought="Look it up.")])
    agent = ReActAgent(model, math_tools, checkpointer=None, summary_every=0, limits=Limits(timeout_seconds=3, partial_answer_timeout_seconds=0.3))
    result = agent.run("Where is Paris?")
    assert result.termination_reason.value == "timeout" and result.partial
    assert "during a model call" in result.termination_detail
    assert "partial-answer call failed: DeadlineReached" in result.termination_detail and result.final_answer is None
    assert log.calls == [("lookup", {"key": "paris"})] and [s.kind for s in result.trace.steps] == ["tools", "final"]
    wait_until(lambda: model.cancelled == 2)  # both hanging calls were cancelled, not left running
    assert model.started == 3


def test_the_partial_answer_call_after_a_timeout_gets_its_grace(math_tools, log, monkeypatch):
    """The think call is cut at the budget; a partial answer that comes within the grace is used. (The grace is
    widened: a loaded machine took more than its 0.5 s to hand back the scripted reply; that there is one is tested.)"""
    monkeypatch.setattr("reactgraph.graph.nodes._terminate.PARTIAL_ANSWER_GRACE", 5.0)
    model = HangingModel(quick=[tool_call("lookup", {"key": "paris"}, thought="Look it up.")], partial="France, so far.")
    agent = ReActAgent(model, math_tools, checkpointer=None, summary_every=0, limits=Limits(timeout_seconds=3, partial_answer_timeout_seconds=5))
    result = agent.run("Where is Paris?")
    assert result.termination_reason.value == "timeout" and result.partial
    assert result.final_answer == "France, so far."
    wait_until(lambda: model.cancelled == 1)
    assert model.started == 3


def test_cancel_stops_a_model_call_in_flight_in_arun(math_tools, log):
    model = HangingModel(quick=[tool_call("lookup", {"key": "paris"}, thought="Look it up.")])
    agent = ReActAgent(model, math_tools, checkpointer=None, summary_every=0)

    async def cancel_while_thinking():
        run = asyncio.ensure_future(agent.arun("Where is Paris?", thread_id="job"))
        while model.started < 2:  # the second think call is hanging now
            await asyncio.sleep(0.01)
        agent.cancel("job")
        return await asyncio.wait_for(run, 10)

    result = asyncio.run(cancel_while_thinking())
    assert result.termination_reason.value == "cancelled"
    assert log.calls == [("lookup", {"key": "paris"})]
    wait_until(lambda: model.cancelled == 1)
    assert model.started == 2  # no partial-answer call after a cancel


def test_invoke_within_cuts_at_the_deadline_and_on_cancel():
    model = HangingModel(hang=30)
    with pytest.raises(DeadlineReached):
        invoke_within(model, [("user", "hi")], deadline=time.time() + 0.2)
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    with pytest.raises(CallCancelled):
        invoke_within(model, [("user", "hi")], cancelled=stop.is_set)
    wait_until(lambda: model.cancelled == 2)
    with pytest.raises(DeadlineReached, match="before the model call"):  # no call once the budget is gone
        invoke_within(model, [("user", "hi")], deadline=time.time() - 1)
    assert model.started == 2


def test_a_sync_only_model_is_called_in_a_thread_and_its_exceptions_pass_through():
    class Crash(BaseException):
        pass

    def boom(messages):
        raise Crash()

    model = ScriptedChatModel(responses=["hello", boom])
    assert not has_async(model) and not has_async(model.bind_tools([])) and has_async(HangingModel())
    assert invoke_within(model, [("user", "hi")]).text == "hello"
    with pytest.raises(Crash):
        invoke_within(model, [("user", "hi")])
