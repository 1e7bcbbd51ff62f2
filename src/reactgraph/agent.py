"""ReActAgent: the Python API around the compiled graph."""

from __future__ import annotations

import inspect
import json
import os
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple, ParamSpec, TypeVar

from langchain.agents.middleware import AgentMiddleware
from langchain_core.callbacks import Callbacks
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.types import Command, Durability, StreamMode
from pydantic import BaseModel

from reactgraph.answers.result import ConversationTurn, Progress, ReActResult, ReActStep, ReActTrace, Token
from reactgraph.answers.typed import OutputSchema
from reactgraph.answers.waiting import (
    ApprovalHandler,
    ClarificationHandler,
    handler_values,
    resume_values,
    waiting_error,
)
from reactgraph.config import AgentConfig, ConfigError, make_config
from reactgraph.graph import NodeFactory, build_deps, build_graph
from reactgraph.graph.checks import BUILTIN_CHECKS, Check, named_checks, resolved_checks
from reactgraph.graph.conversation import LastHumans, chat_results, turn_of, with_results
from reactgraph.graph.middleware import hook_nodes
from reactgraph.graph.runtime import RunContext, user_context
from reactgraph.graph.stops import recursion_limit
from reactgraph.graph.subagents import AgentTool, HandoffTool
from reactgraph.models.resolve import check_model, default_model
from reactgraph.persistence import open_store
from reactgraph.persistence.base import (
    DEFAULT_CHECKPOINTER,
    CheckpointStoreError,
    DefaultCheckpointer,
    RunNotFoundError,
)
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
from reactgraph.playbook import Playbook, close_store, playbook_store
from reactgraph.state import checked_question, checked_text, checked_thread_id, run_input
from reactgraph.tools.registry import ToolRegistry

CheckpointerSpec = BaseCheckpointSaver | str | os.PathLike[str] | DefaultCheckpointer | None
RUN_OVERRIDES = "reactgraph_overrides"  # checkpoint metadata key: a run's explicit AgentConfig overrides, as JSON
STEP_NODES = ("observe", "terminate")  # the nodes that write trace steps
Update = tuple[str, dict[str, Any]]  # (node, the node's update)
Question = str | BaseMessage | dict[str, Any] | list[Any]  # a string, a human message, or content blocks (state.run_input)


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


class ReActAgent:
    """A ReAct agent: ``run`` a question, get a ReActResult (or the answer, with output_mode='simple').

    ``model`` is a chat model instance or a 'provider:model' string (default 'ollama:qwen2.5:7b');
    ``tools`` are typed, documented functions, LangChain tools, or a ToolRegistry; ``config`` and
    keyword options set the agent's AgentConfig. Every run is checkpointed under a thread id:
    by default to the SQLite file ``./.reactgraph/checkpoints.sqlite`` (or ``REACTGRAPH_DB``);
    ``checkpointer`` may instead be another file path, a ``postgresql://`` URL, any LangGraph saver,
    or None (in memory). ``store`` is where the runs live (``reactgraph.persistence``).
    ``nodes`` swaps nodes of the graph by name (see ``build_graph``). ``output_schema`` (a pydantic
    model class, or a signature string such as ``"question -> answer: float, unit: str"``) types the
    final answer: ``result.output`` is an instance of it, beside the text in ``final_answer``.
    ``playbook=True`` learns from every finished run into a playbook shown to later runs on similar
    questions (``reactgraph.playbook``), kept in ``playbook.sqlite`` beside the checkpoints (in
    memory without a checkpoint file); ``playbook=<a LangGraph BaseStore>`` keeps it there.
    ``agent.playbook`` lists and edits it. ``store`` is a LangGraph ``BaseStore`` (in memory, SQLite, Postgres) the
    tools reach through their runtime (``runtime.store``, ``InjectedStore``) and middleware through theirs: memory
    across threads; with ``playbook=True`` the playbook lives there too. ``context_schema`` types what a run's
    ``context=`` holds (a dataclass, a pydantic model or a TypedDict: a dict given is made into it), the run's
    dependencies that tools and middleware read as ``runtime.context``, as ``create_agent`` takes them; it is not
    checkpointed (a resume or a fork takes it anew). ``state_schema`` adds fields to the state (a TypedDict, as
    ``create_agent``'s), which a tool's ``Command`` may update and an ``InjectedState`` read.
    ``middleware`` takes LangChain's agent middleware
    (``langchain.agents.middleware``: ``AgentMiddleware`` objects and decorated hooks), run at the matching points
    of the loop (``reactgraph.graph.middleware``); one that overlaps reactgraph's own machinery is refused with a
    MiddlewareError naming the equivalent.

    Every way to run takes ``callbacks`` (LangChain callback handlers: LangSmith, OpenTelemetry,
    your own see each model and tool call) and ``config`` (a LangChain RunnableConfig merged into
    the run's: tags, metadata, run_name, callbacks; its ``configurable.thread_id`` names the thread).
    """

    def __init__(
        self,
        model: str | BaseChatModel | None = None,
        tools: Iterable[Any] | ToolRegistry | None = None,
        config: AgentConfig | None = None,
        *,
        checkpointer: CheckpointerSpec = DEFAULT_CHECKPOINTER,
        nodes: Mapping[str, NodeFactory] | None = None,
        output_schema: OutputSchema | None = None,
        playbook: bool | BaseStore = False,
        middleware: Iterable[AgentMiddleware] = (),
        store: BaseStore | None = None,
        context_schema: type | None = None,
        state_schema: type | None = None,
        **options: Any,
    ) -> None:
        checks = options.pop("reply_checks", None)  # names, or your own check functions too
        config = (config or AgentConfig()).override(**options) if options else (config or AgentConfig())
        if playbook is not False:
            config = config.override(learning={"playbook": True})
        if store is not None and isinstance(playbook, BaseStore) and playbook is not store:
            raise ConfigError("store= and playbook=<a store> name two stores; a graph has one: give playbook=True to keep it in store=")
        self._deps = build_deps(
            model, tools, config, output_schema, middleware, checks, context_schema=context_schema, state_schema=state_schema
        )
        self.registry.check(self.config)  # a misspelt tool name is an error now, not a run without the tool
        self.store = open_store(checkpointer)
        self.checkpointer = self.store.saver
        self._deps.cancels = self.store
        self.nodes = dict(nodes or {})
        self._owned_store = playbook_store(self.store) if playbook is True and store is None else None
        store = store if store is not None else self._owned_store or (playbook if isinstance(playbook, BaseStore) else None)
        self.playbook = Playbook(store, self.config.learning.playbook_name, lessons=self._deps.lessons) if store is not None and self.config.learning.playbook else None
        self.graph = build_graph(deps=self._deps, checkpointer=self.checkpointer, nodes=self.nodes, store=store)
        self._checked_models: set[str] = set()
        self._picked_model: str | None = None
        self._last_thread: str | None = None

    @property
    def config(self) -> AgentConfig:
        return self._deps.config

    @property
    def registry(self) -> ToolRegistry:
        return self._deps.registry

    @property
    def middleware(self) -> tuple[AgentMiddleware, ...]:
        """The LangChain middleware the agent runs (``reactgraph.graph.middleware``)."""
        return self._deps.middleware

    @property
    def output_schema(self) -> type[BaseModel] | None:
        """The final answer's type (a signature string's model), or None."""
        return self._deps.output_schema

    @property
    def db_path(self) -> Path | None:
        """The SQLite file the runs are stored in (None for Postgres, in memory or a saver of another kind)."""
        return self.store.db_path

    def close(self) -> None:
        """Close the connections this agent opened (a saver or a store given to it is left to its owner)."""
        self.store.close()
        if self._owned_store is not None:
            close_store(self._owned_store)

    def __enter__(self) -> ReActAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running ---------------------------------------------------------------------------
    # A run method and its async twin take the same parameters, written once on the private method that
    # reads them (``same_parameters``); the drive loop is one body for both (``_steps``).

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

    def reply_check(self, check: Check | None = None, *, name: str | None = None) -> Any:
        """Add ``check`` after the agent's reply checks (``reactgraph.graph.checks``): a function ``(reply, state,
        config) -> Decision | None``, sync or async, that may send an answer back with a message (``SendBack``), stop
        the run, or rewrite the calls. As a decorator: ``@agent.reply_check``. ``name`` (default: the function's)
        is how ``reply_checks`` names it."""

        def add(fn: Check) -> Check:
            if name is None:
                names, own = named_checks([fn])
            elif name.isidentifier() and name not in BUILTIN_CHECKS:
                names, own = (name,), {name: fn}
            else:
                raise ConfigError(f"invalid reactgraph config: reply_checks: {name!r} cannot name your check")
            self._deps.own_checks.update(own)
            self._deps.config = self.config.override(checks={"reply_checks": (*self.config.checks.reply_checks, *names)})
            return fn

        return add(check) if check is not None else add

    def as_tool(self, name: str, description: str) -> AgentTool:
        """This agent as a tool another agent can call with a ``task`` (``reactgraph.graph.subagents``): in
        the other agent's run it runs as a subgraph, within what is left of that run's budgets, and
        its whole trace is the call's observation's ``trace``."""
        graph = build_graph(deps=self._deps, nodes=self.nodes)  # no checkpointer: as a subgraph it takes the parent's
        return AgentTool(name=name, description=description, agent=self, graph=graph)

    def as_handoff(self, name: str, description: str | None = None) -> HandoffTool:
        """This agent, called ``name``, as the tool ``transfer_to_<name>`` another agent hands the conversation to
        (``handoff_to``; ``reactgraph.graph.subagents``)."""
        description = description or f"Hand the conversation over to {name}, which then answers the user."
        graph = build_graph(deps=self._deps, nodes=self.nodes)  # as a sub-agent's: the parent's checkpointer
        return HandoffTool(name=f"transfer_to_{name}", description=description, agent=self, graph=graph)

    def cancel(self, thread_id: str | None = None) -> None:
        """Stop the run on ``thread_id`` (every running run, when None) after its current step. The
        request is stored in the agent's database, so it reaches a run in another process on the same
        database (SQLite file or Postgres) too; a new run on the thread starts uncancelled."""
        if thread_id is not None:
            checked_thread_id(thread_id)
        self._deps.request_cancel(thread_id)
        self.store.request_cancel(thread_id)

    # -- inspecting ------------------------------------------------------------------------

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

    # -- internals -------------------------------------------------------------------------

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

    @asynccontextmanager
    async def _async_graph(self) -> AsyncIterator[Any]:
        """The graph for async calls, bound to the store's async saver (an AsyncSqliteSaver on the same
        file, an AsyncPostgresSaver on the same database)."""
        async with self.store.async_saver() as saver:
            yield self.graph if saver is self.checkpointer else self.graph.copy({"checkpointer": saver})

    def _prepare(
        self,
        thread_id: str | None,
        overrides: dict[str, Any],
        *,
        inherit: bool = False,
        fresh: bool = False,
        callbacks: Callbacks = None,
        config: RunnableConfig | None = None,
    ) -> tuple[AgentConfig | None, RunnableConfig, str]:
        """Validate overrides, check the model is reachable, and build the run's LangGraph config
        (the caller's ``config`` and ``callbacks`` merged in). The run's overrides are stored in its
        checkpoints' metadata; with ``inherit`` (resume, fork) the stored ones apply under the new
        ones, so a continued run keeps its limits and tools. A new run (one that does not ``inherit``) and
        a ``fresh`` one (a fork) start uncancelled; a continued one still stops for a cancel requested while it
        was not running (after a crash, or while it waited)."""
        thread_id = thread_id or (config or {}).get("configurable", {}).get("thread_id")
        if thread_id is not None:
            checked_thread_id(thread_id)  # InvalidInputError before anything is stored under it
        stored = self._stored_overrides(thread_id) if inherit and thread_id is not None else {}
        context = make_config(**stored).override(**overrides) if stored or overrides else None
        effective = self.config.merge(context)
        self.registry.check(effective)  # UnknownToolError naming the close matches
        resolved_checks(effective.checks.reply_checks, self._deps.own_checks)  # ConfigError naming the close matches
        if effective.learning.playbook and self.playbook is None:
            raise ConfigError("playbook=True needs the agent's store: ReActAgent(playbook=True) or playbook=<a BaseStore>")
        by_name = self._deps.model is None or effective.model != self.config.model
        if by_name and not effective.model_settings.fallback_models:  # with fallbacks, an unreachable primary falls back
            if "model" not in effective.model_fields_set and (picked := self._default_model()) != effective.model:
                context = (context or AgentConfig()).override(model=picked)  # stored with the run: a resume goes on with it
                effective = self.config.merge(context)
            self._preflight(effective)
        thread_id = thread_id or uuid.uuid4().hex
        if fresh or not inherit:
            self._deps.clear_cancel(thread_id)
            self.store.clear_cancel(thread_id)
        self._last_thread = thread_id
        own = thread_config(thread_id) | {
            "max_concurrency": effective.tool_execution.max_parallel_tools,
            "recursion_limit": recursion_limit(effective.limits.max_iterations, hook_nodes(self._deps.middleware)),
            "metadata": {RUN_OVERRIDES: json.dumps(context.model_dump(mode="json", exclude_unset=True) if context else {})},
        }
        merged = merge_configs(config, {"callbacks": callbacks} if callbacks else None, own)
        merged["metadata"] = dict(merged.get("metadata") or {})  # stream_updates adds its labels to the run's own
        return context, merged.copy(), thread_id

    def _user_context(self, context: Any) -> Any:
        """A run's ``context=``: as given, or a dict made into the agent's ``context_schema`` (as LangGraph does)."""
        schema = self._deps.context_schema
        if isinstance(context, dict) and schema is not None:
            return user_context(schema, context)
        return context

    def _stored_overrides(self, thread_id: str) -> dict[str, Any]:
        """The per-run options the run on ``thread_id`` was started with, grouped (callables are not stored; a run
        of reactgraph 0.1 stored flat names, which ``make_config`` still reads)."""
        with self.store.reading(thread_id):
            stored = (self.graph.get_state(thread_config(thread_id)).metadata or {}).get(RUN_OVERRIDES)
            return json.loads(stored or "{}") if isinstance(stored, str | None) else {}

    def _default_model(self) -> str:
        """The model of the runs given none (``models.resolve.default_model``: the default when the machine has it,
        else a pulled model that calls tools), found once per agent."""
        if self._picked_model is None:
            self._picked_model = default_model(self.config.model)
            self._checked_models.add(self._picked_model)
        return self._picked_model

    def _preflight(self, cfg: AgentConfig) -> None:
        """Report a model that cannot be used (no provider package, no API key, Ollama unreachable or
        the model not pulled) before the run, once per model."""
        if cfg.model not in self._checked_models:
            check_model(cfg.model, cfg)
            self._checked_models.add(cfg.model)

    def _thread(self, thread_id: str | None) -> str:
        if thread_id := thread_id or self._last_thread:
            return checked_thread_id(thread_id)
        raise ValueError("no run yet: pass a thread_id")

    def _require_run(self, thread_id: str | None) -> str:
        """``thread_id``, checked, when a run on it can go on (ValueError or RunNotFoundError when none can)."""
        if thread_id is None:
            raise ValueError("continuing a run needs its thread_id")
        checked_thread_id(thread_id)
        with self.store.reading(thread_id):
            snapshot = self.graph.get_state(thread_config(thread_id))
        if not snapshot.values and not snapshot.next:
            raise RunNotFoundError(f"no run with thread id {thread_id!r}{self._where()}")
        return thread_id

    def _refuse_if_waiting(self, thread_id: str) -> None:
        """RunWaitingError when the thread's turn waits for an answer or a decision (a new question would drop it)."""
        with self.store.reading(thread_id):
            interrupts = self.graph.get_state(thread_config(thread_id)).interrupts
        if interrupts:
            raise waiting_error(thread_id, interrupts)

    def _where(self) -> str:
        return f" in {self.store.name}" if self.store.name else ""

    def _output(self, result: ReActResult, context: AgentConfig | None) -> ReActResult | str:
        mode = self.config.merge(context).output_mode
        return (result.final_answer or "") if mode == "simple" else result


def handoff_to(agent: ReActAgent, name: str, description: str | None = None) -> HandoffTool:
    """A tool (``transfer_to_<name>``) that hands the run's conversation to ``agent``, as langgraph-swarm's handoff
    tools do: ``agent`` takes the run's question (with the model's note), within what is left of the run's time,
    tokens and iterations and under its approvals, and its answer is the run's answer. Give it to an agent as
    any tool: ``ReActAgent(model, [lookup, handoff_to(billing, "billing")])``."""
    return agent.as_handoff(name, description)


def question_of_payload(payload: Any) -> str | None:
    """The question a drive starts with (a new run's: its query or its message's text), None for a resume or a fork."""
    if not isinstance(payload, dict):
        return None
    messages = payload.get("messages")
    return messages[-1].text if messages else payload.get("query")


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
