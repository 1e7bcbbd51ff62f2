"""Runs that an input cannot make endless (issue 27, items 9-10): a sub-agent cycle is refused when it is
built, a cycle forced in anyway still ends at the time budget or a cancel, and the partial-answer call
cannot take the run past its budget. Runs that one bad run cannot hide (issue 42, items 10-12): a hook's malformed
step, a corrupt row, a failed turn whose finished call the trace left out."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from reactgraph import ReActAgent, ToolRegistry
from reactgraph import TerminationReason as R
from reactgraph.graph.middleware import MiddlewareError
from reactgraph.graph.nodes._terminate import PARTIAL_ANSWER_GRACE
from reactgraph.persistence import thread_config
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistrationError
from reactgraph.tools.base import RegisteredTool, ToolMetadata
from tests.unit.models.test_model_calls import HangingModel

ROOT = Path(__file__).resolve().parents[2]


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
    deadlines: list[tuple[float | None, float]] = []
    bounded = agent._deps.bounded_call

    def spy(cfg, messages, *, deadline, cancelled):
        deadlines.append((deadline, time.time()))
        return bounded(cfg, messages, deadline=deadline, cancelled=cancelled)

    monkeypatch.setattr(agent._deps, "bounded_call", spy)
    result = agent.run("Where is Paris?")
    assert result.termination_reason is R.TIMEOUT and result.partial
    started = agent.graph.get_state(thread_config(result.thread_id)).values["started_at"]
    [(partial, asked)] = deadlines  # the one bounded call of the run: the partial answer
    # the budget's end, or the moment the call was made when a loaded machine got there later (a run of the test
    # command at load average 100 did), plus PARTIAL_ANSWER_GRACE: not the call's own 10 s
    assert partial is not None and partial <= max(started + 2, asked) + PARTIAL_ANSWER_GRACE + 1e-6


# -- issue 42: one bad run, hook update or row never hides the others ----------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reactgraph.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def good_run(db: Path, thread: str = "t2") -> None:
    with ReActAgent(model=ScriptedChatModel(responses=["Paris is in France."]), checkpointer=db) as agent:
        agent.run("Where is Paris?", thread_id=thread)


@pytest.mark.parametrize("hook", ["before_agent", "after_model"])
def test_a_hook_that_writes_a_malformed_step_is_a_clear_error_and_hides_no_run(tmp_path, hook):
    """Item 10: a hook returning a malformed ``steps`` entry gave a raw KeyError; after it, list_runs() and
    `reactgraph runs` failed for the whole database."""
    from langchain.agents.middleware import after_model, before_agent

    def malformed(state, runtime):
        return {"steps": [{"thought": "forged"}]}

    middleware = {"before_agent": before_agent, "after_model": after_model}[hook](malformed)
    db = tmp_path / "db.sqlite"
    good_run(db)
    with ReActAgent(model=ScriptedChatModel(responses=["x"]), checkpointer=db, middleware=[middleware]) as agent:
        with pytest.raises(MiddlewareError, match=r"malformed\.\w+: steps\[0\] of its update is no trace step"):
            agent.run("Hi.", thread_id="t1")
        runs = {run.thread_id: run for run in agent.list_runs()}
    assert runs["t2"].status == "finished" and runs["t1"].status == "failed"
    assert "no trace step" in runs["t1"].error
    listed = cli("runs", "--json", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert {run["thread_id"] for run in json.loads(listed.stdout)} == {"t1", "t2"}


def test_one_corrupt_checkpoint_row_hides_no_other_run(tmp_path):
    """Item 11: one corrupt checkpoint row of thread t1 made `reactgraph runs` exit 1 and list_runs raise: t2 was
    hidden too. Now t2 is listed and traced; t1 is listed unreadable, by id, and its trace says why."""
    db = tmp_path / "db.sqlite"
    good_run(db, "t1")
    good_run(db)
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE checkpoints SET checkpoint = X'c1c1c1' WHERE thread_id = 't1'")
    with ReActAgent(checkpointer=db) as agent:
        runs = {run.thread_id: run for run in agent.list_runs()}
        assert agent.get_result("t2").final_answer == "Paris is in France."
    assert runs["t2"].status == "finished"
    assert runs["t1"].status == "unreadable" and "run 't1' cannot be read" in runs["t1"].error
    listed = cli("runs", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert "t2" in listed.stdout and "unreadable" in listed.stdout
    assert "cannot be read, left untouched: t1" in listed.stderr
    traced = cli("trace", "t2", "--db", str(db))
    assert traced.returncode == 0 and "Paris is in France." in traced.stdout
    bad = cli("trace", "t1", "--db", str(db))
    assert bad.returncode == 1 and "run 't1' cannot be read" in bad.stderr and "Traceback" not in bad.stderr


def test_a_failed_runs_trace_shows_the_call_of_its_turn_that_finished(tmp_path):
    """Item 12: a call that ran and was saved shared a turn with one that failed: the failed run's trace (get_trace,
    `trace --format json`) left the finished call out."""
    from langchain.agents.middleware import wrap_tool_call

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    def slow(x: int) -> int:
        """Return x, slowly."""
        time.sleep(0.3)
        return x

    @wrap_tool_call
    def breaks_on_slow(request, handler):
        answer = handler(request)
        if request.tool_call["name"] == "slow":
            raise RuntimeError("the middleware broke")
        return answer

    db = tmp_path / "db.sqlite"
    model = ScriptedChatModel(responses=[tool_calls([("add", {"a": 1, "b": 2}), ("slow", {"x": 1})], ids=["a1", "s1"]), "3"])
    with ReActAgent(model=model, tools=[add, slow], checkpointer=db, middleware=[breaks_on_slow], summary_every=0) as agent:
        with pytest.raises(RuntimeError, match="the middleware broke"):
            agent.run("1 + 2?", thread_id="t")
        assert agent.run_info("t").status == "failed"
        [step] = agent.get_trace("t").steps
    assert [(o.call_id, o.tool, o.content) for o in step.observations] == [("a1", "add", "3")]
    traced = cli("trace", "t", "--format", "json", "--db", str(db))
    assert traced.returncode == 0, traced.stderr
    [shown] = json.loads(traced.stdout)["trace"]["steps"]
    assert [o["content"] for o in shown["observations"]] == ["3"] and json.loads(traced.stdout)["status"] == "failed"
