"""Running: a new question run to its end (``run``, ``arun``), and a run stopped (``cancel``)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import RunnableConfig

from reactgraph.agent._driving import Drive, Driving, same_parameters
from reactgraph.agent._preparing import Question
from reactgraph.answers.result import ReActResult
from reactgraph.answers.waiting import ApprovalHandler, ClarificationHandler
from reactgraph.state import checked_thread_id, run_input


class Running(Driving):
    """``run``, ``arun`` and ``cancel``. A run method and its async twin take the same parameters, written once on
    the private method that reads them (``same_parameters``); the drive loop is one body for both (``_steps``)."""

    def _new_run(
        self,
        query: Question,
        *,
        thread_id: str | None = None,
        on_clarification: ClarificationHandler | None = None,
        on_approval: ApprovalHandler | None = None,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
        context: Any = None,
        **overrides: Any,
    ) -> Drive:
        """What ``run`` and ``arun`` drive: a new run of ``query`` (the next turn, on a thread that has one)."""
        payload = run_input(query)
        if (thread := thread_id or (config or {}).get("configurable", {}).get("thread_id")) is not None:
            self._refuse_if_waiting(checked_thread_id(thread))
        options, run_config, thread_id = self._prepare(thread_id, overrides, callbacks=callbacks, config=config)
        handlers = (on_clarification, on_approval)
        return Drive(payload, run_config, options, thread_id, handlers, user=self._user_context(context))

    @same_parameters(_new_run)
    def run(self, query: Question, **options: Any) -> ReActResult | str:
        """Run ``query`` to its end. On a thread with earlier questions it is the next turn of that
        conversation: the model sees the earlier turns (``keep_recent_turns`` of them as they were, older
        ones as notes; ``new_conversation=True`` shows none). The other keywords are AgentConfig fields for
        this run only.
        When the model asks the user a question, ``on_clarification(question)`` answers it; without
        a handler the run pauses and the result has reason 'clarification' (answer with ``resume``).
        A call of a tool that needs approval (``approve_tools``, ``ToolPolicy(approve=True)``) is
        decided by ``on_approval(call)`` (a PendingApproval; it returns ``Approve()``, ``Edit(args)``
        or ``Reject(reason)``, or LangChain's decision dict); without it the run pauses with reason
        'approval' and the calls in ``pending_approvals`` (decide with ``resume``); a new question on that
        thread then raises RunWaitingError, changing nothing. A ``query`` that is not a string, is blank or is no
        text a database can store (a lone surrogate) raises InvalidInputError, and nothing runs."""
        return self._drive(self._new_run(query, **options))

    @same_parameters(_new_run)
    async def arun(self, query: Question, **options: Any) -> ReActResult | str:
        """Async ``run``."""
        return await self._adrive(self._new_run(query, **options))

    def cancel(self, thread_id: str | None = None) -> None:
        """Stop the run on ``thread_id`` (every running run, when None) after its current step. The
        request is stored in the agent's database, so it reaches a run in another process on the same
        database (SQLite file or Postgres) too; a new run on the thread starts uncancelled."""
        if thread_id is not None:
            checked_thread_id(thread_id)
        self._deps.request_cancel(thread_id)
        self.store.request_cancel(thread_id)
