"""A run prepared before it starts: its options merged over the agent's and checked, its model resolved and
checked once, its LangGraph config built; the thread it names checked (a run to continue, one that waits)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import merge_configs

from reactgraph.agent._parts import AgentParts
from reactgraph.answers.result import ReActResult
from reactgraph.answers.waiting import waiting_error
from reactgraph.config import AgentConfig, ConfigError, make_config
from reactgraph.graph.checks import resolved_checks
from reactgraph.graph.middleware import hook_nodes
from reactgraph.graph.runtime import user_context
from reactgraph.graph.stops import recursion_limit
from reactgraph.models.resolve import check_model, default_model
from reactgraph.persistence.base import RunNotFoundError
from reactgraph.persistence.reading import thread_config
from reactgraph.state import checked_thread_id

RUN_OVERRIDES = "reactgraph_overrides"  # checkpoint metadata key: a run's explicit AgentConfig overrides, as JSON
Question = str | BaseMessage | dict[str, Any] | list[Any]  # a string, a human message, or content blocks (state.run_input)


class Preparing(AgentParts):
    """What every way to run does before the graph runs (``_prepare``), and the checks of the thread it names."""

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

