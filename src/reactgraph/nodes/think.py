"""think: one model call that yields a thought and tool calls, or the final answer.

The model gets the tools natively (``bind_tools``) or, in the text format, described in the
prompt (``tool_calling``); the call is retried on transient errors and falls back to
``fallback_models``. The reply goes through the parsing chain; an unreadable reply becomes an
error observation, and ``max_parse_retries`` of them in a row end the run with failure."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langgraph.types import Overwrite

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.deps import ASK_USER, Deps
from reactgraph.parsing import (
    ParseContext,
    ParsedReply,
    TextFormat,
    ToolSpec,
    parse_failed,
    parse_reply,
    tool_specs,
)
from reactgraph.scratchpad import think_messages
from reactgraph.state import ReActState, Termination
from reactgraph.tokens import usage_of
from reactgraph.tools.breaker import disabled_message, disabled_tools

DEGENERATE_THOUGHT = re.compile(
    r"^(ok(ay)?[,.]?\s*)?(i('ll| will| am going to| need to| should)|let me|let's|now i will)\s+"
    r"(use|call|run|try|invoke)\s+(the\s+|a\s+)?(\w+\s+)?(tool|function)s?[.!]?$",
    re.IGNORECASE,
)


def last_human(state: ReActState) -> HumanMessage | None:
    return next((m for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage) and m.text.strip()), None)


def question_of(state: ReActState) -> str:
    """The question: ``query`` when given, else the last human message."""
    if query := (state.get("query") or "").strip():
        return query
    message = last_human(state)
    return message.text.strip() if message else ""


def is_new_run(state: ReActState) -> bool:
    """A new run starts on this thread: the first one, a finished one's successor, or new input (a
    ``query``, which a run clears once read, or a human message the run has not seen) that arrives
    while an earlier run is unfinished (paused or crashed)."""
    if state.get("termination") or not state.get("question") or (state.get("query") or "").strip():
        return True
    message = last_human(state)
    return message is not None and message.id != state.get("question_message")


def find_phrase(text: str, phrases: tuple[str, ...]) -> tuple[str, str] | None:
    """(phrase, text after it) for the first phrase found, case-insensitive."""
    lowered = text.lower()
    for phrase in phrases:
        if (at := lowered.find(phrase.lower())) >= 0:
            return phrase, text[at + len(phrase) :].strip()
    return None


def thought_problem(thought: str, cfg: AgentConfig) -> bool:
    """True when require_thought is on and the thought is missing, too short or empty filler."""
    if not cfg.require_thought:
        return False
    text = thought.strip()
    return len(text) < cfg.min_thought_chars or bool(DEGENERATE_THOUGHT.match(text))


def decide(parsed: ParsedReply, cfg: AgentConfig, disabled: set[str]) -> dict[str, Any]:
    """The state update for a parsed reply: a stop (success/failure) or the actions to run."""
    if (hit := find_phrase(parsed.thought, cfg.success_phrases)) is not None and hit[1]:
        return _stop("success", f"the model's reply contains {hit[0]!r}", hit[1])
    if parsed.answer is not None:
        if not parsed.answer:
            return {"pending_actions": [_rejected(0, "empty_reply", prompts.EMPTY_REPLY)]}
        if (hit := find_phrase(parsed.answer, cfg.failure_phrases)) is not None:
            return _stop("failure", f"the model gave up ({hit[0]!r})", parsed.answer)
        return _stop("success", "the model gave a final answer", parsed.answer)
    actions, asked = [], False
    for action in parsed.actions:
        if "rejection" in action:
            pass
        elif action["tool"] == ASK_USER and asked:  # one question at a time: one pause, one answer
            action = {**action, "rejection_kind": "invalid_parameters", "rejection": prompts.ONE_QUESTION}
        elif thought_problem(parsed.thought, cfg):
            action = {**action, "rejection_kind": "missing_thought", "rejection": prompts.THOUGHT_REQUIRED}
        elif action["tool"] in disabled:
            action = {**action, "rejection_kind": "disabled", "rejection": disabled_message(action["tool"], cfg)}
        asked = asked or action["tool"] == ASK_USER
        actions.append(action)
    return {"pending_actions": actions}


def make_think(deps: Deps) -> Callable[[ReActState], dict[str, Any]]:
    def think(state: ReActState) -> dict[str, Any]:
        """Reads question, summary, recent steps, tools, budgets and parse failures so far; writes
        thought, pending actions or the final answer, the call's token usage and parse failures."""
        cfg = deps.run_config()
        now = time.time()
        update: dict[str, Any] = {"outcomes": Overwrite([]), "turn_started": now, "pending_actions": []}
        if is_new_run(state):
            state, fresh = _fresh_run(state, now)
            update |= fresh
        question = state["question"]
        if not question:
            return update | _stop("failure", "no question: send a 'query' or a human message", None)
        iteration = state.get("iteration", 0) + 1
        update["iteration"] = iteration
        disabled = disabled_tools(state.get("tool_failures"), cfg)
        tools = deps.offered_tools(cfg, disabled)
        specs = tool_specs(tools)

        def attempt(model: BaseChatModel) -> tuple[AIMessage, list[BaseMessage], ParseContext | None]:
            bound, text_format = bind_for(model, tools, specs, cfg)
            messages = think_messages(state, cfg, question=question, iteration=iteration, now=now, text_format=text_format)
            return bound.invoke(messages), messages, text_format

        try:
            reply, messages, text_format = deps.call_model(cfg, attempt)
        except Exception as exc:  # the model failed (after retries and fallbacks): a stop, reported as data
            return update | _stop("failure", f"model call failed: {type(exc).__name__}: {exc}", None)
        usage = usage_of(reply, messages)
        parsed = parse_reply(reply, text_format or ParseContext(tools=specs, fmt=TextFormat.from_config(cfg)))
        total = Overwrite(usage) if "token_usage" in update else usage  # a fresh run restarts the count
        decision = decide(parsed, cfg, disabled)
        failures = state.get("parse_failures", 0) + 1 if parse_failed(decision["pending_actions"]) else 0
        if failures >= cfg.max_parse_retries:
            problem = decision["pending_actions"][0]["rejection"].splitlines()[0]
            detail = f"{failures} unreadable model replies in a row (max_parse_retries={cfg.max_parse_retries}); last: {problem}"
            decision = _stop("failure", detail, None)
        return update | {"thought": parsed.thought, "turn_usage": usage, "token_usage": total, "parse_failures": failures} | decision

    return think


def bind_for(
    model: BaseChatModel, tools: list[Any], specs: tuple[ToolSpec, ...], cfg: AgentConfig
) -> tuple[Runnable, ParseContext | None]:
    """The model with the tools bound natively (context None), or with a stop sequence before the
    Observation tag and the text format's context: 'text' always, 'auto' when the model has no tool
    calling, 'native' never (its error is raised)."""
    if not tools:
        return model, None
    if cfg.tool_calling != "text":
        try:
            return model.bind_tools(tools), None
        except NotImplementedError:
            if cfg.tool_calling == "native":
                raise
    fmt = TextFormat.from_config(cfg)
    context = ParseContext(tools=specs, fmt=fmt, text_mode=True)
    if getattr(model, "stop", None):  # the model's own stop sequences (ChatOllama refuses a second set)
        return model, context
    # the model's turn ends where it would start writing the observation itself
    return model.bind(stop=[f"\n{fmt.observation}:"]), context


def _fresh_run(state: ReActState, now: float) -> tuple[ReActState, dict[str, Any]]:
    """A new run on this thread (first run, or a new question after a finished one): reset the run's fields."""
    message = last_human(state)
    fresh: dict[str, Any] = {
        "question": question_of(state),
        "query": None,  # read: a later query on this thread is a new run
        "question_message": message.id if message else None,
        "started_at": now,
        "finished_at": None,
        "iteration": 0,
        "summary": "",
        "summarized_through": 0,
        "stall": {},
        "parse_failures": 0,
        "tool_usage": {},
        "tool_failures": {},
        "callback_stop": None,
        "cancel_requested": False,
        "termination": None,
        "final_answer": None,
        "partial": False,
    }
    if state.get("steps") or state.get("termination"):
        fresh |= {"steps": Overwrite([]), "errors": Overwrite([]), "token_usage": Overwrite({}), "tool_cache": Overwrite({})}
    view = {**state, **{k: v for k, v in fresh.items() if not isinstance(v, Overwrite)}, "steps": [], "token_usage": {}}
    return view, fresh


def _stop(reason: str, detail: str, answer: str | None) -> dict[str, Any]:
    termination: Termination = {"reason": reason, "detail": detail, "limit": None, "observed": None}
    return {"termination": termination, "final_answer": answer, "pending_actions": []}


def _rejected(index: int, kind: str, text: str) -> dict[str, Any]:
    return {"id": f"rejected_{index}", "tool": "", "args": {}, "index": index, "rejection_kind": kind, "rejection": text}
