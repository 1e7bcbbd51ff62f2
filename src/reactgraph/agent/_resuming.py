"""Resuming: a run continued from its last checkpoint, after a crash or a pause, with the answer to its question
or the decisions on the calls that wait for approval (``resume``, ``aresume``)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from reactgraph.agent._driving import Deferred, Drive, Driving, same_parameters
from reactgraph.answers.result import ReActResult
from reactgraph.answers.waiting import ApprovalHandler, ClarificationHandler, resume_values
from reactgraph.state import checked_text


class Resuming(Driving):
    """``resume`` and ``aresume``: what waits is answered (``_resume_command``) once the thread is held."""

    def _continued_run(
        self,
        thread_id: str | None,
        answer: str | None = None,
        *,
        approval: Any = None,
        approvals: dict[str, Any] | None = None,
        on_clarification: ClarificationHandler | None = None,
        on_approval: ApprovalHandler | None = None,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
        context: Any = None,
        **overrides: Any,
    ) -> Drive:
        """What ``resume`` and ``aresume`` drive: the run on ``thread_id``, continued."""
        if answer is not None:
            checked_text(answer, "answer")
        thread_id = self._require_run(thread_id)
        options, run_config, thread_id = self._prepare(thread_id, overrides, inherit=True, callbacks=callbacks, config=config)
        self._resume_command(run_config, answer, approval, approvals)  # AnswerError now, before anything runs
        # and again once the thread is held: what waits then (another resume may have decided it since)
        payload = Deferred(lambda: self._resume_command(run_config, answer, approval, approvals))
        handlers = (on_clarification, on_approval)
        return Drive(payload, run_config, options, thread_id, handlers, user=self._user_context(context))

    @same_parameters(_continued_run)
    def resume(self, thread_id: str, answer: str | None = None, **options: Any) -> ReActResult | str:
        """Continue the run on ``thread_id`` from its last checkpoint (after a crash or a pause), with the
        options it was started with (the other keywords override them).
        ``answer`` answers a pending clarification question; ``approval`` decides the one call
        waiting for approval, ``approvals`` several by tool call id (``{call_id: decision}``; calls
        left out keep waiting). A decision is ``Approve()``, ``Edit(args)`` or ``Reject(reason)``, or
        LangChain's dict (``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"args": ...}}``,
        ``{"type": "reject", "message": ...}``); one that does not fit raises AnswerError before
        anything runs. Tool calls that finished before a crash are not run again. A finished run is
        returned as it is."""
        return self._drive(self._continued_run(thread_id, answer, **options))

    @same_parameters(_continued_run)
    async def aresume(self, thread_id: str, answer: str | None = None, **options: Any) -> ReActResult | str:
        """Async ``resume``."""
        return await self._adrive(self._continued_run(thread_id, answer, **options))

    def _resume_command(
        self, config: RunnableConfig, answer: str | None, approval: Any, approvals: dict[str, Any] | None
    ) -> Command | None:
        """The Command answering the run's pending question and calls (None when nothing is given);
        AnswerError when an answer or a decision does not fit what the run waits for."""
        if answer is None and approval is None and not approvals:
            return None
        with self.store.reading(config["configurable"]["thread_id"]):
            interrupts = self.graph.get_state(config).interrupts
        return Command(resume=resume_values(interrupts, answer=answer, approval=approval, approvals=approvals))
