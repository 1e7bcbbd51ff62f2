"""summarize: fold the steps since the last summary into the running summary (one model call); at the start
of a turn whose conversation has gathered more earlier turns than it shows, fold those turns into the
conversation's notes instead (``graph.conversation``; the edge from the start comes here only then).

Also here: ``condense_observation``, which observe uses with ``summarize_observations=True``
to have the model shorten a long observation instead of truncating it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.graph._scratchpad import steps_text
from reactgraph.graph.conversation import NOTES_BOUND, fold_due, fold_prompt, folded_as_text, notes_of, quoted, to_fold
from reactgraph.graph.deps import NodeDeps
from reactgraph.models.tokens import count_tokens, usage_of
from reactgraph.state import ReActState, TokenCount, Turn, add_usage, current_turn, iteration_of, summarized_through

OBSERVATION_PROMPT = """An agent answering a question called the tool {tool!r}, which returned a long result.
Rewrite the result in at most {words} words. Keep every fact that could help answer the question \
(names, numbers, dates, errors) and drop the rest. Reply with the shortened result only.

Question: {question}

Result:
{content}"""


def make_summarize(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
    def summarize(state: ReActState) -> dict[str, Any]:
        """Reads the old summary and the steps since it; writes the new summary and, in the turn's record, how far
        it reaches and the call (ahead of the next turn, its tokens counted).
        The summary is cut head-and-tail to ``max_observation_tokens`` twice over (``conversation.notes_of``),
        whether the model wrote it or, when the model call fails or its reply is empty, it is the new steps appended
        as text: every later prompt stays bounded; the trace keeps the steps whole."""
        cfg = deps.run_config()
        if fold_due(state, cfg):
            return folded_turns(deps, state, cfg)
        through = summarized_through(state)
        new_steps = [s for s in state.get("steps") or [] if s["iteration"] > through]
        old = state.get("summary") or ""
        notes = prompts.SUMMARY_NOTES.format(summary=quoted(old, NOTES_BOUND * cfg.prompt.max_observation_tokens)) if old else ""
        question = state.get("question", "")
        shown = steps_text(new_steps, cfg.prompt.max_observation_tokens)
        prompt = [HumanMessage(content=prompts.SUMMARIZE_PROMPT.format(question=question, notes=notes, steps=shown))]
        turn = current_turn(state) | {"summarized_through": iteration_of(state)}
        deadline, cancelled = deps.run_bounds(state, cfg)
        try:
            reply = deps.bounded_call(cfg, prompt, deadline=deadline, cancelled=cancelled)
        except Exception as exc:
            text = _as_text(old, f"(summary call failed: {type(exc).__name__}: {exc})", new_steps, cfg)
            return {"current_turn": turn, "summary": text}
        summary = notes_of(reply.text.strip(), cfg) or _as_text(old, "", new_steps, cfg)
        usage = usage_of(reply, prompt)
        return {"current_turn": ahead_of_turn(turn, "summarize", usage, count=True), "summary": summary}

    return summarize


def folded_turns(deps: NodeDeps, state: ReActState, cfg: AgentConfig) -> dict[str, Any]:
    """The conversation's notes with its oldest unfolded turns folded in (one model call, made for the turn about
    to start, which counts it: think carries the call); the turns as text when the call fails or says nothing."""
    turns = to_fold(state, cfg)
    prompt = [HumanMessage(content=fold_prompt(state, turns, cfg))]
    update: dict[str, Any] = {"folded_turns": state.get("folded_turns", 0) + len(turns)}
    deadline, cancelled = deps.run_bounds({"started_at": time.time()}, cfg)  # the new turn's budget starts now
    try:
        reply = deps.bounded_call(cfg, prompt, deadline=deadline, cancelled=cancelled)
    except Exception:
        return update | {"conversation_summary": folded_as_text(state, turns, cfg)}
    notes = notes_of(reply.text.strip(), cfg) or folded_as_text(state, turns, cfg)
    turn = ahead_of_turn(current_turn(state), "conversation", usage_of(reply, prompt), count=False)
    return update | {"conversation_summary": notes, "current_turn": turn}


def ahead_of_turn(turn: Turn, purpose: str, usage: TokenCount, *, count: bool) -> Turn:
    """``turn`` with a model call made for the next turn (think makes it that turn's first call); ``count``: its
    tokens added to the run's (a new run's count starts with it instead: the conversation's fold)."""
    ahead = [*turn.get("ahead", []), {"purpose": purpose, "token_usage": usage}]
    return turn | {"ahead": ahead} | ({"tokens": add_usage(turn.get("tokens"), usage)} if count else {})


def _as_text(old: str, note: str, steps: list[dict[str, Any]], cfg: AgentConfig) -> str:
    """The summary without the model: the old one, a note, and the steps as text, bounded."""
    return notes_of("\n".join(filter(None, [old, note, steps_text(steps, cfg.prompt.max_observation_tokens)])), cfg)


def condense_observation(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, *, tool: str, content: str
) -> tuple[str | None, TokenCount | None]:
    """(summary, usage) of a long observation, written by the model and marked as a summary.
    The summary is None when the call fails (or is cut by the run's time budget or a cancel) or its
    reply does not fit ``max_observation_tokens`` either; the caller then truncates."""
    words = cfg.prompt.max_observation_tokens * 3 // 5
    question = state.get("question", "")
    prompt = [HumanMessage(content=OBSERVATION_PROMPT.format(tool=tool, words=words, question=question, content=content))]
    deadline, cancelled = deps.run_bounds(state, cfg)
    try:
        reply = deps.bounded_call(cfg, prompt, deadline=deadline, cancelled=cancelled)
    except Exception:
        return None, None
    summary = reply.text.strip()
    fits = 0 < count_tokens(summary) <= cfg.prompt.max_observation_tokens
    return (f"[model summary of a {len(content)}-character result]\n{summary}" if fits else None), usage_of(reply, prompt)
