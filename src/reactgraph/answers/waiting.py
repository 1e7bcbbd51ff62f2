"""A run waiting on a person: what its pending interrupts ask (the model's clarification question,
tool calls to approve) and the resume values that answer them.

Each tool call is its own act task, so several interrupts can wait at once (parallel calls of one
turn). They are answered by interrupt id (LangGraph's ``Command(resume={interrupt_id: value})``);
callers name calls by their tool call id, and answering some of them runs those and leaves the
others waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langgraph.types import Interrupt

from reactgraph.answers.result import PendingApproval
from reactgraph.tools.approval import Approve, Decision, Edit, Reject, is_approval_request, read_decision, to_resume

ClarificationHandler = Callable[[str], str]
ApprovalHandler = Callable[[PendingApproval], "Decision | dict[str, Any]"]


class AnswerError(ValueError):
    """An answer or a decision that does not fit what the run waits for; nothing was run."""


class RunWaitingError(RuntimeError):
    """A new question on a thread whose turn waits for an answer or a decision; nothing was changed."""


def waiting_error(thread_id: str, interrupts: Sequence[Interrupt]) -> RunWaitingError:
    """The error for a new question on ``thread_id`` while its turn waits on ``interrupts``, saying how to go on."""
    if (question := question_of(interrupts)) is not None:
        what = f"an answer to its question {question!r}"
        how = f"resume({thread_id!r}, answer) or `reactgraph resume {thread_id} --answer ...`"
    else:
        calls = ", ".join(f"{p.tool} ({p.call_id})" for p in pending_approvals(interrupts))
        what = f"a decision on the calls waiting for approval: {calls}"
        how = f"resume({thread_id!r}, approval=...) or `reactgraph resume {thread_id} --approve | --reject REASON | --edit JSON`"
    return RunWaitingError(
        f"thread {thread_id!r} waits for {what}; give it with {how} before a new question (or ask on a new thread)"
    )


def question_of(interrupts: Sequence[Interrupt]) -> str | None:
    """The clarification question the run waits on, if any."""
    return next((i.value["question"] for i in _questions(interrupts)), None)


def pending_approvals(interrupts: Sequence[Interrupt]) -> list[PendingApproval]:
    """The tool calls the run waits on for approval."""
    pending = []
    for item in interrupts:
        if is_approval_request(item.value):
            [request] = item.value["action_requests"]
            pending.append(
                PendingApproval(
                    call_id=item.value["tool_call_id"], tool=request["name"], args=request["args"],
                    description=request.get("description", ""), problem=item.value.get("problem"), interrupt_id=item.id,
                )
            )
    return pending


def waiting_reason(interrupts: Sequence[Interrupt]) -> str:
    """'clarification' when a question waits, else 'approval'."""
    return "clarification" if question_of(interrupts) is not None else "approval"


def decision_value(decision: Any, call: PendingApproval) -> dict[str, Any]:
    """The resume value for ``decision`` (Approve / Edit / Reject, or LangChain's dict) on ``call``;
    AnswerError when it is no decision."""
    try:
        wire = to_resume(decision, call.tool) if isinstance(decision, Approve | Edit | Reject) else decision
        return to_resume(read_decision(wire, call.tool), call.tool)
    except ValueError as exc:
        raise AnswerError(f"call {call.call_id} ({call.tool}): {exc}") from None


def resume_values(
    interrupts: Sequence[Interrupt],
    *,
    answer: str | None = None,
    approval: Any = None,
    approvals: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``{interrupt_id: value}`` answering the question with ``answer`` and the calls with
    ``approval`` (the one call waiting) or ``approvals`` (by tool call id); AnswerError, before
    anything runs, when one does not fit."""
    values: dict[str, Any] = {}
    if answer is not None:
        questions = _questions(interrupts)
        if not questions:
            raise AnswerError("the run is not waiting for an answer to a question")
        values[questions[0].id] = answer
    pending = pending_approvals(interrupts)
    chosen = dict(approvals or {})
    if approval is not None:
        if len(pending) != 1:
            waiting = f"{len(pending)} calls wait for approval ({_calls(pending)})" if pending else "no call waits for approval"
            raise AnswerError(f"{waiting}: pass approvals={{call_id: decision}}" if pending else waiting)
        chosen[pending[0].call_id] = approval
    by_call = {p.call_id: p for p in pending}
    for call_id, decision in chosen.items():
        if call_id not in by_call:
            raise AnswerError(f"no call {call_id!r} waits for approval; waiting: {_calls(pending) or 'none'}")
        values[by_call[call_id].interrupt_id] = decision_value(decision, by_call[call_id])
    return values


def handler_values(
    interrupts: Sequence[Interrupt],
    on_clarification: ClarificationHandler | None,
    on_approval: ApprovalHandler | None,
) -> dict[str, Any]:
    """``{interrupt_id: value}`` for what the handlers answer: the question by ``on_clarification``,
    each call by ``on_approval`` (AnswerError when it returns no decision); empty when none applies."""
    values: dict[str, Any] = {}
    if on_clarification is not None:
        for item in _questions(interrupts)[:1]:
            values[item.id] = on_clarification(item.value["question"])
    if on_approval is not None:
        for call in pending_approvals(interrupts):
            decision = on_approval(call)
            try:
                values[call.interrupt_id] = decision_value(decision, call)
            except AnswerError as exc:
                raise AnswerError(f"on_approval returned {decision!r}, which is no decision: {exc}") from None
    return values


def _questions(interrupts: Sequence[Interrupt]) -> list[Interrupt]:
    return [i for i in interrupts if isinstance(i.value, dict) and "question" in i.value]


def _calls(pending: Sequence[PendingApproval]) -> str:
    return ", ".join(f"{p.call_id} ({p.tool})" for p in pending)
