"""What the nodes share at run time: the agent's config, model, tool registry, output schema, middleware, cancel
requests, the tool-calling format learnt for each model (``tool_calling="auto"``), and what a turn would otherwise
rebuild every time (the run's merged config, the tools' specs, a model bound for a format)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.config import get_config
from langgraph.runtime import get_runtime
from pydantic import BaseModel, Field

from reactgraph.config import AgentConfig
from reactgraph.graph.runtime import split_context
from reactgraph.models.calls import call_with_fallbacks, invoke_within, model_label
from reactgraph.models.resolve import PROVIDERS, default_model, model_spec, resolve_model
from reactgraph.playbook.book import LessonWriter
from reactgraph.tool_calling import Format, ReadContext, Tags, prepare
from reactgraph.tools.registry import ToolRegistry
from reactgraph.tools.specs import ToolSpec, tool_specs

T = TypeVar("T")
ASK_USER = "ask_user"
CANCEL_POLL_SECONDS = 1.0  # how often a call in flight looks for a cancel stored in the database
MEMO_SIZE = 64  # entries each of NodeDeps' memos keeps (specs, bound models) before it starts afresh


class CancelBoard(Protocol):
    """Cancel requests stored where another process can make them (``reactgraph.persistence.base.RunStore``)."""

    def cancel_requested(self, thread_id: str | None, started_at: float) -> bool: ...


class AskUser(BaseModel):
    """Ask the user a clarifying question when the task is ambiguous and only they can decide. The run pauses until they answer."""

    question: str = Field(description="The question for the user.")


ASK_USER_TOOL = convert_to_openai_tool(AskUser)
ASK_USER_TOOL["function"]["name"] = ASK_USER

# The cancel check of the run that called this one as a sub-agent (``subagents.delegate``): a cancel of
# the parent stops the child. LangGraph runs each node in a copy of the caller's context, so the
# child's nodes see it.
_OUTER_CANCEL: ContextVar[Callable[[], bool] | None] = ContextVar("reactgraph_outer_cancel", default=None)


def current_thread() -> str | None:
    """The thread id of the run whose node calls this (None for a run without a thread)."""
    return get_config().get("configurable", {}).get("thread_id")


@contextmanager
def outer_cancel(check: Callable[[], bool]) -> Iterator[None]:
    """Runs started inside the block (a sub-agent's) count as cancelled when ``check()`` says so."""
    token = _OUTER_CANCEL.set(check)
    try:
        yield
    finally:
        _OUTER_CANCEL.reset(token)


@dataclass
class NodeDeps:
    """What every node of one agent's graph is built with (``make_think(deps)`` ...), bound by build_graph:
    the agent's own config, model, tools and output schema, and its in-process bookkeeping. Not a run's
    data (that is the state) and never checkpointed."""

    config: AgentConfig
    registry: ToolRegistry
    model: BaseChatModel | None = None
    output_schema: type[BaseModel] | None = None  # the final answer's type (ReActAgent(output_schema=...))
    cancels: CancelBoard | None = None  # cancel requests in the agent's database (from any process)
    middleware: tuple[AgentMiddleware, ...] = ()  # LangChain middleware, checked (graph.middleware.checked)
    context_schema: type | None = None  # the type of the user's context (ReActAgent(context_schema=...)): graph.runtime
    state_schema: type | None = None  # fields the user adds to the state (ReActAgent(state_schema=...))
    own_checks: dict[str, Callable[..., Any]] = field(default_factory=dict)  # the agent's own reply checks, by name
    _models: dict[tuple[Any, ...], BaseChatModel] = field(default_factory=dict)
    _cancelled: set[str] = field(default_factory=set)
    _cancel_all_before: float = float("-inf")
    _formats: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    lessons: LessonWriter = field(default_factory=LessonWriter)  # model-written playbook lessons in the background
    playbook_cache: dict[tuple[Any, ...], tuple[str, str, list[str]]] = field(default_factory=dict)  # learning.shown_block
    _merged: tuple[AgentConfig, Any, AgentConfig, Any] | None = None  # (agent's config, run context, merged, user's)
    _default: tuple[str, str] | None = None  # (the default model, the one the machine has for it): model_name
    _specs: dict[tuple[int, ...], tuple[list[Any], tuple[ToolSpec, ...]]] = field(default_factory=dict)
    _bound: dict[tuple[Any, ...], tuple[BaseChatModel, list[Any], tuple[Runnable, Format, ReadContext]]] = field(default_factory=dict)

    def run_config(self) -> AgentConfig:
        """The effective config of the current run: run context over agent config over defaults (the
        agent's alone where no run is going on, as when ``update_state`` routes an edited state). Every node
        of a step asks: a run's context (frozen) is read once (``graph.runtime.split_context``)."""
        return self._context()[0]

    def user_context(self) -> Any:
        """The user's context of the current run (``run(..., context=...)``, the served run's fields of
        ``context_schema``), or None: what its tools and middleware see as ``runtime.context``."""
        return self._context()[1]

    def _context(self) -> tuple[AgentConfig, Any]:
        runtime = get_runtime()
        context: Any = runtime.context if runtime is not None else None
        if context is None:
            return self.config, None
        merged = self._merged
        if merged is not None and merged[0] is self.config and merged[1] is context:
            return merged[2], merged[3]
        own, user = split_context(context, self.context_schema)
        found = (self.config, context, self.config.merge(own), user)
        if not isinstance(context, dict):  # a dict may change in place: read anew
            self._merged = found
        return found[2], found[3]

    def chat_model(self, cfg: AgentConfig) -> BaseChatModel:
        """The agent's model instance, unless the run asks for another model by name."""
        if self.model is not None and cfg.model == self.config.model:
            return self.model
        return self._by_name(self.model_name(cfg), cfg)

    def model_name(self, cfg: AgentConfig) -> str:
        """The run's model by name: the one the run or the agent named; when neither named one (and there are no
        fallbacks), the default the machine has (``models.resolve.default_model``: a pulled model that calls tools
        when the default is not pulled), found once: every path (``run``, ``agent.graph``, the served graph) gets the
        same. ModelUnavailableError, saying what to do, when there is none."""
        if "model" in cfg.model_fields_set or cfg.model_settings.fallback_models:
            return cfg.model
        with self._lock:
            if self._default is None or self._default[0] != cfg.model:
                self._default = (cfg.model, default_model(cfg.model))
            return self._default[1]

    def candidates(self, cfg: AgentConfig) -> list[BaseChatModel]:
        """The run's model, then its ``fallback_models``."""
        return [self.chat_model(cfg), *(self._by_name(name, cfg) for name in cfg.model_settings.fallback_models)]

    def call_model(self, cfg: AgentConfig, attempt: Callable[[BaseChatModel], T], *, deadline: float | None = None) -> T:
        """``attempt(model)`` with retries on the run's model, then on each fallback model in turn
        (no retry after ``deadline``)."""
        return call_with_fallbacks(self.candidates(cfg), attempt, cfg, deadline=deadline)

    def bounded_call(
        self, cfg: AgentConfig, messages: Sequence[BaseMessage], *, deadline: float | None, cancelled: Callable[[], bool]
    ) -> AIMessage:
        """One model call without tools on ``messages`` (the run's model, then its fallbacks), cut at
        ``deadline`` or when ``cancelled()`` says so (``models.calls.invoke_within``)."""
        return self.call_model(
            cfg, lambda model: invoke_within(model, messages, deadline=deadline, cancelled=cancelled), deadline=deadline
        )

    def run_bounds(self, state: Mapping[str, Any], cfg: AgentConfig) -> tuple[float | None, Callable[[], bool]]:
        """(deadline, cancel check) of the run in ``state`` (of the current thread), for a call made on its behalf."""
        started = state.get("started_at") or time.time()
        return cfg.limits.deadline(started), self.cancel_check(current_thread(), started)

    def learned_format(self, model: BaseChatModel) -> str | None:
        """The tool-calling format an earlier run found for ``model`` (auto), if any."""
        with self._lock:
            return self._formats.get(model_label(model))

    def learn_format(self, model: BaseChatModel, name: str) -> None:
        """Remember that ``model`` works in format ``name``: the agent's later runs start there."""
        with self._lock:
            self._formats[model_label(model)] = name

    def _by_name(self, name: str, cfg: AgentConfig) -> BaseChatModel:
        """A model made from its name with the run's model settings, once per distinct settings."""
        key = (name, cfg.model_settings.ollama_num_ctx, cfg.model_settings.max_output_tokens, cfg.model_settings.temperature, cfg.model_settings.ollama_keep_alive)
        with self._lock:
            if key not in self._models:  # a bare name Ollama has is Ollama's ('qwen2.5-coder:1.5b')
                spec = name if name.partition(":")[0] in PROVIDERS else model_spec(name)
                self._models[key] = resolve_model(spec, cfg)
            return self._models[key]

    def offered_tools(self, cfg: AgentConfig, disabled: set[str]) -> list[Any]:
        """Tools bound to the model this turn: the run's selection, minus disabled ones, plus ask_user."""
        tools: list[Any] = [self.registry[n].tool for n in self.registry.select(cfg.tools) if n not in disabled]
        if cfg.allow_clarification:
            tools.append(ASK_USER_TOOL)
        return tools

    def specs(self, tools: list[Any]) -> tuple[ToolSpec, ...]:
        """``tool_specs(tools)``, made once for the same tool objects (each turn offers the same ones)."""
        key = tuple(map(id, tools))
        with self._lock:
            hit = self._specs.get(key)
        if hit is not None:
            return hit[1]
        specs = tool_specs(tools)
        self._remember(self._specs, key, (list(tools), specs))  # the tools kept: their ids stay theirs
        return specs

    def prepared(
        self, model: BaseChatModel, tools: list[Any], specs: tuple[ToolSpec, ...], tags: Tags, name: str, tool_calling: str
    ) -> tuple[Runnable, Format, ReadContext]:
        """``tool_calling.prepare``: the model bound for format ``name``, once for the same model, tools and tags."""
        key = (id(model), tuple(map(id, tools)), tags, name, tool_calling)
        with self._lock:
            hit = self._bound.get(key)
        if hit is not None:
            return hit[2]
        made = prepare(model, tools, specs, tags, name, tool_calling)
        self._remember(self._bound, key, (model, list(tools), made))
        return made

    def _remember(self, memo: dict[Any, Any], key: Any, value: Any) -> None:
        with self._lock:
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[key] = value

    def request_cancel(self, thread_id: str | None = None) -> None:
        """Ask the run on ``thread_id`` to stop at its next step; None: every run started before now."""
        with self._lock:
            if thread_id is None:
                self._cancel_all_before = time.time()
            else:
                self._cancelled.add(thread_id)

    def clear_cancel(self, thread_id: str) -> None:
        """A new run on ``thread_id`` starts uncancelled (a cancel-all still stops older runs)."""
        with self._lock:
            self._cancelled.discard(thread_id)

    def cancel_check(self, thread_id: str | None, started_at: float) -> Callable[[], bool]:
        """A check that says when the run on ``thread_id`` has been asked to stop (for calls in flight,
        which poll it often: the database is read at most every CANCEL_POLL_SECONDS)."""
        outer = _OUTER_CANCEL.get()
        next_read = [time.monotonic() + CANCEL_POLL_SECONDS]

        def check() -> bool:
            if self._asked(thread_id, started_at) or (outer is not None and outer()):
                return True
            if self.cancels is None or time.monotonic() < next_read[0]:
                return False
            next_read[0] = time.monotonic() + CANCEL_POLL_SECONDS
            return self.cancels.cancel_requested(thread_id, started_at)

        return check

    def is_cancelled(self, thread_id: str | None, started_at: float) -> bool:
        """Whether the run on ``thread_id`` (or the run that called it as a sub-agent) was asked to stop,
        in this process or, through the database, in another (read once per step)."""
        outer = _OUTER_CANCEL.get()
        if self._asked(thread_id, started_at) or (outer is not None and outer()):
            return True
        return self.cancels is not None and self.cancels.cancel_requested(thread_id, started_at)

    def _asked(self, thread_id: str | None, started_at: float) -> bool:
        with self._lock:
            return thread_id in self._cancelled or started_at <= self._cancel_all_before
