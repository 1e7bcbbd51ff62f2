"""The playbook in a run: the block think shows, and what terminate learns. Both use the graph's
store (``get_store()``: the agent's, or the server's under ``langgraph dev``). A store that fails
(locked, unreachable) costs the run its playbook, never the run: it is logged and the run goes on."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.config import get_store

from reactgraph.config import AgentConfig, ConfigError
from reactgraph.graph.deps import NodeDeps
from reactgraph.playbook.book import Playbook
from reactgraph.playbook.reflector import lesson_prompt, read_lesson, reflect_state

log = logging.getLogger(__name__)


def run_playbook(deps: NodeDeps, cfg: AgentConfig) -> Playbook:
    """The run's playbook, in the graph's store (ConfigError naming the fix when the graph has none)."""
    store = get_store()
    if store is None:
        raise ConfigError(
            "playbook=True needs a store: ReActAgent(playbook=True) opens one beside the checkpoints; "
            "build_graph(..., store=...) or langgraph dev give the graph theirs"
        )
    return Playbook(store, cfg.learning.playbook_name, lessons=deps.lessons)


def shown_block(deps: NodeDeps, cfg: AgentConfig, question: str, tools: list[str]) -> dict[str, Any] | None:
    """``{"block", "bullets"}`` for a new run's prompt, or None with the playbook off. The block per
    question is cached until the playbook's version changes (then the whole cache is dropped)."""
    if not cfg.learning.playbook:
        return None
    book = run_playbook(deps, cfg)
    key = (cfg.learning.playbook_name, question, tuple(sorted(tools)), cfg.learning.playbook_top_k, cfg.learning.playbook_max_tokens)
    try:
        version = book.version()
        if any(seen != version for seen, _, _ in deps.playbook_cache.values()):
            deps.playbook_cache.clear()  # the playbook changed: every block read before is stale
        if (cached := deps.playbook_cache.get(key)) is None:
            text, ids = book.prompt_block(question, cfg.learning.playbook_top_k, cfg.learning.playbook_max_tokens, tools)
            deps.playbook_cache[key] = cached = (version, text, ids)
    except Exception as exc:  # noqa: BLE001 - the store's errors are the driver's (sqlite3, psycopg, ...)
        log.warning("playbook %r not read, the run goes on without it: %s", cfg.learning.playbook_name, exc)
        return {"block": "", "bullets": []}
    return {"block": cached[1], "bullets": cached[2]}


def learn(deps: NodeDeps, cfg: AgentConfig, finished: dict[str, Any], thread_id: str | None) -> None:
    """Merges what the finished run teaches into the playbook; with ``playbook_lessons`` a model-written
    lesson follows in the background."""
    if not cfg.learning.playbook:
        return
    book = run_playbook(deps, cfg)
    source = f"{thread_id}@{finished.get('started_at', 0.0):.6f}"
    try:
        book.learn(finished, source)
    except Exception as exc:  # noqa: BLE001 - as above
        log.warning("playbook %r not updated from run %s: %s", cfg.learning.playbook_name, source, exc)
        return
    if cfg.learning.playbook_lessons:
        deps.lessons.submit(write_lesson, deps, cfg, book, finished, source)


def write_lesson(deps: NodeDeps, cfg: AgentConfig, book: Playbook, finished: dict[str, Any], source: str) -> None:
    """One model call for the run's lesson in words, merged as a bullet."""
    question, steps, reason, _, iterations = reflect_state(finished)
    try:
        reply = deps.chat_model(cfg).invoke(lesson_prompt(question, steps, reason))
        if bullet := read_lesson(reply.text, question, steps, reason, iterations, source):
            book.merge([bullet])
    except Exception as exc:  # noqa: BLE001 - a lesson is optional: the model or the store may fail
        log.warning("playbook lesson for run %s not written: %s", source, exc)
