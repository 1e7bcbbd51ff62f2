"""ReActAgent: the Python API around the compiled graph. Its constructor builds the parts (``_parts``); its jobs
are mixins, one module each: running (``_running``), resuming (``_resuming``), inspecting and forking
(``_inspecting``), streaming (``_streaming``), on the drive loop (``_driving``) and a run's preparation
(``_preparing``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from reactgraph.agent._inspecting import Inspecting
from reactgraph.agent._resuming import Resuming
from reactgraph.agent._running import Running
from reactgraph.agent._streaming import Streaming
from reactgraph.answers.typed import OutputSchema
from reactgraph.config import AgentConfig, ConfigError
from reactgraph.graph import NodeFactory, build_deps, build_graph
from reactgraph.graph.checks import BUILTIN_CHECKS, Check, named_checks
from reactgraph.graph.subagents import AgentTool, HandoffTool
from reactgraph.persistence import open_store
from reactgraph.persistence.base import DEFAULT_CHECKPOINTER, DefaultCheckpointer
from reactgraph.playbook import Playbook, close_store, playbook_store
from reactgraph.tools.registry import ToolRegistry

CheckpointerSpec = BaseCheckpointSaver | str | os.PathLike[str] | DefaultCheckpointer | None


class ReActAgent(Streaming, Running, Resuming, Inspecting):
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

    def close(self) -> None:
        """Close the connections this agent opened (a saver or a store given to it is left to its owner)."""
        self.store.close()
        if self._owned_store is not None:
            close_store(self._owned_store)

    def __enter__(self) -> ReActAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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


def handoff_to(agent: ReActAgent, name: str, description: str | None = None) -> HandoffTool:
    """A tool (``transfer_to_<name>``) that hands the run's conversation to ``agent``, as langgraph-swarm's handoff
    tools do: ``agent`` takes the run's question (with the model's note), within what is left of the run's time,
    tokens and iterations and under its approvals, and its answer is the run's answer. Give it to an agent as
    any tool: ``ReActAgent(model, [lookup, handoff_to(billing, "billing")])``."""
    return agent.as_handoff(name, description)
