"""Inspecting: a run read back from its checkpoints (its result, trace, conversation, history, where it stands,
every run), and time travel: a thread forked from one of its checkpoints (``fork``)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import RunnableConfig

from reactgraph.agent._driving import Drive, Driving, same_parameters
from reactgraph.answers.result import ConversationTurn, ReActResult, ReActTrace
from reactgraph.answers.waiting import ApprovalHandler, ClarificationHandler
from reactgraph.graph.conversation import LastHumans, chat_results, turn_of, with_results
from reactgraph.persistence.base import RunNotFoundError
from reactgraph.persistence.reading import (
    ForkError,
    HistoryEntry,
    RunInfo,
    fork_point,
    history,
    list_runs,
    run_info,
    snapshot_result,
    thread_config,
    turn_end,
)
from reactgraph.state import checked_question, checked_thread_id


class Inspecting(Driving):
    """The reading methods, and ``fork`` (which reads the thread's ``history`` to find where to start)."""

    def get_result(self, thread_id: str | None = None) -> ReActResult:
        """The result of the run on ``thread_id`` (default: the last run), from its checkpoint."""
        thread_id = self._thread(thread_id)
        with self.store.reading(thread_id):
            snapshot = self.graph.get_state(thread_config(thread_id))
            if not snapshot.values and not snapshot.next:
                raise RunNotFoundError(f"no run with thread id {thread_id!r}{self._where()}")
            return snapshot_result(snapshot, thread_id, self.output_schema)

    def get_trace(self, thread_id: str | None = None) -> ReActTrace:
        """The trace of the run on ``thread_id`` (default: the last run), from the checkpointer."""
        return self.get_result(thread_id).trace

    def get_current_scratchpad(self, thread_id: str | None = None) -> str:
        """The Thought / Action / Observation text of the run so far."""
        return self.get_trace(thread_id).scratchpad()

    def conversation(self, thread_id: str | None = None) -> list[ConversationTurn]:
        """Every finished turn of the thread's conversation (default: the last run's thread), oldest first:
        question, answer, how it ended, its trace. A turn that waits or crashed is not among them yet."""
        thread_id = self._thread(thread_id)
        with self.store.reading(thread_id):
            snapshot = self.graph.get_state(thread_config(thread_id))
            if not snapshot.values and not snapshot.next:
                raise RunNotFoundError(f"no run with thread id {thread_id!r}{self._where()}")
            results = chat_results(snapshot.values.get("messages") or [])
            return [ConversationTurn.from_record(with_results(record, results)) for record in snapshot.values.get("turns") or []]

    def history(self, thread_id: str | None = None) -> list[HistoryEntry]:
        """The state after each node (each super-step) of the thread's current branch, every turn of its
        conversation, oldest first, from the checkpointer; each entry names its ``turn``."""
        thread_id = self._thread(thread_id)
        humans = LastHumans()
        with self.store.reading(thread_id):
            return history(self.graph, thread_id, lambda values, upcoming: turn_of(values, upcoming, humans))

    def run_info(self, thread_id: str) -> RunInfo:
        """Where the run on ``thread_id`` stands (status, reason, iterations, tokens, metadata, the error of a
        failed run)."""
        checked_thread_id(thread_id)
        with self.store.reading(thread_id):
            return run_info(self.graph, thread_id, self.store.activities().get(thread_id))

    def list_runs(self, limit: int | None = None) -> list[RunInfo]:
        """Every run in the checkpointer (thread, question, status, reason, iterations, tokens, started, updated,
        error), most recently updated first; status is running, waiting, finished, failed or interrupted."""
        with self.store.reading():
            return list_runs(self.graph, limit, self.store.thread_ids(), self.store.activities())

    def _forked_run(
        self,
        thread_id: str | None,
        *,
        turn: int | None = None,
        iteration: int | None = None,
        query: str | None = None,
        checkpoint_id: str | None = None,
        on_clarification: ClarificationHandler | None = None,
        on_approval: ApprovalHandler | None = None,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
        context: Any = None,
        **overrides: Any,
    ) -> Drive:
        """What ``fork`` drives: the thread from the chosen checkpoint (see ``fork``)."""
        if sum(x is not None for x in (iteration, query, checkpoint_id)) != 1:
            raise ForkError("fork needs exactly one of iteration=, query= or checkpoint_id=")
        if query is not None:
            checked_question(query)
        payload = None
        if checkpoint_id is None:
            entries = self.history(thread_id)
            turn = turn or max(e.turn for e in entries)
            if query is None:
                checkpoint_id = fork_point(entries, turn, iteration or 0).checkpoint_id
            elif turn == 1:
                raise ForkError("turn 1 has no turn before it to fork from: ask the question on a new thread")
            else:
                checkpoint_id, payload = turn_end(entries, turn - 1).checkpoint_id, {"query": query}
        options, run_config, thread_id = self._prepare(
            thread_id, overrides, inherit=True, fresh=True, callbacks=callbacks, config=config
        )
        start = run_config | thread_config(thread_id, checkpoint_id)
        return Drive(payload, run_config, options, thread_id, (on_clarification, on_approval), start, self._user_context(context))

    @same_parameters(_forked_run)
    def fork(self, thread_id: str, **options: Any) -> ReActResult | str:
        """Re-run part of the thread from a chosen point, with changed config (LangGraph time travel): a
        ``turn`` of its conversation (default: the last) from just after its ``iteration`` (0 = from its
        start); or that turn asked anew with ``query`` (from where the turn before it ended); or from any
        ``checkpoint_id`` of ``history``. The new branch becomes the thread's current one; the old one stays
        in the checkpointer."""
        return self._drive(self._forked_run(thread_id, **options))
