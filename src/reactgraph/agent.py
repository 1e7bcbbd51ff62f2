"""ReActAgent: the Python API around the compiled graph."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Checkpointer, Command

from reactgraph.config import AgentConfig, make_config
from reactgraph.graph import build_deps, build_graph
from reactgraph.models import check_ollama
from reactgraph.result import ReActResult, ReActStep, ReActTrace, TerminationReason, result_from_state
from reactgraph.tools.registry import ToolRegistry

ClarificationHandler = Callable[[str], str]


class ReActAgent:
    """A ReAct agent: ``run`` a question, get a ReActResult (or the answer, with output_mode='simple').

    ``model`` is a chat model instance or a 'provider:model' string (default 'ollama:qwen2.5:7b');
    ``tools`` are typed, documented functions, LangChain tools, or a ToolRegistry; ``config`` and
    keyword options set the agent's AgentConfig. Every run is checkpointed under a thread id.
    """

    def __init__(
        self,
        model: str | BaseChatModel | None = None,
        tools: Iterable[Any] | ToolRegistry | None = None,
        config: AgentConfig | None = None,
        *,
        checkpointer: Checkpointer = None,
        **options: Any,
    ) -> None:
        config = (config or AgentConfig()).override(**options) if options else (config or AgentConfig())
        self._deps = build_deps(model, tools, config)
        self.checkpointer = checkpointer if checkpointer is not None else InMemorySaver()
        self.graph = build_graph(deps=self._deps, checkpointer=self.checkpointer)
        self._checked_models: set[str] = set()
        self._last_thread: str | None = None

    @property
    def config(self) -> AgentConfig:
        return self._deps.config

    @property
    def registry(self) -> ToolRegistry:
        return self._deps.registry

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        query: str,
        *,
        thread_id: str | None = None,
        on_clarification: ClarificationHandler | None = None,
        **overrides: Any,
    ) -> ReActResult | str:
        """Run ``query`` to its end. ``overrides`` are AgentConfig fields for this run only.
        When the model asks the user a question, ``on_clarification(question)`` answers it; without
        a handler the run pauses and the result has reason 'clarification' (answer with ``resume``)."""
        return self._drive({"query": query}, thread_id, on_clarification, overrides)

    def resume(
        self,
        thread_id: str,
        answer: str | None = None,
        *,
        on_clarification: ClarificationHandler | None = None,
        **overrides: Any,
    ) -> ReActResult | str:
        """Continue the run on ``thread_id`` from its last checkpoint (after a crash or a pause);
        ``answer`` answers a pending clarification question."""
        payload = Command(resume=answer) if answer is not None else None
        return self._drive(payload, thread_id, on_clarification, overrides)

    async def arun(
        self,
        query: str,
        *,
        thread_id: str | None = None,
        on_clarification: ClarificationHandler | None = None,
        **overrides: Any,
    ) -> ReActResult | str:
        """Async ``run``."""
        context, config, thread_id = self._prepare(thread_id, overrides)
        payload: Any = {"query": query}
        while True:
            await self.graph.ainvoke(payload, config, context=context)
            result = self._result(thread_id, (await self.graph.aget_state(config)))
            if result.termination_reason is TerminationReason.CLARIFICATION and on_clarification:
                payload = Command(resume=on_clarification(result.termination_detail))
                continue
            return self._output(result, context)

    def stream(self, query: str, *, thread_id: str | None = None, **overrides: Any) -> Iterator[ReActStep | ReActResult]:
        """Yield each ReActStep as it completes, then the ReActResult."""
        context, config, thread_id = self._prepare(thread_id, overrides)
        for chunk in self.graph.stream({"query": query}, config, context=context, stream_mode="updates"):
            for step in (chunk.get("observe") or {}).get("steps") or []:
                yield ReActStep.model_validate(step)
        yield self._result(thread_id, self.graph.get_state(config))

    async def astream(self, query: str, *, thread_id: str | None = None, **overrides: Any) -> AsyncIterator[ReActStep | ReActResult]:
        """Async ``stream``."""
        context, config, thread_id = self._prepare(thread_id, overrides)
        async for chunk in self.graph.astream({"query": query}, config, context=context, stream_mode="updates"):
            for step in (chunk.get("observe") or {}).get("steps") or []:
                yield ReActStep.model_validate(step)
        yield self._result(thread_id, await self.graph.aget_state(config))

    def cancel(self, thread_id: str | None = None) -> None:
        """Stop the run on ``thread_id`` (every running run, when None) after its current step."""
        self._deps.request_cancel(thread_id)

    # -- inspecting ------------------------------------------------------------------------

    def get_result(self, thread_id: str | None = None) -> ReActResult:
        """The result of the run on ``thread_id`` (default: the last run), from its checkpoint."""
        thread_id = self._thread(thread_id)
        return self._result(thread_id, self.graph.get_state({"configurable": {"thread_id": thread_id}}))

    def get_trace(self, thread_id: str | None = None) -> ReActTrace:
        """The trace of the run on ``thread_id`` (default: the last run)."""
        return self.get_result(thread_id).trace

    def get_current_scratchpad(self, thread_id: str | None = None) -> str:
        """The Thought / Action / Observation text of the run so far."""
        return self.get_trace(thread_id).scratchpad()

    # -- internals -------------------------------------------------------------------------

    def _drive(self, payload: Any, thread_id: str | None, handler: ClarificationHandler | None, overrides: dict) -> Any:
        context, config, thread_id = self._prepare(thread_id, overrides)
        while True:
            self.graph.invoke(payload, config, context=context)
            result = self._result(thread_id, self.graph.get_state(config))
            if result.termination_reason is TerminationReason.CLARIFICATION and handler:
                payload = Command(resume=handler(result.termination_detail))
                continue
            return self._output(result, context)

    def _prepare(self, thread_id: str | None, overrides: dict[str, Any]) -> tuple[AgentConfig | None, dict, str]:
        """Validate overrides, check the model is reachable, and build the run's LangGraph config."""
        context = make_config(**overrides) if overrides else None
        effective = self.config.merge(context)
        if self._deps.model is None or effective.model != self.config.model:
            self._preflight(effective.model)
        thread_id = thread_id or uuid.uuid4().hex
        self._deps.clear_cancel(thread_id)
        self._last_thread = thread_id
        config = {
            "configurable": {"thread_id": thread_id},
            "max_concurrency": effective.max_parallel_tools,
            "recursion_limit": 4 * effective.max_iterations + 10,
        }
        return context, config, thread_id

    def _preflight(self, model: str) -> None:
        """Report an unreachable Ollama or a model not pulled once, before the first call."""
        if model.startswith("ollama:") and model not in self._checked_models:
            check_ollama(model.removeprefix("ollama:"))
            self._checked_models.add(model)

    def _thread(self, thread_id: str | None) -> str:
        if thread_id := thread_id or self._last_thread:
            return thread_id
        raise ValueError("no run yet: pass a thread_id")

    @staticmethod
    def _result(thread_id: str, snapshot: Any) -> ReActResult:
        question = next((i.value.get("question") for i in snapshot.interrupts if isinstance(i.value, dict)), None)
        return result_from_state(snapshot.values, thread_id=thread_id, interrupt_question=question)

    def _output(self, result: ReActResult, context: AgentConfig | None) -> ReActResult | str:
        mode = self.config.merge(context).output_mode
        return (result.final_answer or "") if mode == "simple" else result
