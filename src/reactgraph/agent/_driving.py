"""The drive loop: a run (new, continued or forked) invoked on the graph until it ends or waits on what no handler
answers, its last step checkpointed; one body for a run method and its async twin."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Generator
from contextlib import asynccontextmanager
from typing import Any, NamedTuple, ParamSpec, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Durability

from reactgraph.agent._preparing import Preparing
from reactgraph.answers.result import ReActResult
from reactgraph.answers.waiting import ApprovalHandler, ClarificationHandler, handler_values
from reactgraph.config import AgentConfig
from reactgraph.graph.runtime import RunContext
from reactgraph.persistence.base import CheckpointStoreError
from reactgraph.persistence.reading import snapshot_result

P = ParamSpec("P")
R = TypeVar("R")


def same_parameters(template: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """The decorated method takes ``template``'s parameters: ``help`` shows them, type checkers and editors
    know them. A run method and its async twin say their parameters once."""

    def decorate(method: Callable[..., R]) -> Callable[P, R]:
        returns = inspect.signature(method).return_annotation
        method.__signature__ = inspect.signature(template).replace(return_annotation=returns)  # type: ignore[attr-defined]
        return method

    return decorate


class Deferred(NamedTuple):
    """A drive's first payload, computed once the thread is held (``RunStore.holding``): a resume's decisions are
    read against what waits then."""

    compute: Callable[[], Any]

    def __call__(self) -> Any:
        return self.compute()


class Drive(NamedTuple):
    """A run to drive: what the first invoke sends, the run's LangGraph config and its options, its thread, the
    handlers of what it may wait on, where a fork starts (None: ``config``) and the user's context."""

    payload: Any
    config: RunnableConfig
    context: AgentConfig | None
    thread_id: str
    handlers: tuple[ClarificationHandler | None, ApprovalHandler | None] = (None, None)
    start: RunnableConfig | None = None
    user: Any = None

    def graph_context(self) -> Any:
        """The run's LangGraph context: its options, with the user's context when it has one (``graph.runtime``)."""
        return self.context if self.user is None else RunContext(self.context, self.user)


def unsaved_step(snapshot: Any) -> bool:
    """Whether a run the graph returned from neither ended (no task left) nor waits (for an answer or an approval):
    its last step's writes were lost after the saver took them, or wait unsaved as pending writes. A Postgres server
    with ``synchronous_commit=off`` that crashes loses commits it acknowledged: a queued run's job then counted as
    done with no checkpoint after its terminate, when the crash came before this read (after it, nothing here sees
    the loss)."""
    return bool(snapshot.tasks or snapshot.next) and not snapshot.interrupts


def unsaved(thread_id: str) -> CheckpointStoreError:
    """The error of a run whose last step could not be checkpointed (from a ConnectionError: the database lost it, and
    a queued run is retried, and resumed)."""
    error = CheckpointStoreError(f"run {thread_id!r}: its last step ran, but the checkpoint after it could not be written")
    error.__cause__ = ConnectionError("the checkpoint after the run's last step was not written")
    return error


def advance(steps: Generator[Any, Any, Any], snapshot: Any) -> tuple[bool, Any]:
    """(False, the next payload) from the drive loop, or (True, its output) once it returned."""
    try:
        return False, steps.send(snapshot)
    except StopIteration as end:
        return True, end.value


def question_of_payload(payload: Any) -> str | None:
    """The question a drive starts with (a new run's: its query or its message's text), None for a resume or a fork."""
    if not isinstance(payload, dict):
        return None
    messages = payload.get("messages")
    return messages[-1].text if messages else payload.get("query")


class Driving(Preparing):
    """A prepared run (a ``Drive``) driven on the graph, sync or async."""

    def _steps(self, drive: Drive) -> Generator[Any, Any, ReActResult | str]:
        """The drive loop of ``run``, ``resume``, ``fork`` and the async twins: yields what to invoke the graph
        with, is sent the state after each invoke, and returns the output once the run ends or waits on what
        no handler answers (questions by ``on_clarification``, calls to approve by ``on_approval``)."""
        payload = drive.payload() if isinstance(drive.payload, Deferred) else drive.payload
        while True:
            snapshot = yield payload
            if not (answers := handler_values(snapshot.interrupts, *drive.handlers)):
                return self._output(snapshot_result(snapshot, drive.thread_id, self.output_schema), drive.context)
            payload = Command(resume=answers)

    def _durability(self, drive: Drive) -> Durability:
        """When the run's checkpoints are written (``AgentConfig.durability``, the run's own over the agent's)."""
        return self.config.merge(drive.context).durability

    def _drive(self, drive: Drive) -> Any:
        """``_steps`` on the graph (its first invoke from ``drive.start``, a fork's checkpoint, when given)."""
        steps, start = self._steps(drive), drive.start or drive.config
        with (
            self.store.holding(drive.thread_id),
            self.store.tracking(drive.thread_id, question_of_payload(drive.payload)),
            self.store.errors(drive.thread_id),
        ):
            payload = next(steps)
            while True:
                self.graph.invoke(payload, start, context=drive.graph_context(), durability=self._durability(drive))
                done, payload = advance(steps, self._checkpointed(drive))
                if done:
                    return payload
                start = drive.config

    async def _adrive(self, drive: Drive) -> Any:
        """``_steps`` on the graph bound to the store's async saver."""
        steps = self._steps(drive)
        async with (
            self._async_graph() as graph,
            self.store.aholding(drive.thread_id),
            self.store.atracking(drive.thread_id, question_of_payload(drive.payload)),
        ):
            with self.store.errors(drive.thread_id):
                payload = next(steps)
                while True:
                    await graph.ainvoke(payload, drive.config, context=drive.graph_context(), durability=self._durability(drive))
                    done, payload = advance(steps, await self._acheckpointed(graph, drive))
                    if done:
                        return payload

    def _checkpointed(self, drive: Drive) -> Any:
        """The run's state after an invoke, its last step checkpointed: a step whose writes were lost or wait unsaved
        (``unsaved_step``) is saved by invoking the graph once more, as a resume does (it runs what is left, or applies
        the pending writes); ``unsaved`` when it still is not."""
        snapshot = self.graph.get_state(drive.config)
        if unsaved_step(snapshot):
            self.graph.invoke(None, drive.config, context=drive.graph_context(), durability=self._durability(drive))
            if unsaved_step(snapshot := self.graph.get_state(drive.config)):
                raise unsaved(drive.thread_id)
        return snapshot

    async def _acheckpointed(self, graph: Any, drive: Drive) -> Any:
        """Async ``_checkpointed`` on ``graph``."""
        snapshot = await graph.aget_state(drive.config)
        if unsaved_step(snapshot):
            await graph.ainvoke(None, drive.config, context=drive.graph_context(), durability=self._durability(drive))
            if unsaved_step(snapshot := await graph.aget_state(drive.config)):
                raise unsaved(drive.thread_id)
        return snapshot

    @asynccontextmanager
    async def _async_graph(self) -> AsyncIterator[Any]:
        """The graph for async calls, bound to the store's async saver (an AsyncSqliteSaver on the same
        file, an AsyncPostgresSaver on the same database)."""
        async with self.store.async_saver() as saver:
            yield self.graph if saver is self.checkpointer else self.graph.copy({"checkpointer": saver})
