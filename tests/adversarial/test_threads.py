"""One run or resume at a time per thread, across processes (issue 27, item 4): two processes, or two agents on
one database, resuming the same paused thread used to both run the approved call (SQLite and Postgres)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reactgraph import Approve, ReActAgent, ThreadBusyError
from reactgraph import TerminationReason as R
from reactgraph.answers.waiting import AnswerError, RunWaitingError
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.adversarial.resume_worker import agent_on, sender

ROOT = Path(__file__).resolve().parents[2]
WAIT_LIMIT = 60.0  # seconds: a bound on each wait, not an assertion on timing


def paused_thread(db: str, side: Path, thread: str = "mail") -> None:
    model = ScriptedChatModel(responses=[tool_call("send", {"to": "ann"}, id="s1")])
    with ReActAgent(model=model, tools=[sender(side)], checkpointer=db, approve_tools=("send",), summary_every=0) as agent:
        assert agent.run("Email Ann the report.", thread_id=thread).termination_reason is R.APPROVAL


def sent(side: Path) -> list[str]:
    return (side / "sent").read_text().split() if (side / "sent").exists() else []


def wait_for(condition, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
            raise AssertionError(f"not reached: {proc.communicate() if proc else ''}")
        time.sleep(0.02)


def resume_in_a_process(db: str, side: Path, thread: str = "mail") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.adversarial.resume_worker", db, thread, str(side)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_second_process_resuming_the_same_thread_is_refused_and_the_call_runs_once(run_db, tmp_path):
    paused_thread(run_db, tmp_path)
    first = resume_in_a_process(run_db, tmp_path)
    wait_for(lambda: sent(tmp_path) == ["ann"], first)  # the first holds the thread, inside the approved call
    with agent_on(run_db, tmp_path) as second:
        with pytest.raises(ThreadBusyError, match="thread 'mail' is busy"):
            second.resume("mail", approval=Approve())
        (tmp_path / "release").touch()
        out, err = first.communicate(timeout=WAIT_LIMIT)
        assert out.strip() == "success", err
        with pytest.raises(AnswerError, match="no call waits for approval"):  # decided and done: nothing to approve
            second.resume("mail", approval=Approve())
        assert second.get_result("mail").termination_reason is R.SUCCESS
    assert sent(tmp_path) == ["ann"]


def test_two_agents_in_one_process_on_one_database_take_turns(tmp_path):
    db = str(tmp_path / "db.sqlite")
    paused_thread(db, tmp_path)
    results: list = []
    first = agent_on(db, tmp_path)
    runner = threading.Thread(target=lambda: results.append(first.resume("mail", approval=Approve())))
    runner.start()
    wait_for(lambda: sent(tmp_path) == ["ann"])
    with agent_on(db, tmp_path) as second:
        try:
            with pytest.raises(ThreadBusyError):
                second.resume("mail", approval=Approve())
            with pytest.raises((ThreadBusyError, RunWaitingError)):  # a new question on it: refused too
                second.run("Something else.", thread_id="mail")
        finally:
            (tmp_path / "release").touch()
            runner.join(WAIT_LIMIT)
        assert results[0].termination_reason is R.SUCCESS
        assert second.resume("mail").termination_reason is R.SUCCESS  # free again: a finished run comes back as it is
    first.close()
    assert sent(tmp_path) == ["ann"]


def test_a_killed_holder_does_not_hold_the_thread_forever(run_db, tmp_path):
    """The hold of a process killed mid-call is taken over (SQLite: its process is gone; Postgres: its session)."""
    paused_thread(run_db, tmp_path)
    first = resume_in_a_process(run_db, tmp_path)
    wait_for(lambda: sent(tmp_path) == ["ann"], first)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    (tmp_path / "release").touch()
    with agent_on(run_db, tmp_path) as second:
        deadline = time.monotonic() + WAIT_LIMIT
        while True:  # Postgres notices the dead session within moments
            try:
                result = second.resume("mail", approval=Approve())
                break
            except ThreadBusyError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
    assert result.termination_reason is R.SUCCESS
    assert sent(tmp_path) == ["ann", "ann"]  # the killed call is asked about again, and runs once more
