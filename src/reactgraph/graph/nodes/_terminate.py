"""terminate: settle why the run ended and its answer; when a limit or a run of unreadable replies
cut it short, ask once for a partial answer (with an output schema, typed only when it fits)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Overwrite

from reactgraph import prompts
from reactgraph.answers.closing import closing_text
from reactgraph.answers.confidence import confidence_of, read_estimate
from reactgraph.answers.non_answers import announced_call, non_answer
from reactgraph.answers.result import ReActStep
from reactgraph.answers.typed import answer_shape, read_answer
from reactgraph.config import AgentConfig
from reactgraph.graph._learning import learn
from reactgraph.graph._scratchpad import not_answers, status_text, think_messages
from reactgraph.graph.conversation import turn_record
from reactgraph.graph.deps import NodeDeps, current_thread
from reactgraph.graph.stops import Observed, stop_reason
from reactgraph.models.tokens import usage_of
from reactgraph.state import (
    LIMIT_REASONS,
    ReActState,
    Termination,
    TerminationReason,
    TokenCount,
    add_usage,
    current_turn,
    iteration_of,
    stopped,
    sum_usage,
    tokens_used,
    tool_stats,
)
from reactgraph.tool_calling import Format, ReadContext, Tags, prepare, starting_format
from reactgraph.tools.breaker import disabled_tools
from reactgraph.tools.specs import tool_specs

PARTIAL_ANSWER_GRACE = 0.5  # seconds the partial-answer call may run past the time budget


def partial_answer(reply: AIMessage, fmt: Format, ctx: ReadContext) -> tuple[str | None, str]:
    """(the reply read as an answer in the run's format, ""), or (None, why there is none: it asked for a tool
    instead, or said nothing)."""
    parsed = fmt.read(reply, ctx)
    if parsed.answer is not None:
        return parsed.answer, ""
    if called := [action["tool"] for action in parsed.actions if action["tool"]]:
        return None, f"the reply called {called[0]} instead"
    return parsed.thought or None, "" if parsed.thought else "the reply was empty"


def cut_short(state: ReActState, termination: Termination, cfg: AgentConfig) -> bool:
    """A limit stopped the run, or its replies could not be read (max_parse_retries): its answer is partial."""
    if TerminationReason(termination["reason"]) in LIMIT_REASONS:
        return True
    unreadable = state.get("parse_failures", 0) >= cfg.limits.max_parse_retries
    return termination["reason"] == TerminationReason.FAILURE and unreadable and not state.get("final_answer")


def turn_open(state: ReActState) -> bool:
    """True when the current turn has no step yet: think ended the run."""
    steps = state.get("steps") or []
    return iteration_of(state) > (steps[-1]["iteration"] if steps else 0)


def own_thought(thought: str, answer: str | None, phrases: tuple[str, ...]) -> str:
    """The final turn's thought without the answer it ends with (and the answer's tag): a reply that
    is all answer has no thought of its own."""
    text, answer = thought.strip(), (answer or "").strip()
    if not answer or not text.endswith(answer):
        return text
    text = text[: len(text) - len(answer)].rstrip()
    tag = next((p for p in phrases if text.lower().endswith(p.lower())), "")
    return text[: len(text) - len(tag)].rstrip()


def closing_step(
    state: ReActState, final: bool, calls: list[dict[str, Any]], now: float, phrases: tuple[str, ...]
) -> ReActStep | None:
    """The run's last step: the turn that ended it (``final``, see ``turn_open``), else the
    partial-answer call (kind ``partial_answer``), else the middleware hooks that ended the run before its
    model call (kind ``final``), else None."""
    turn = current_turn(state)
    hooks = state.get("hooks") or []
    if not final and not calls and not hooks:
        return None
    ended: dict[str, Any] = {}
    if final:
        ended = {
            "thought": own_thought(turn.get("thought", ""), state.get("final_answer"), phrases),
            "duration": now - turn.get("started", now), "format": turn.get("format"), "written": turn.get("written"),
            "checks": turn.get("checks") or [], "left_out": turn.get("left_out") or [],
        }
    return ReActStep(
        iteration=iteration_of(state),
        kind="final" if final or not calls else "partial_answer",
        timestamp=now,
        token_usage=sum_usage(call["token_usage"] for call in calls),
        calls=calls,
        hooks=hooks,
        **ended,
    )


def own_estimate(state: ReActState, answer: str | None, final: bool, cfg: AgentConfig) -> tuple[str | None, float | None]:
    """(the answer without its ``Confidence:`` line, the model's estimate) when ``ask_confidence`` is
    on; a text-format reply may give the line before its answer, in the final turn's thought."""
    if not cfg.checks.ask_confidence or not answer:
        return answer, None
    answer, estimate = read_estimate(answer)
    if estimate is None and final:
        _, estimate = read_estimate(current_turn(state).get("thought", ""))
    return answer, estimate


def make_terminate(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
    def terminate(state: ReActState) -> dict[str, Any]:
        """Reads the termination (recorded by think or observe); writes the final answer (a partial
        one from one last tool-less model call when the run was cut short), the closing step (the
        turn that ended the run, or the partial-answer call), the end time, the answer as a chat
        message, its confidence with the signals behind it (``reactgraph.answers.confidence``), the turn
        as the conversation keeps it (``graph.conversation.turn_record``) and, when the last turn's record is on
        its AI message, that record in ``current_turn`` (the answer's message comes after it). With the playbook
        on, what the run teaches is merged into it before the node returns."""
        cfg = deps.run_config()
        now = time.time()
        # recorded by think or observe; a run checkpointed before stops were recorded, or a state edited
        # by hand (Studio, update_state), may reach terminate without one: find it the old way
        termination: Termination | None = state.get("termination") or stop_reason(Observed(**state), cfg, now)
        if termination is None:
            termination = stopped(TerminationReason.FAILURE, "the run stopped without a recorded reason")
        update: dict[str, Any] = {"termination": termination, "finished_at": now, "token_usage": tokens_used(state)}
        if (record := current_turn(state)) != (state.get("current_turn") or {}):
            update["current_turn"] = record
        answer = state.get("final_answer")
        final = turn_open(state)
        calls = list(current_turn(state).get("calls", [])) if final else []  # observe already put the turn's calls on its step
        if cut_short(state, termination, cfg):
            update["partial"] = True
            if cfg.limits.early_stopping == "generate":
                answer, extra, used = ask_for_partial_answer(deps, state, cfg, termination, now)
                update |= extra
                if used is not None:
                    calls.append({"purpose": "partial_answer", "token_usage": used})
                    update["token_usage"] = add_usage(update["token_usage"], used)
        if step := closing_step(state, final, calls, now, cfg.text_format.success_phrases):
            update["steps"] = [step.record()]
            update["hooks"] = Overwrite([])
        answer, estimate = own_estimate(state, answer, final, cfg)
        update["final_answer"] = answer
        # every turn closes with an AI message: the answer, or why the turn stopped and what it found
        closing = closing_text(answer, update["termination"], update.get("partial", False), state.get("steps") or [])
        update["messages"] = [AIMessage(content=closing)]
        finished = {**state, "termination": update["termination"], "partial": update.get("partial", False), "final_answer": answer}
        confidence = confidence_of(finished, estimate).as_state()
        ended = finished | confidence | {
            "steps": [*(state.get("steps") or []), *update.get("steps", [])],
            "finished_at": now,
            "output": update.get("output", state.get("output")),
            "token_usage": update["token_usage"],
        }
        learn(deps, cfg, ended, current_thread())
        turn = state.get("turn") or len(state.get("turns") or []) + 1  # a run checkpointed before turns were kept
        return update | confidence | {"turns": [turn_record(cast(ReActState, ended), turn)]}

    return terminate


def ask_for_partial_answer(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, termination: Termination, now: float
) -> tuple[str | None, dict[str, Any], TokenCount | None]:
    """(the partial answer or None, state updates, the call's usage: None when it failed) from one tool-less call
    on the run as think showed it. The call may take ``limits.partial_answer_timeout_seconds``, and never runs past a time budget by more than
    ``PARTIAL_ANSWER_GRACE``; a reply that is no answer gives None, with the reason in the termination's detail. With an output schema, an answer
    that fits it is also the run's ``output``."""
    model = deps.chat_model(cfg)
    tools = deps.offered_tools(cfg, disabled_tools(tool_stats(state).get("failures"), cfg))
    name = state.get("tool_format") or starting_format(cfg.tool_calling, deps.learned_format(model))
    _, fmt, ctx = prepare(model, tools, tool_specs(tools), Tags.from_config(cfg), name, cfg.tool_calling)
    iteration = iteration_of(state)
    shape = answer_shape(deps.output_schema) if deps.output_schema else ""
    question = state.get("question", "")
    messages = think_messages(
        state, cfg, question=question, iteration=iteration, now=now, fmt=fmt, ctx=ctx, answer_shape=shape
    ) + [HumanMessage(content=prompts.PARTIAL_ANSWER_PROMPT.format(detail=termination["detail"]) + fmt.answer_now(ctx))]
    run_deadline, cancelled = deps.run_bounds(state, cfg)
    deadline = None  # the time budget bounds this call too: the run ends within budget + 1 s
    if run_deadline is not None:
        deadline = min(now + cfg.limits.partial_answer_timeout_seconds, max(run_deadline, now) + PARTIAL_ANSWER_GRACE)
    try:
        reply = deps.bounded_call(cfg, messages, deadline=deadline, cancelled=cancelled)
    except Exception as exc:
        detail = f"{termination['detail']}; the partial-answer call failed: {type(exc).__name__}: {exc}"
        return None, {"termination": {**termination, "detail": detail}}, None
    used = usage_of(reply, messages)
    update: dict[str, Any] = {}
    answer, missing = partial_answer(reply, fmt, ctx)
    if answer is None:
        update["termination"] = {**termination, "detail": f"{termination['detail']}; no partial answer: {missing}"}
        return None, update, used
    status = status_text(state, cfg, now, iteration)
    shown = [*not_answers(state, cfg, fmt, ctx, status), ("the request for it", str(messages[-1].content))]
    if problem := non_answer(answer, shown) or announced_call(answer, [s.name for s in ctx.tools]):
        update["termination"] = {**termination, "detail": f"{termination['detail']}; no partial answer: {problem.lower()}"}
        return None, update, used
    if deps.output_schema is not None and (value := read_answer(answer, deps.output_schema)[0]):
        update["output"] = value.model_dump(mode="json")
    return answer, update, used
