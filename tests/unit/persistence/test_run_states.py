"""Every run a user started is visible in ``runs`` with where it stands: queued, running, waiting, finished, failed
(with the error), interrupted; ``trace`` of a run that has not ended says so instead of a reason
(persistence.activity, persistence.reading)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from reactgraph import ReActAgent
from reactgraph.cli import main
from reactgraph.testing import ScriptedChatModel, tool_call


def lookup(key: str) -> str:
    """Look a key up."""
    return {"paris": "France"}.get(key, "not found")


def breaking_observe(deps):
    """observe, but the storage under it breaks on the first step: an exception out of the run."""
    def observe(state):
        raise RuntimeError("the disk is on fire")
    return observe


def thinking_until(release: threading.Event, entered: threading.Event, answer: str = "Paris is in France."):
    def reply(messages):
        entered.set()
        release.wait(30)
        return answer
    return reply


def test_a_run_an_exception_ended_is_failed_with_its_error(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look it up.")])
    with ReActAgent(model, [lookup], checkpointer=db, nodes={"observe": breaking_observe}) as agent:
        with pytest.raises(RuntimeError, match="the disk is on fire"):
            agent.run("Where is Paris?", thread_id="broken")
        [info] = agent.list_runs()
    assert (info.thread_id, info.status, info.question, info.reason) == ("broken", "failed", "Where is Paris?", None)
    assert info.error == "RuntimeError: the disk is on fire"
    assert main(["runs", "--db", str(db)]) == 0
    assert "failed" in capsys.readouterr().out
    assert main(["trace", "broken", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[-1] == "[failed] RuntimeError: the disk is on fire" and "[failure]" not in text
    assert main(["trace", "broken", "--db", str(db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["status"], data["error"], data["termination_reason"]) == ("failed", "RuntimeError: the disk is on fire", None)
    # a later run on the thread that ends well is what the thread shows
    with ReActAgent(ScriptedChatModel(responses=["France."]), [lookup], checkpointer=db) as agent:
        agent.resume("broken")
        assert agent.run_info("broken").status == "finished" and agent.run_info("broken").error is None


def test_a_run_in_flight_is_running_and_its_trace_says_so(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    release, entered = threading.Event(), threading.Event()
    model = ScriptedChatModel(responses=[
        tool_call("lookup", {"key": "paris"}, thought="Look it up."), thinking_until(release, entered),
    ])
    agent = ReActAgent(model, [lookup], checkpointer=db, summary_every=0)
    results = []
    runner = threading.Thread(target=lambda: results.append(agent.run("Where is Paris?", thread_id="live")))
    runner.start()
    try:
        assert entered.wait(30)
        with ReActAgent(checkpointer=db) as reader:  # another agent on the same file, as `reactgraph runs` is
            info = reader.run_info("live")
        assert (info.status, info.reason, info.iterations) == ("running", None, 1)
        assert main(["trace", "live", "--db", str(db)]) == 0
        text = capsys.readouterr().out
        assert "Observation: France" in text and text.splitlines()[-1] == "[running] 1 iteration(s) so far; it has not ended"
        assert "[failure]" not in text
        assert main(["trace", "live", "--db", str(db), "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert (data["status"], data["termination_reason"], data["final_answer"]) == ("running", None, None)
        assert main(["trace", "live", "--db", str(db), "--format", "markdown"]) == 0
        assert "- status: [running]" in capsys.readouterr().out
    finally:
        release.set()
        runner.join(30)
    assert results[0].final_answer == "Paris is in France."
    with ReActAgent(checkpointer=db) as reader:
        assert reader.run_info("live").status == "finished"
    agent.close()


def test_an_async_run_in_flight_is_running_and_an_interrupted_one_is_not(tmp_path):
    db = tmp_path / "runs.sqlite"
    release, entered = threading.Event(), threading.Event()
    agent = ReActAgent(ScriptedChatModel(responses=[thinking_until(release, entered)]), [], checkpointer=db)

    async def go():
        task = asyncio.create_task(agent.arun("Where is Paris?", thread_id="async"))
        await asyncio.to_thread(entered.wait, 30)
        assert agent.run_info("async").status == "running"
        task.cancel()  # as a worker's shutdown or Ctrl-C does: the run is interrupted, resumable
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert agent.run_info("async").status == "interrupted"
    agent.close()


def test_a_run_in_memory_is_listed_with_its_state_too():
    release, entered = threading.Event(), threading.Event()
    agent = ReActAgent(ScriptedChatModel(responses=[thinking_until(release, entered)]), [], checkpointer=None)
    runner = threading.Thread(target=lambda: agent.run("Hi?", thread_id="mem"))
    runner.start()
    assert entered.wait(30)
    assert [(r.thread_id, r.status) for r in agent.list_runs()] == [("mem", "running")]
    release.set()
    runner.join(30)
    assert [(r.thread_id, r.status) for r in agent.list_runs()] == [("mem", "finished")]


def test_queued_runs_and_runs_that_fail_before_they_start_are_listed(postgres_url, capsys, tmp_path):
    from reactgraph.queue import submit
    from reactgraph.queue._runner import Runner

    thread = submit("What is 6*7?", postgres_url, model="tests.integration.cli_fixtures:answering", tools="calculator")
    assert main(["runs", "--db", postgres_url, "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["thread_id"], row["status"], row["question"]) == (thread, "queued", "What is 6*7?")
    assert main(["trace", thread, "--db", postgres_url]) == 0
    assert capsys.readouterr().out.splitlines() == ["Question: What is 6*7?", "[queued] waiting for a worker to take it"]

    async def take(options):  # what a worker does with a job whose model cannot be loaded there
        runner = Runner(postgres_url, 1)
        async with runner.opened():
            await runner.run(7, "What is 7*8?", "doomed", options)

    with pytest.raises(Exception, match="no_such_module"):
        asyncio.run(take({"model": "no_such_module:make", "overrides": {}}))
    with ReActAgent(checkpointer=postgres_url) as reader:
        info = reader.run_info("doomed")
    assert (info.status, info.question) == ("failed", "What is 7*8?") and "no_such_module" in info.error
    assert main(["runs", "--db", postgres_url]) == 0
    shown = capsys.readouterr().out
    assert "doomed" in shown and "failed" in shown and "queued" in shown
