"""Durable runs on the real SQLite and PostgreSQL checkpointers: where runs are stored, and reading them back."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import ReActAgent, TerminationReason
from reactgraph.persistence.base import DB_ENV, RunNotFoundError
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call


class Crash(BaseException):
    """Raised by the model to stop a run the way a killed process would: nothing catches it."""


def paris_model(**routes) -> ScriptedChatModel:
    """Looks up Paris, then answers from the observation. Replies depend only on the prompt."""
    return ScriptedChatModel(
        responses=[by_prompt(("France", "Paris is in France."), default=tool_call("lookup", {"key": "paris"}, thought="Look it up."))],
        repeat_last=True,
    )


def test_default_is_the_sqlite_file_in_reactgraph_db(tmp_path, monkeypatch, math_tools):
    db = tmp_path / "runs.sqlite"
    monkeypatch.setenv(DB_ENV, str(db))
    agent = ReActAgent(model=paris_model(), tools=math_tools)
    result = agent.run("Where is Paris?", thread_id="t-1")
    assert agent.db_path == db and isinstance(agent.checkpointer, SqliteSaver)
    assert result.thread_id == "t-1"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    agent.close()
    # another agent (another process, as far as the file knows) reads the same run back
    with ReActAgent(checkpointer=db) as reader:
        again = reader.get_result("t-1")
    assert again.final_answer == "Paris is in France." and again.trace == result.trace


def test_default_path_without_env(tmp_path, monkeypatch, math_tools):
    monkeypatch.delenv(DB_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with ReActAgent(model=paris_model(), tools=math_tools) as agent:
        agent.run("Where is Paris?")
    assert agent.db_path == Path(".reactgraph/checkpoints.sqlite")
    assert (tmp_path / ".reactgraph" / "checkpoints.sqlite").stat().st_size > 0


def test_none_means_in_memory_and_any_saver_is_used(tmp_path, monkeypatch, math_tools):
    monkeypatch.chdir(tmp_path)
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=None)
    assert isinstance(agent.checkpointer, InMemorySaver) and agent.db_path is None
    result = agent.run("Where is Paris?")
    assert result.thread_id and len(result.thread_id) == 32  # generated
    assert not (tmp_path / ".reactgraph").exists()
    saver = InMemorySaver()
    other = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=saver)
    other.run("Where is Paris?", thread_id="mine")
    assert other.checkpointer is saver
    assert [r.thread_id for r in other.list_runs()] == ["mine"]


def test_list_runs_reports_each_run(run_db, math_tools):
    db = run_db
    asking = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which city?"})])
    crashing = ScriptedChatModel(responses=[lambda messages: (_ for _ in ()).throw(Crash())])
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=db) as agent:
        done = agent.run("Where is Paris?", thread_id="done")
    with ReActAgent(model=asking, tools=math_tools, checkpointer=db) as agent:
        agent.run("Which city?", thread_id="waiting")
    with ReActAgent(model=crashing, tools=math_tools, checkpointer=db) as agent, pytest.raises(Crash):
        agent.run("Crash please", thread_id="crashed")

    with ReActAgent(checkpointer=db) as reader:
        runs = {r.thread_id: r for r in reader.list_runs()}
        order = [r.thread_id for r in reader.list_runs()]
        assert [r.thread_id for r in reader.list_runs(limit=1)] == ["crashed"]
    assert order == ["crashed", "waiting", "done"]  # most recently updated first
    assert runs["done"].model_dump(include={"question", "status", "reason", "iterations", "tokens"}) == {
        "question": "Where is Paris?",
        "status": "finished",
        "reason": "success",
        "iterations": 2,
        "tokens": done.token_usage.total_tokens,
    }
    assert runs["done"].started <= runs["done"].updated
    assert (runs["waiting"].status, runs["waiting"].reason) == ("waiting", "clarification")
    assert (runs["crashed"].status, runs["crashed"].reason) == ("interrupted", None)


def test_resume_continues_a_crashed_run_without_rerunning_tools(run_db, math_tools, log):
    db = run_db
    calls = iter([tool_call("lookup", {"key": "paris"}, thought="Look it up.")])

    def crash_on_second_turn(messages):
        reply = next(calls, None)
        if reply is None:
            raise Crash()
        return reply

    with ReActAgent(model=ScriptedChatModel(responses=[crash_on_second_turn], repeat_last=True), tools=math_tools, checkpointer=db) as agent:
        with pytest.raises(Crash):
            agent.run("Where is Paris?", thread_id="t")
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=db) as agent:
        result = agent.resume("t")
        with pytest.raises(RunNotFoundError, match="no run with thread id 'nope'"):
            agent.resume("nope")
    assert result.termination_reason is TerminationReason.SUCCESS
    assert result.final_answer == "Paris is in France."
    assert log.calls == [("lookup", {"key": "paris"})]  # the lookup before the crash was not run again
    assert [(s.iteration, s.kind) for s in result.trace.steps] == [(1, "tools"), (2, "final")]


def test_aresume_continues_a_crashed_run_without_rerunning_tools(run_db, math_tools, log):
    db = run_db
    calls = iter([tool_call("lookup", {"key": "paris"}, thought="Look it up.")])

    def crash_on_second_turn(messages):
        if (reply := next(calls, None)) is None:
            raise Crash()
        return reply

    with ReActAgent(model=ScriptedChatModel(responses=[crash_on_second_turn], repeat_last=True), tools=math_tools, checkpointer=db) as agent:
        with pytest.raises(Crash):
            asyncio.run(agent.arun("Where is Paris?", thread_id="t"))
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=db) as agent:
        result = asyncio.run(agent.aresume("t"))
        with pytest.raises(RunNotFoundError, match="no run with thread id 'nope'"):
            asyncio.run(agent.aresume("nope"))
    assert result.termination_reason is TerminationReason.SUCCESS
    assert result.final_answer == "Paris is in France."
    assert log.calls == [("lookup", {"key": "paris"})]
    assert [(s.iteration, s.kind) for s in result.trace.steps] == [(1, "tools"), (2, "final")]


def test_clarification_answered_from_another_agent_instance(run_db, math_tools):
    db = run_db
    model = ScriptedChatModel(
        responses=[by_prompt(("The user answered", "You chose Rome."), default=tool_call("ask_user", {"question": "Paris or Rome?"}))],
        repeat_last=True,
    )
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as agent:
        paused = agent.run("Pick a city", thread_id="c")
    assert (paused.termination_reason, paused.termination_detail) == (TerminationReason.CLARIFICATION, "Paris or Rome?")
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as agent:
        result = agent.resume("c", "Rome")
    assert result.final_answer == "You chose Rome."
    assert result.trace.steps[0].observations[0].content == "The user answered: Rome"


def test_history_is_the_state_after_each_node(run_db, math_tools):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=run_db) as agent:
        result = agent.run("Where is Paris?")
        entries = agent.history(result.thread_id)
    assert [e.ran for e in entries] == [[], ["__start__"], ["think"], ["act"], ["observe"], ["think"], ["terminate"]]
    assert [e.next for e in entries][-3:] == [["think"], ["terminate"], []]
    assert [e.iteration for e in entries] == [0, 0, 1, 1, 1, 2, 2]
    assert [len(e.values.get("steps") or []) for e in entries] == [0, 0, 0, 0, 1, 1, 2]  # terminate adds the final turn
    assert entries[-1].values["final_answer"] == "Paris is in France."
    assert len({e.checkpoint_id for e in entries}) == len(entries)
    assert [e.step for e in entries] == list(range(-1, 6))


def test_fork_reruns_from_a_step_with_changed_config(run_db, math_tools, log):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=run_db) as agent:
        stopped = agent.run("Where is Paris?", thread_id="f", max_iterations=1, early_stopping="force")
        assert stopped.termination_reason is TerminationReason.MAX_ITERATIONS
        forked = agent.fork("f", iteration=1, max_iterations=5)
        entries = agent.history("f")
        with pytest.raises(ValueError, match="exactly one"):
            agent.fork("f")
        with pytest.raises(ValueError, match="cannot fork after iteration 7"):
            agent.fork("f", iteration=7)
        again = agent.fork("f", checkpoint_id=entries[1].checkpoint_id)  # from the very start
        latest = agent.get_result("f")
    assert forked.termination_reason is TerminationReason.SUCCESS
    assert forked.final_answer == "Paris is in France."
    assert [s.iteration for s in forked.trace.steps] == [1, 2]  # iteration 1 kept, not run again
    assert log.calls == [("lookup", {"key": "paris"})] * 2  # once by the run, once by the fork from the start
    assert "fork" in [e.source for e in entries]
    assert entries[-1].values["termination"]["reason"] == "success"
    assert again.termination_reason is TerminationReason.SUCCESS and len(again.trace.steps) == 2
    assert latest.trace == again.trace  # the thread's current run is the latest fork


def test_async_run_on_the_same_database(run_db, math_tools, log):
    db = run_db
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=db)

    async def both():
        result = await agent.arun("Where is Paris?", thread_id="a")
        streamed = [item async for item in agent.astream("Where is Paris?", thread_id="b")]
        return result, streamed

    result, streamed = asyncio.run(both())
    assert result.final_answer == "Paris is in France."
    assert streamed[-1].final_answer == "Paris is in France." and streamed[0].iteration == 1
    assert agent.get_result("a").trace == result.trace  # written async, read back sync
    assert {r.thread_id for r in agent.list_runs()} == {"a", "b"}
    agent.close()


def test_concurrent_threads_share_one_file(run_db, math_tools, log):
    from concurrent.futures import ThreadPoolExecutor

    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=run_db) as agent:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda i: agent.run("Where is Paris?", thread_id=f"t{i}"), range(8)))
        runs = agent.list_runs()
    assert all(r.final_answer == "Paris is in France." for r in results)
    assert sorted(r.thread_id for r in runs) == [f"t{i}" for i in range(8)]
    assert all(r.status == "finished" for r in runs)
    assert len(log.calls) == 8


class LosesTheLastCheckpoint(InMemorySaver):
    """Saves a task's writes but loses the checkpoint after terminate once, as a process killed between the
    two would (the writes are saved as each task finishes, the checkpoint after the step)."""

    lost = False

    def put(self, config, checkpoint, metadata, new_versions):
        if not self.lost and checkpoint["channel_values"].get("finished_at"):
            self.lost = True
            raise Crash("killed before the checkpoint after terminate")
        return super().put(config, checkpoint, metadata, new_versions)


def test_a_run_whose_last_checkpoint_was_lost_is_interrupted_and_resume_writes_it(math_tools):
    """terminate's writes were saved, its checkpoint was not: the state reads as finished (LangGraph applies
    the pending writes), but the run is not, and resume writes the checkpoint without running terminate again
    (a queued run's retry used to take it for ended and leave it so)."""
    from reactgraph.graph.nodes import make_terminate

    ran = []

    def counted_terminate(deps):
        terminate = make_terminate(deps)
        return lambda state: ran.append(1) or terminate(state)

    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=LosesTheLastCheckpoint(), nodes={"terminate": counted_terminate})
    with pytest.raises(Crash):
        agent.run("Where is Paris?", thread_id="t")
    assert ran == [1] and agent.get_result("t").final_answer == "Paris is in France."
    assert agent.run_info("t").status == "interrupted"
    assert agent.resume("t").final_answer == "Paris is in France."
    assert ran == [1] and agent.run_info("t").status == "finished"
    assert [e.ran for e in agent.history("t")][-1] == ["terminate"]
