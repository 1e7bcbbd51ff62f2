"""A run's trace exported as text, JSON or Markdown (``format_trace``), with where the run stands and the conversation's
earlier turns."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from reactgraph.answers.result import ConversationTurn, ReActResult, ReActTrace
from reactgraph.persistence.reading import RunInfo

TraceFormat = Literal["text", "json", "markdown"]


def format_trace(
    result: ReActResult | None, fmt: TraceFormat = "text", earlier: Sequence[ConversationTurn] = (), run: RunInfo | None = None
) -> str:
    """The run's trace as plain text (Thought / Action / Observation), JSON, or Markdown; with ``earlier``
    turns of its thread's conversation, each of them first (JSON: in ``earlier_turns``). With ``run`` (where the run
    stands), a run that has not ended says so instead of a reason: running (its steps so far), interrupted (how to
    continue it), failed (its error), queued; ``result`` is None for a run without a checkpoint yet."""
    ended = run is None or run.status in ("finished", "waiting")
    if fmt == "json":
        data: dict[str, Any] = (
            result.model_dump(mode="json") if result is not None else {"thread_id": _given(run).thread_id, "question": _given(run).question}
        )
        if not ended:
            data["termination_reason"] = None
        data |= {"earlier_turns": [t.model_dump(mode="json") for t in earlier]}
        if run is not None:
            data |= {"status": run.status, "error": run.error}
        return json.dumps(data, indent=2, ensure_ascii=False)
    if fmt == "markdown":
        return _markdown(result, earlier, None if ended else run)
    if fmt == "text":
        turns = [([f"Turn {t.turn}"] if earlier else []) + _text(t.question, t.trace, t.reason.value, t.detail) for t in earlier]
        if result is not None:
            last = ConversationTurn.from_result(result)
            lines = ([f"Turn {last.turn}"] if earlier else []) + _text(last.question, last.trace, last.reason.value, last.detail)
        else:
            lines = [f"Question: {_given(run).question}", ""]
        if run is not None and not ended:
            lines[-1] = standing(run)
        turns.append(lines)
        return "\n\n".join("\n".join(filter(None, lines)) for lines in turns)
    raise ValueError(f"unknown trace format {fmt!r}: use text, json or markdown")


def standing(run: RunInfo) -> str:
    """Where a run that has not ended stands, on one line: ``[running] ...``, ``[interrupted] ...``, ..."""
    return {
        "running": f"[running] {run.iterations} iteration(s) so far; it has not ended",
        "interrupted": f"[interrupted] it stopped before its end; continue it with `reactgraph resume {run.thread_id}`",
        "failed": f"[failed] {run.error or 'an error ended it'}",
        "queued": "[queued] waiting for a worker to take it",
    }[run.status]


def _text(question: str, trace: ReActTrace, reason: str, detail: str) -> list[str]:
    return [f"Question: {question}", trace.scratchpad(), f"[{reason}] {detail}".rstrip()]


def _given(run: RunInfo | None) -> RunInfo:
    """``run``, which a trace without a result needs (ValueError without it)."""
    if run is None:
        raise ValueError("a trace without a result needs the run (run=)")
    return run


def _markdown(result: ReActResult | None, earlier: Sequence[ConversationTurn], run: RunInfo | None = None) -> str:
    """The trace as Markdown; with ``run``, a run that has not ended: its steps so far and where it stands."""
    if result is None:
        run = _given(run)
        return f"# Run {run.thread_id}\n\n**Question:** {run.question}\n\n- status: {standing(run)}\n"
    lines = [f"# Run {result.thread_id}", ""]
    for turn in earlier:
        lines += [f"## Turn {turn.turn}", "", f"**Question:** {turn.question}", "", *_markdown_steps(turn.trace, level=3)]
        lines += [f"**Answer:** {turn.answer if turn.answer is not None else '(none)'} ({turn.reason.value})", ""]
    if earlier:
        lines += [f"## Turn {result.turn}", ""]
    level = 3 if earlier else 2
    lines += [f"**Question:** {result.question or ''}", "", *_markdown_steps(result.trace, level=level)]
    if result.summary:
        lines += [f"{'#' * level} Summary", "", result.summary, ""]
    if run is not None:
        return "\n".join([*lines, f"{'#' * level} Status", "", f"- status: {standing(run)}"]) + "\n"
    lines += [
        f"{'#' * level} Result",
        "",
        f"**Answer:** {result.final_answer if result.final_answer is not None else '(none)'}",
        "",
        f"- reason: {result.termination_reason.value} ({result.termination_detail})",
        f"- iterations: {result.trace.total_iterations}",
        f"- tokens: {result.token_usage.total_tokens}{' (estimated)' if result.token_usage.estimated else ''}",
        *([f"- confidence: {result.confidence:.2f}"] if result.confidence is not None else []),
    ]
    if earlier:
        lines.append(f"- tokens of the {result.turn} turns: {result.thread_token_usage.total_tokens}")
    return "\n".join(lines) + "\n"


def _markdown_steps(trace: ReActTrace, indent: str = "", level: int = 2) -> list[str]:
    """The steps as Markdown headings of ``level``; a sub-agent's steps in a block quote under its call, ``indent`` deeper."""
    lines: list[str] = []
    for step in trace.steps:
        title = "Partial answer" if step.kind == "partial_answer" else f"Iteration {step.iteration}"
        lines += [f"{'#' * (level + len(indent) // 2)} {title}{' (final)' if step.kind == 'final' else ''}", ""]
        if step.thought:
            lines += [f"**Thought:** {step.thought}", ""]
        for action, obs in zip(step.actions, step.observations, strict=False):
            args = json.dumps(action.args, ensure_ascii=False)
            lines += [f"- **{action.tool or '(no tool)'}** `{args}` → {obs.status}", ""]
            if obs.trace is not None:
                lines += [*_markdown_steps(obs.trace, indent + "> ", level), ""]
            lines += ["  ```", *(f"  {line}" for line in obs.content.splitlines() or [""]), "  ```", ""]
    return [f"{indent}{line}".rstrip() for line in lines]
