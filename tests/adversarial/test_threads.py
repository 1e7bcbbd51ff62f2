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
WAIT_LIMIT = 180.0  # seconds: a bound on each wait (a loaded machine starts a process slowly), not on timing


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


# -- issue 42 ------------------------------------------------------------------------------------------------------


def killed_holder(db: str, side: Path, **env: str) -> None:
    """A process holding the paused thread 'mail' inside its approved call, killed there (SIGKILL): its hold is left."""
    paused_thread(db, side)
    holder = subprocess.Popen([sys.executable, "-m", "tests.adversarial.resume_worker", db, "mail", str(side)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    wait_for(lambda: sent(side) == ["ann"], holder)
    os.kill(holder.pid, signal.SIGKILL)
    holder.communicate()
    (side / "release").touch()


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reactgraph.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=WAIT_LIMIT)


def test_a_holder_killed_before_its_host_was_renamed_frees_the_thread_when_its_lease_runs_out(tmp_path):
    """Item 8: a holder SIGKILLed before a host-name change (a restarted container or pod) left its hold with no
    expiry: ThreadBusyError for ever. Its lease (shortened here to 2 s) is no longer renewed: the thread frees."""
    db = str(tmp_path / "db.sqlite")
    killed_holder(db, tmp_path, HOLDER_HOST="pod-7f9c4-before-restart", HOLD_LEASE_SECONDS="2")
    with agent_on(db, tmp_path) as second:
        deadline = time.monotonic() + WAIT_LIMIT
        while True:
            try:
                result = second.resume("mail", approval=Approve())
                break
            except ThreadBusyError as busy:
                assert "reactgraph unlock mail" in str(busy)  # what frees it now is said
                assert time.monotonic() < deadline, "the hold of a gone holder never expired"
                time.sleep(0.2)
    assert result.termination_reason is R.SUCCESS and sent(tmp_path) == ["ann", "ann"]


def test_reactgraph_unlock_frees_a_thread_whose_holder_is_gone_before_its_lease_ends(tmp_path):
    """Item 8: no command freed the thread. `reactgraph unlock THREAD` does, with a warning (its lease: a minute)."""
    db = str(tmp_path / "db.sqlite")
    killed_holder(db, tmp_path, HOLDER_HOST="pod-7f9c4-before-restart")
    with agent_on(db, tmp_path) as second:
        with pytest.raises(ThreadBusyError, match="pod-7f9c4-before-restart"):
            second.resume("mail", approval=Approve())
        done = cli("unlock", "mail", "--db", db)
        assert done.returncode == 0, done.stderr
        assert "warning: freed thread 'mail', held by process" in done.stderr and "pod-7f9c4-before-restart" in done.stderr
        assert "thread mail is free now" in done.stdout
        assert second.resume("mail", approval=Approve()).termination_reason is R.SUCCESS
    again = cli("unlock", "mail", "--db", db)
    assert again.returncode == 0 and "thread mail was not held" in again.stdout


def test_unlock_refuses_a_holder_that_runs_on_this_host_unless_forced(tmp_path):
    db = str(tmp_path / "db.sqlite")
    paused_thread(db, tmp_path)
    holder = resume_in_a_process(db, tmp_path)
    wait_for(lambda: sent(tmp_path) == ["ann"], holder)
    try:
        refused = cli("unlock", "mail", "--db", db)
        ended = holder.poll() is not None  # what the holder said, when it is gone
        assert refused.returncode == 1 and "still runs on this host" in refused.stderr, (refused, ended and holder.communicate())
        forced = cli("unlock", "mail", "--force", "--db", db)
        assert forced.returncode == 0 and "warning: freed thread 'mail'" in forced.stderr
    finally:
        (tmp_path / "release").touch()
        holder.communicate(timeout=WAIT_LIMIT)


def test_unlock_on_postgres_ends_the_session_of_a_holder_that_is_gone(postgres_url, tmp_path):
    """Item 8 on Postgres: a hold is its session's; a session whose host vanished stays until TCP gives up on it.
    `reactgraph unlock` ends it (here a session that holds the thread and does nothing more)."""
    import psycopg

    paused_thread(postgres_url, tmp_path)
    with psycopg.connect(postgres_url, autocommit=True) as stale:
        stale.execute("SELECT pg_advisory_lock(hashtextextended('mail', 0))")
        with agent_on(postgres_url, tmp_path) as second:
            with pytest.raises(ThreadBusyError):
                second.resume("mail", approval=Approve())
            done = cli("unlock", "mail", "--db", postgres_url)
            assert done.returncode == 0 and "warning: freed thread 'mail', held by the session" in done.stderr, done.stderr
            (tmp_path / "release").touch()
            assert second.resume("mail", approval=Approve()).termination_reason is R.SUCCESS


def test_a_thread_named_as_the_playbooks_lock_runs_and_learns_on_postgres(postgres_url):
    """Item 9: a run on thread 'reactgraph-playbook:default' took 30 s and learnt nothing: the thread's hold and the
    playbook's lock shared one advisory-lock key, so learning waited for the run's own hold until it gave up."""
    calls = [tool_call("lookup", {"key": "paris"}, id="l1"), "Paris is in France."]

    def lookup(key: str) -> str:
        """Look a city up."""
        return "France"

    with ReActAgent(model=ScriptedChatModel(responses=calls), tools=[lookup], checkpointer=postgres_url, playbook=True,
                    summary_every=0) as agent:
        result = agent.run("Where is Paris?", thread_id="reactgraph-playbook:default")
        assert result.termination_reason is R.SUCCESS
        assert [b.tool_sequence for b in agent.playbook.list()] == [["lookup"]]  # it learnt
