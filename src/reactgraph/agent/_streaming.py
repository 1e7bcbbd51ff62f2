"""Streaming: a run's steps, its tools' progress and its model's tokens yielded as they come (``stream``,
``astream``), or each node's update (``stream_updates``: a new run, a continued one or a fork)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, NamedTuple

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import RunnableConfig
from langgraph.types import StreamMode

from reactgraph.agent._driving import Deferred, Drive, question_of_payload, same_parameters
from reactgraph.agent._inspecting import Inspecting
from reactgraph.agent._preparing import Question
from reactgraph.agent._resuming import Resuming
from reactgraph.agent._running import Running
from reactgraph.answers.result import Progress, ReActResult, ReActStep, Token
from reactgraph.persistence.reading import snapshot_result

STEP_NODES = ("observe", "terminate")  # the nodes that write trace steps
Update = tuple[str, dict[str, Any]]  # (node, the node's update)


class Streaming(Running, Resuming, Inspecting):
    """``stream``, ``astream`` and ``stream_updates`` (which starts, continues or forks a run: it builds on the
    other jobs)."""

    def _streamed_run(
        self,
        query: Question,
        *,
        thread_id: str | None = None,
        tokens: bool = False,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
        context: Any = None,
        **overrides: Any,
    ) -> tuple[Drive, list[StreamMode]]:
        """What ``stream`` and ``astream`` follow: a new run of ``query``, and the stream modes."""
        drive = self._new_run(query, thread_id=thread_id, callbacks=callbacks, config=config, context=context, **overrides)
        return drive, stream_modes(tokens)

    @same_parameters(_streamed_run)
    def stream(self, query: Question, **options: Any) -> Iterator[ReActStep | Token | Progress | ReActResult]:
        """Yield each ReActStep as it completes, then the ReActResult; each Progress a tool writes while it runs
        (``get_stream_writer()``, ``runtime.stream_writer``: LangGraph's ``stream_mode="custom"``); with ``tokens``,
        also each Token of the model's replies as it is written (LangGraph's ``stream_mode="messages"``)."""
        drive, modes = self._streamed_run(query, **options)
        for item in self._follow(drive, modes):
            yield from steps_of(item)

    @same_parameters(_streamed_run)
    async def astream(self, query: Question, **options: Any) -> AsyncIterator[ReActStep | Token | Progress | ReActResult]:
        """Async ``stream``."""
        drive, modes = self._streamed_run(query, **options)
        async with self._async_graph() as graph, self.store.aholding(drive.thread_id), self.store.atracking(drive.thread_id, question_of_payload(drive.payload)):  # noqa: E501
            with self.store.errors(drive.thread_id):
                chunks = graph.astream(drive.payload, drive.config, context=drive.graph_context(), stream_mode=modes,
                                       durability=self._durability(drive), subgraphs=True)
                async for namespace, mode, chunk in chunks:
                    for item in stream_items(mode, chunk, namespace):
                        for shown in steps_of(item):
                            yield shown
                yield snapshot_result(await graph.aget_state(drive.config), drive.thread_id, self.output_schema)

    def stream_updates(
        self,
        query: Question | None = None,
        *,
        thread_id: str | None = None,
        answer: str | None = None,
        approvals: dict[str, Any] | None = None,
        metadata: dict[str, str] | None = None,
        tokens: bool = False,
        fork: Mapping[str, Any] | None = None,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
        **overrides: Any,
    ) -> Iterator[Update | ChildUpdate | Token | Progress | ReActResult]:
        """Yield ``(node, update)`` as each node finishes (think, act once per tool call, observe,
        summarize, terminate; a sub-agent's nodes as ChildUpdates), each Progress a tool writes, then the ReActResult;
        with ``tokens``, also each Token of the model's replies as it is written. With ``query`` a new run starts; without it the run on
        ``thread_id`` continues (``answer`` answers its pending clarification, ``approvals`` decides
        calls waiting for approval, by tool call id, as in ``resume``); with ``fork`` (the point ``fork`` takes:
        ``{"turn": 2, "iteration": 1}``, ``{"query": ...}`` or ``{"checkpoint_id": ...}``) it is forked from there.
        ``metadata`` is stored with every checkpoint of the run (see ``run_info``)."""
        if fork is not None:
            drive = self._forked_run(thread_id, callbacks=callbacks, config=config, **fork, **overrides)
        elif query is None:
            drive = self._continued_run(thread_id, answer, approvals=approvals, callbacks=callbacks, config=config, **overrides)
        else:
            drive = self._new_run(query, thread_id=thread_id, callbacks=callbacks, config=config, **overrides)
        drive.config["metadata"] |= metadata or {}
        yield from self._follow(drive, stream_modes(tokens))

    def _follow(self, drive: Drive, modes: list[StreamMode]) -> Iterator[Update | ChildUpdate | Token | Progress | ReActResult]:
        """A run streamed: each node's update (a sub-agent's as ChildUpdates), Tokens when ``modes`` has
        "messages", then the ReActResult."""
        with (
            self.store.holding(drive.thread_id),
            self.store.tracking(drive.thread_id, question_of_payload(drive.payload)),
            self.store.errors(drive.thread_id),
        ):
            payload = drive.payload() if isinstance(drive.payload, Deferred) else drive.payload
            chunks = self.graph.stream(
                payload, drive.start or drive.config, context=drive.graph_context(), stream_mode=modes,
                durability=self._durability(drive), subgraphs=True,
            )
            for namespace, mode, chunk in chunks:  # with subgraphs=True, (namespace, mode, chunk): LangGraph's stubs say dicts
                yield from stream_items(mode, chunk, namespace)  # type: ignore[arg-type]
            yield snapshot_result(self._checkpointed(drive), drive.thread_id, self.output_schema)


def stream_modes(tokens: bool) -> list[StreamMode]:
    """LangGraph stream modes: node updates, what tools write (``custom``), and with ``tokens`` the models' messages
    as written."""
    return ["updates", "custom", "messages"] if tokens else ["updates", "custom"]


class ChildUpdate(NamedTuple):
    """A node's update inside a sub-agent's run (``reactgraph.graph.subagents``): ``depth`` 1 for a child
    of the run, 2 for its child, and so on."""

    depth: int
    node: str
    update: dict[str, Any]


def stream_items(mode: str, chunk: Any, namespace: tuple[str, ...] = ()) -> Iterator[Update | ChildUpdate | Token | Progress]:
    """What one LangGraph stream chunk gives a caller: ``(node, update)`` pairs (ChildUpdates from a
    sub-agent's ``namespace``), a Token, or a tool's Progress."""
    if mode == "custom":
        yield Progress(data=chunk, depth=len(namespace))
        return
    if mode == "messages":
        message, metadata = chunk
        if (token := token_of(message, metadata, depth=len(namespace))) is not None:
            yield token
        return
    for node, update in chunk.items():
        if not node.startswith("__") and isinstance(update, dict):
            yield ChildUpdate(len(namespace), node, update) if namespace else (node, update)


def token_of(message: Any, metadata: dict[str, Any], depth: int = 0) -> Token | None:
    """Text a chat model wrote (LangChain marks its model runs with ``ls_model_type``), not a message
    a node put in the state; None for an empty piece (a tool call's chunk)."""
    if "ls_model_type" not in metadata:
        return None
    text = message.text if isinstance(message.text, str) else ""
    return Token(node=str(metadata.get("langgraph_node", "")), text=text, depth=depth) if text else None


def steps_of(item: Update | ChildUpdate | Token | Progress | ReActResult) -> Iterator[ReActStep | Token | Progress | ReActResult]:
    """What ``stream`` yields of a streamed item: a Token, a tool's Progress or the result as it is, the trace steps
    of observe's and terminate's updates; nothing of a sub-agent's (its steps come in its call's observation)."""
    if isinstance(item, ReActResult | Token | Progress):
        yield item
    elif not isinstance(item, ChildUpdate) and item[0] in STEP_NODES:
        for step in item[1].get("steps") or []:
            yield ReActStep.model_validate(step)
