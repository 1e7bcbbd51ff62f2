"""Queued runs on a real PostgreSQL: ``submit`` queues, ``reactgraph worker`` processes run them.

Workers are real processes of the CLI on a throwaway server (tests/postgres.py); the model is
tests/integration/queue_fixtures.py's scripted one, whose tools append each execution to a log file.
Dead workers are detected by procrastinate's heartbeats, here after 2 seconds (``--stalled-after 2``).
"""

from __future__ import annotations

import collections
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import ConfigError
from reactgraph.persistence.base import CheckpointStoreError, RunNotFoundError
from reactgraph.queue import QueueConfigError, submit

ROOT = Path(__file__).resolve().parents[2]
MODEL = "tests.integration.queue_fixtures:scripted_model"
TOOLS = "tests.integration.queue_fixtures:TOOLS"
STALLED_AFTER = "2"
WAIT_LIMIT = 180.0  # seconds: a bound on each wait, not an assertion on timing (90 ran out at load average 10+)


class Worker:
    """A `reactgraph worker` process; its stderr (the runs it finished) in a file."""

    def __init__(self, db: str, tmp: Path, name: str, concurrency: int = 2, options: tuple[str, ...] = (), **env: str) -> None:
        self.log = tmp / f"{name}.log"
        command = [sys.executable, "-m", "reactgraph.cli", "worker", "--db", db, "--concurrency", str(concurrency),
                   "--stalled-after", STALLED_AFTER, *options]
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen(command, cwd=ROOT, env=os.environ | env, stdout=err, stderr=subprocess.STDOUT)

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def stop(self) -> int:
        """SIGTERM, then the exit code once the worker has finished its runs."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=WAIT_LIMIT)


def wait_for(condition: Callable[[], bool], what: str, workers: list[Worker]) -> None:
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {w.log.name}\n" + "\n".join(w.lines()[-15:]) for w in workers)
            raise AssertionError(f"gave up waiting for {what}\n{logs}")
        time.sleep(0.1)


def jobs(db: str) -> dict[str, tuple[str, int]]:
    """thread id -> (status, how many times a worker started it) of every run job."""
    with psycopg.connect(db) as conn:
        rows = conn.execute(
            "SELECT args->>'thread_id', status, (SELECT count(*) FROM procrastinate_events e WHERE e.job_id = j.id "
            "AND e.type = 'started') FROM procrastinate_jobs j WHERE task_name = 'reactgraph.run'"
        ).fetchall()
    assert len({thread for thread, _, _ in rows}) == len(rows)  # one job per run
    return {thread: (status, starts) for thread, status, starts in rows}


def succeeded(db: str) -> int:
    return sum(status == "succeeded" for status, _ in jobs(db).values())


def ended(workers: list[Worker], verb: str = "finished") -> collections.Counter:
    """How many times the workers logged ``verb`` for each thread ("finished THREAD (job N): reason")."""
    pattern = re.compile(rf"reactgraph\.queue: {verb} (\w+) ")
    return collections.Counter(m.group(1) for w in workers for line in w.lines() if (m := pattern.search(line)))


def executions(log: Path) -> collections.Counter:
    return collections.Counter(tuple(line.split()) for line in log.read_text().splitlines()) if log.exists() else collections.Counter()


def terminations(agent: ReActAgent, thread: str) -> int:
    """How many checkpoints of the thread hold a write of the terminate node."""
    return sum("terminate" in entry.ran for entry in agent.history(thread))


def test_four_workers_two_killed_midway_every_run_ends_exactly_once(postgres_url, tmp_path, workers):
    log = tmp_path / "tools.log"
    env = {"QUEUE_LOG": str(log), "QUEUE_TOOL_DELAY": "0.05"}
    runs = {submit(f"Run r{i}: record the three keys.", postgres_url, model=MODEL, tools=TOOLS): f"r{i}" for i in range(100)}
    assert set(jobs(postgres_url).values()) == {("todo", 0)}  # queued, none run yet

    workers += [Worker(postgres_url, tmp_path, f"worker{i}", **env) for i in range(4)]
    wait_for(lambda: succeeded(postgres_url) >= 25, "a quarter of the runs", workers)
    for worker in workers[:2]:
        worker.proc.kill()  # SIGKILL: no goodbye, its heartbeat just stops
        worker.proc.wait()
    workers.append(Worker(postgres_url, tmp_path, "restarted", **env))  # one comes back, the other does not
    wait_for(lambda: succeeded(postgres_url) == 100, "every run", workers)
    assert [w.stop() for w in workers[2:]] == [0, 0, 0]  # SIGTERM: a graceful stop

    states = jobs(postgres_url)
    assert {status for status, _ in states.values()} == {"succeeded"}  # no run lost
    retried = {thread for thread, (_, starts) in states.items() if starts > 1}
    assert len(retried) >= 2  # each killed worker had runs in hand; others took them up
    # A run is never run to its end twice. A worker killed after a run's end (logged or not) but before
    # procrastinate recorded its job as done leaves the job to be retried, which finds the run ended.
    finished, found_ended = ended(workers), ended(workers, "already ended")
    assert set(finished.values()) == {1} and set(finished) | set(found_ended) == set(runs)
    assert set(found_ended) <= retried

    with ReActAgent(checkpointer=postgres_url) as agent:
        for thread, run in runs.items():
            result = agent.get_result(thread)
            assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, f"done {run}")
            assert [[a.id for a in s.actions] for s in result.trace.steps if s.actions] == [[f"{run}-a", f"{run}-b"], [f"{run}-c"]]
            assert terminations(agent, thread) == 1

    # Every call ran; one ran again only if it was in flight when its worker was killed: LangGraph keeps
    # the writes of every task (each call is a Send task) that finished, so only its job's retries can
    # repeat it, and only the calls in hand of the two killed workers (2 runs each, 2 calls per turn).
    counts = executions(log)
    assert set(counts) == {(run, key) for run in runs.values() for key in "abc"}
    repeated = {call: n for call, n in counts.items() if n > 1}
    starts = {runs[thread]: states[thread][1] for thread in retried}
    assert all(call[0] in starts and n <= starts[call[0]] for call, n in repeated.items()), repeated
    assert sum(n - 1 for n in repeated.values()) <= 2 * 2 * 2


def test_a_run_whose_worker_died_is_resumed_by_another_from_its_checkpoint(postgres_url, tmp_path, workers):
    log, release = tmp_path / "tools.log", tmp_path / "release"
    env = {"QUEUE_LOG": str(log), "QUEUE_RELEASE": str(release)}
    thread = submit("Hold r1: wait for the signal.", postgres_url, model=MODEL, tools=TOOLS)
    first = Worker(postgres_url, tmp_path, "first", **env)
    workers.append(first)
    waiting = Path(f"{release}.waiting")
    wait_for(waiting.exists, "the run to reach its tool", workers)
    first.proc.kill()
    first.proc.wait()
    waiting.unlink()

    workers.append(Worker(postgres_url, tmp_path, "second", **env))
    wait_for(waiting.exists, "the run to be taken up again", workers)
    release.touch()
    wait_for(lambda: succeeded(postgres_url) == 1, "the run", workers)

    assert ended(workers[1:], "resuming") == {thread: 1}  # from its checkpoint, not from the start
    assert ended(workers) == {thread: 1}
    with ReActAgent(checkpointer=postgres_url) as agent:
        result = agent.get_result(thread)
        assert result.final_answer == "held r1"
        assert [s.kind for s in result.trace.steps] == ["tools", "final"]
        first_think = [e for e in agent.history(thread) if "think" in e.ran]
        assert len(first_think) == 2  # iteration 1's think was not run again; iteration 2 answered


def test_a_retried_job_whose_run_had_ended_is_not_run_again(postgres_url, tmp_path, workers):
    log = tmp_path / "tools.log"
    thread = submit("Run r7: record the three keys.", postgres_url, model=MODEL, tools=TOOLS)
    workers.append(Worker(postgres_url, tmp_path, "worker", QUEUE_LOG=str(log)))
    wait_for(lambda: succeeded(postgres_url) == 1, "the run", workers)
    # As if its worker had died after the run ended, before procrastinate recorded the job as done.
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = NULL WHERE args->>'thread_id' = %s", (thread,))
    wait_for(lambda: jobs(postgres_url)[thread] == ("succeeded", 2), "the job's retry", workers)

    assert ended(workers, "already ended") == {thread: 1}
    assert ended(workers) == {thread: 1}
    assert executions(log) == {("r7", "a"): 1, ("r7", "b"): 1, ("r7", "c"): 1}
    with ReActAgent(checkpointer=postgres_url) as agent:
        assert terminations(agent, thread) == 1


def test_a_cancel_from_another_process_stops_a_queued_run(postgres_url, tmp_path, workers):
    release = tmp_path / "release"
    thread = submit("Hold r3: wait for the signal.", postgres_url, model=MODEL, tools=TOOLS)
    workers.append(Worker(postgres_url, tmp_path, "worker", QUEUE_RELEASE=str(release)))
    wait_for(Path(f"{release}.waiting").exists, "the run to reach its tool", workers)
    cancel = subprocess.run([sys.executable, "-m", "reactgraph.cli", "cancel", thread, "--db", postgres_url],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT_LIMIT)
    assert cancel.returncode == 0, cancel.stderr
    release.touch()
    wait_for(lambda: succeeded(postgres_url) == 1, "the run", workers)

    with ReActAgent(checkpointer=postgres_url) as agent:
        result = agent.get_result(thread)
    assert result.termination_reason is TerminationReason.CANCELLED  # after its current step
    assert [s.actions[0].tool for s in result.trace.steps if s.actions] == ["hold"]  # that step is kept
    assert ended(workers) == {thread: 1}


def test_a_run_cancelled_while_queued_is_not_run(postgres_url, tmp_path, workers):
    """A cancel stored after submit stops the queued run before it starts; one stored for an earlier
    run on the thread does not stop a new submit (here one that feeds the playbook)."""
    with ReActAgent(checkpointer=postgres_url, playbook=True) as agent:
        agent.cancel("reused")  # an old request, before the submit below
        seeded = agent.playbook.add("For a run: record the keys a and b, then c.", tool_sequence=["record"])
    kept = submit("Run r1: record the three keys.", postgres_url, model=MODEL, tools=TOOLS, thread_id="reused", playbook=True)
    dropped = submit("Run r2: record the three keys.", postgres_url, model=MODEL, tools=TOOLS)
    cancel = subprocess.run([sys.executable, "-m", "reactgraph.cli", "cancel", dropped, "--db", postgres_url],
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT_LIMIT)
    assert cancel.returncode == 0, cancel.stderr
    workers.append(Worker(postgres_url, tmp_path, "worker", QUEUE_LOG=str(tmp_path / "calls.log")))
    wait_for(lambda: succeeded(postgres_url) == 2, "both jobs", workers)
    assert ended(workers) == {kept: 1}
    assert ended(workers, "cancelled") == {dropped: 1}
    assert {run for run, _ in executions(tmp_path / "calls.log")} == {"r1"}
    with ReActAgent(checkpointer=postgres_url, playbook=True) as agent:
        assert agent.get_result(kept).termination_reason is TerminationReason.SUCCESS
        with pytest.raises(RunNotFoundError):
            agent.get_result(dropped)
        # submitted with playbook=True: the worker's run was shown the database's playbook, and counted for it
        assert agent.graph.get_state({"configurable": {"thread_id": kept}}).values["playbook"]["bullets"] == [seeded.id]
        assert agent.playbook.show(seeded.id).helpful_count == 2


def test_submit_refuses_what_no_worker_could_run(postgres_url, tmp_path):
    with pytest.raises(QueueConfigError, match="need a PostgreSQL database.*got '.*x.sqlite'"):
        submit("q", str(tmp_path / "x.sqlite"))
    with pytest.raises(ConfigError, match="max_iterations"):
        submit("q", postgres_url, max_iterations=0)
    with pytest.raises(QueueConfigError, match="JSON"):
        submit("q", postgres_url, termination_callback=lambda state: False)
    with pytest.raises(ConfigError, match="nope"):  # the loader's error, not the command line's
        submit("q", postgres_url, tools="nope")
    wrong = postgres_url.replace(":reactgraph-test@", ":wrong@")
    with pytest.raises(CheckpointStoreError, match=r"postgres:\*\*\*@.*password authentication failed") as error:
        submit("q", wrong)
    assert "wrong" not in str(error.value)
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()[0] is None  # nothing was queued


def test_worker_command_refuses_a_database_that_is_not_postgres(tmp_path):
    done = subprocess.run([sys.executable, "-m", "reactgraph.cli", "worker", "--db", str(tmp_path / "runs.sqlite")],
                          cwd=ROOT, capture_output=True, text=True, timeout=WAIT_LIMIT)
    assert done.returncode == 2
    assert "queued runs need a PostgreSQL database" in done.stderr
    assert not (tmp_path / "runs.sqlite").exists()
