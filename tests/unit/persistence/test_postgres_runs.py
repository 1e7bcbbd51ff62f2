"""Runs in PostgreSQL: picked by a postgresql:// URL (argument, REACTGRAPH_DB, --db), and bad URLs."""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver

from reactgraph import ReActAgent, TerminationReason
from reactgraph.cli import main
from reactgraph.persistence.base import DB_ENV, CheckpointStoreError
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call
from tests.postgres import PASSWORD, with_database


def paris_model() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[by_prompt(("France", "Paris is in France."), default=tool_call("lookup", {"key": "paris"}, thought="Look it up."))],
        repeat_last=True,
    )


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {row[0] for row in conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")}


def test_reactgraph_db_url_picks_postgres(postgres_url, monkeypatch, math_tools):
    monkeypatch.setenv(DB_ENV, postgres_url.replace("postgresql://", "postgres://"))  # both schemes
    with ReActAgent(model=paris_model(), tools=math_tools) as agent:
        result = agent.run("Where is Paris?", thread_id="p-1")
        assert isinstance(agent.checkpointer, PostgresSaver) and agent.db_path is None
        assert agent.store.name == postgres_url.replace(PASSWORD, "***").replace("postgresql://", "postgres://")
    assert result.final_answer == "Paris is in France."
    assert {"checkpoints", "checkpoint_writes", "checkpoint_blobs", "reactgraph_cancels"} <= tables(postgres_url)
    with ReActAgent(checkpointer=postgres_url) as reader:  # another agent (another process) reads it back
        again = reader.get_result("p-1")
    assert again.trace == result.trace


def test_stored_run_options_apply_on_resume(postgres_url, math_tools, log):
    """A run's options live in its checkpoint: a resume from another agent keeps its max_iterations."""
    looping = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"})], repeat_last=True)
    with ReActAgent(model=looping, tools=math_tools, checkpointer=postgres_url) as agent:
        agent.run("Loop", thread_id="o", max_iterations=2, early_stopping="force")
    with ReActAgent(model=looping, tools=math_tools, checkpointer=postgres_url) as other:
        assert other._stored_overrides("o") == {"limits": {"max_iterations": 2, "early_stopping": "force"}}
        forked = other.fork("o", iteration=1)
    assert forked.termination_reason is TerminationReason.MAX_ITERATIONS
    assert forked.trace.total_iterations == 2  # the stored limit, not the default of 10


def test_a_wrong_password_is_a_clear_error_and_nothing_is_lost(postgres_url, math_tools):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
        agent.run("Where is Paris?", thread_id="kept")
    wrong = postgres_url.replace(f":{PASSWORD}@", ":not-the-password@")
    with pytest.raises(CheckpointStoreError) as err:
        ReActAgent(checkpointer=wrong)
    message = str(err.value)
    assert "password authentication failed" in message
    assert postgres_url.rsplit("@", 1)[1] in message  # names the server and database
    assert "not-the-password" not in message and ":***@" in message
    with ReActAgent(checkpointer=postgres_url) as reader:
        assert reader.get_result("kept").final_answer == "Paris is in France."


def test_an_unreachable_server_or_unknown_database_is_a_clear_error(postgres_server):
    for url, expected in [
        ("postgresql://someone:secret@127.0.0.1:1/runs", "Connection refused"),
        (with_database(postgres_server, "no_such_db"), 'database "no_such_db" does not exist'),
        ("postgresql://someone:secret@127.0.0.1:notaport/runs", "cannot connect"),
    ]:
        with pytest.raises(CheckpointStoreError) as err:
            ReActAgent(checkpointer=url)
        message = str(err.value)
        assert message.startswith("checkpoint database postgresql://") and expected in message, message
        assert "secret" not in message and PASSWORD not in message


def test_many_agents_set_up_one_new_database_at_once(postgres_url):
    """Workers starting together on an empty database: the tables are created once, without a race."""
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            ReActAgent(checkpointer=postgres_url).close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(postgres_url) as conn:
        versions = [row[0] for row in conn.execute("SELECT v FROM checkpoint_migrations ORDER BY v")]
    assert versions == list(range(len(PostgresSaver.MIGRATIONS)))  # each migration recorded once


def test_async_and_sync_runs_share_the_database(postgres_url, math_tools):
    agent = ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url)

    async def two_at_once():
        return await asyncio.gather(agent.arun("Where is Paris?", thread_id="a1"), agent.arun("Where is Paris?", thread_id="a2"))

    results = asyncio.run(two_at_once())
    agent.run("Where is Paris?", thread_id="s1")
    assert [r.final_answer for r in results] == ["Paris is in France."] * 2
    runs = agent.list_runs()
    assert runs[0].thread_id == "s1" and {r.thread_id for r in runs} == {"s1", "a1", "a2"}  # latest first
    assert all(r.status == "finished" for r in runs)
    agent.close()


def test_cli_runs_and_trace_read_postgres(postgres_url, math_tools, capsys):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
        agent.run("Where is Paris?", thread_id="shown")
    assert main(["runs", "--db", postgres_url, "--json"]) == 0
    listed = capsys.readouterr().out
    assert '"thread_id": "shown"' in listed and '"reason": "success"' in listed
    assert main(["trace", "shown", "--db", postgres_url]) == 0
    assert "Paris is in France." in capsys.readouterr().out
    assert main(["runs", "--db", postgres_url.replace(PASSWORD, "wrong")]) == 1
    err = capsys.readouterr().err
    assert "password authentication failed" in err and "wrong" not in err.replace("password", "")


def test_connections_the_server_closed_are_replaced(postgres_url, math_tools):
    with ReActAgent(model=paris_model(), tools=math_tools, checkpointer=postgres_url) as agent:
        agent.run("Where is Paris?", thread_id="before")
        # as a server restart or an idle timeout would; the call waits until they are gone (without the wait, a loaded
        # machine could check a connection out before its server process had ended)
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()[0]
        assert ended >= 1
        assert agent.run("Where is Paris?", thread_id="after").final_answer == "Paris is in France."
        assert {r.thread_id for r in agent.list_runs()} == {"before", "after"}
