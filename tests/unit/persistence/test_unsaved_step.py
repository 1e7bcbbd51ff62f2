"""A run whose last checkpoint was not written (the database went away as LangGraph wrote it, and the run returned
all the same: a queued run's job then counted as done with its end unsaved, tests/adversarial/test_queue.py) is
saved by one more invoke, as a resume saves it; one that still cannot be saved raises, as a lost database."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from reactgraph import ReActAgent, TerminationReason
from reactgraph.persistence.base import CheckpointStoreError
from reactgraph.testing import ScriptedChatModel, tool_call


def lookup(n: int) -> str:
    """Look up entry n."""
    return f"entry {n}"


def model() -> ScriptedChatModel:
    return ScriptedChatModel(responses=[tool_call("lookup", {"n": 1}), "Done: entry 1."])


def after_terminate(checkpoint: dict, metadata: dict, new_versions: dict) -> bool:
    """Whether a checkpoint is the one written after the terminate node."""
    return metadata.get("source") == "loop" and "termination" in new_versions and "terminate" in checkpoint["versions_seen"]


def dropped(config: dict, checkpoint: dict) -> dict:
    """What a saver's ``put`` returns for ``checkpoint``, as if it had written it."""
    return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}


class Losing(SqliteSaver):
    """Drops the checkpoint written after the terminate node ``losses`` times, saying nothing."""

    def __init__(self, conn: sqlite3.Connection, losses: int) -> None:
        super().__init__(conn)
        self.losses, self.lost = losses, 0

    def put(self, config, checkpoint, metadata, new_versions):  # noqa: ANN001, ANN201
        if self.lost < self.losses and after_terminate(checkpoint, metadata, new_versions):
            self.lost += 1
            return dropped(config, checkpoint)
        return super().put(config, checkpoint, metadata, new_versions)


class LosingAll(Losing):
    """Also drops the terminate node's writes (``put_writes``) ``losses`` times: the run returns at the checkpoint
    before terminate, which looks like a success (think wrote the answer and the reason)."""

    def put_writes(self, config, writes, task_id, task_path=""):  # noqa: ANN001, ANN201
        if self.lost < self.losses and any(channel == "finished_at" for channel, _ in writes):
            return None
        return super().put_writes(config, writes, task_id, task_path)


def terminations(agent: ReActAgent, thread: str) -> int:
    return sum("terminate" in entry.ran for entry in agent.history(thread))


@pytest.mark.parametrize("saver_class", [Losing, LosingAll], ids=["checkpoint lost", "terminate's writes lost too"])
def test_a_run_whose_last_step_was_lost_once_is_saved_and_its_terminate_ran_once(saver_class, tmp_path):
    """The checkpoint after terminate lost: its pending writes are applied; terminate's writes lost too: it runs again."""
    saver = saver_class(sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False), losses=1)
    agent = ReActAgent(model(), [lookup], checkpointer=saver, summary_every=0)
    result = agent.run("Look up 1.", thread_id="t")
    assert (saver.lost, result.termination_reason, result.final_answer) == (1, TerminationReason.SUCCESS, "Done: entry 1.")
    assert terminations(agent, "t") == 1 and agent.run_info("t").status == "finished"
    assert agent.graph.get_state({"configurable": {"thread_id": "t"}}).tasks == ()  # nothing left pending


def test_a_run_whose_last_checkpoint_cannot_be_saved_raises_as_a_lost_database(tmp_path):
    saver = Losing(sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False), losses=2)
    agent = ReActAgent(model(), [lookup], checkpointer=saver, summary_every=0)
    with pytest.raises(CheckpointStoreError, match="could not be written") as raised:
        agent.run("Look up 1.", thread_id="t")
    assert isinstance(raised.value.__cause__, ConnectionError)  # a queued run's job is retried, and resumed
    assert agent.run_info("t").status == "failed"  # with the error; a resume ends it
    assert agent.resume("t").termination_reason is TerminationReason.SUCCESS
    assert terminations(agent, "t") == 1


def test_the_async_run_saves_it_too(tmp_path, monkeypatch):
    from reactgraph.persistence.sqlite import AsyncCheckpointFile

    lost: list[str] = []
    aput = AsyncCheckpointFile.aput

    async def losing(self, config, checkpoint, metadata, new_versions):  # noqa: ANN001, ANN202
        if not lost and after_terminate(checkpoint, metadata, new_versions):
            lost.append(checkpoint["id"])
            return dropped(config, checkpoint)
        return await aput(self, config, checkpoint, metadata, new_versions)

    monkeypatch.setattr(AsyncCheckpointFile, "aput", losing)
    agent = ReActAgent(model(), [lookup], checkpointer=tmp_path / "runs.sqlite", summary_every=0)
    result = asyncio.run(agent.arun("Look up 1.", thread_id="t"))
    assert (len(lost), result.termination_reason) == (1, TerminationReason.SUCCESS)
    assert terminations(agent, "t") == 1 and agent.run_info("t").status == "finished"
