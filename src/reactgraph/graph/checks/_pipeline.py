"""Running the reply checks on a reply (``judged``), and the turn's state update from their verdict.

The checks run in their order. ``Accept`` (or None) passes the reply on; ``Rewrite`` replaces its calls and passes
them on; the first ``SendBack`` or ``Stop`` ends the pipeline. An answer sent back to be checked
(``unverified_answer``) counts against ``answer_checks`` and is never sent back at the run's last iteration: past
that, the check is skipped and the answer stands. What no check stopped is the reply's own outcome: an answer
ends the run with success, a give-up with failure, calls run. Then the one bound that is no check:
``max_parse_retries`` unreadable replies in a row end the run with failure.

Every decision that is not an ``Accept`` is kept on the turn (``checks``, then on its trace step): the check's name,
what it decided and why, and what it judged (the answer, or the calls it rewrote), so an eval can tell what each
check changed (``reactgraph.evaluation.checks``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.checks._base import Accept, Check, Decision, Reply, Rewrite, SendBack, Stop
from reactgraph.models.calls import awaited
from reactgraph.state import Action, Termination, TerminationReason, stopped
from reactgraph.tool_calling import parse_failed

KEPT = 400  # characters of a judged answer or a decision's text kept on the trace step


@dataclass
class Verdict:
    """What the checks made of a reply: the deciding check's decision (None: the reply's own outcome), the reply as
    the checks left it (its calls rewritten), the answer typed (an output schema), and each check that acted."""

    reply: Reply
    decision: SendBack | Stop | None = None
    output: Mapping[str, Any] | None = None
    fired: list[dict[str, Any]] = field(default_factory=list)


def judged(
    reply: Reply, state: Mapping[str, Any], cfg: AgentConfig, checks: Sequence[tuple[str, Check]],
    deadline: float | None = None,
) -> Verdict:
    """The verdict of ``checks`` (name, check), in order, on ``reply``; an async check is waited for until ``deadline``."""
    verdict = Verdict(reply)
    budget = state.get("answer_checks", 0) < cfg.checks.answer_checks and reply.iteration < cfg.limits.max_iterations
    for name, check in checks:
        decision = decided(name, check, verdict.reply, state, cfg, deadline)
        if isinstance(decision, Accept):
            verdict.output = decision.output if decision.output is not None else verdict.output
            continue
        if isinstance(decision, SendBack) and decision.kind == ErrorKind.UNVERIFIED_ANSWER and not budget:
            continue  # checked as often as the turn may: the answer stands
        verdict.fired.append(record(name, decision, verdict.reply))
        if isinstance(decision, Rewrite):
            verdict.reply = replace(verdict.reply, actions=decision.actions)
            continue
        verdict.decision = decision
        break
    return verdict


def decided(
    name: str, check: Check, reply: Reply, state: Mapping[str, Any], cfg: AgentConfig, deadline: float | None
) -> Decision:
    """``check``'s decision on the reply: called with as many of (reply, state, config) as it takes, awaited when it
    is async; None and True accept, False sends the answer back; a check that raises stops the run (failure)."""
    try:
        out = check(*(reply, state, cfg)[: arity(check)])
        if inspect.isawaitable(out):
            out = awaited(out, deadline)
    except Exception as exc:  # a user's check that fails ends the run, saying which and why: never a crash
        return Stop(TerminationReason.FAILURE, f"the reply check {name!r} raised {type(exc).__name__}: {exc}")
    if out is None or out is True:
        return Accept()
    if out is False:
        return SendBack(f"Your reply did not pass the check {name!r}")
    if isinstance(out, Accept | SendBack | Stop | Rewrite):
        return out
    return Stop(TerminationReason.FAILURE, f"the reply check {name!r} returned {out!r:.80}, not a decision")


@lru_cache(maxsize=256)
def arity(check: Callable[..., Any]) -> int:
    """How many of (reply, state, config) ``check`` takes: 3 with ``*args``, else its positional parameters."""
    try:
        params = inspect.signature(check).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: give it all three
        return 3
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return min(3, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params))


def record(name: str, decision: SendBack | Stop | Rewrite, reply: Reply) -> dict[str, Any]:
    """What the trace keeps of a check that acted: its name, decision, why, and what it judged."""
    if isinstance(decision, Rewrite):
        calls = [{"tool": a.get("tool", ""), "args": a.get("args", {})} for a in reply.actions]
        detail = changed(reply.actions, decision.actions)
        return {"check": name, "decision": "rewrite", "reply": reply.kind, "detail": detail, "calls": calls}
    kind = "send_back" if isinstance(decision, SendBack) else "stop"
    detail = decision.message if isinstance(decision, SendBack) else decision.detail
    judged_text = {"answer": reply.text[:KEPT]} if reply.text is not None else {}
    return {"check": name, "decision": kind, "reply": reply.kind, "detail": detail[:KEPT]} | judged_text


def changed(before: Sequence[Action], after: Sequence[Action]) -> str:
    """How a rewrite changed the calls, in a line: how many there were and are, and which are not run."""
    held = [a.get("tool") or "?" for a in after if "rejection" in a or "answered" in a]
    text = f"{len(before)} call(s) -> {len(after)}"
    return text + (f"; not run: {', '.join(held)}" if held else "")


def update_of(verdict: Verdict, state: Mapping[str, Any], cfg: AgentConfig) -> dict[str, Any]:
    """The turn's state update: the stop, or the calls to run (a sent-back reply is one rejected call, its
    observation the decision's message), the counts the bounds read, and the checks that acted (``turn_checks``)."""
    reply, decision = verdict.reply, verdict.decision
    if isinstance(decision, Stop):
        update = stop_update(stopped(decision.reason, decision.detail), decision.answer)
    elif isinstance(decision, SendBack):
        update = sent_back(decision, reply, state)
    elif reply.kind == "answer":
        update = stop_update(stopped(TerminationReason.SUCCESS, reply.why), reply.text)
        if verdict.output is not None:
            update["output"] = dict(verdict.output)
    elif reply.kind == "give_up":
        update = stop_update(stopped(TerminationReason.FAILURE, reply.why), reply.text)
    else:
        update = {"pending_actions": list(reply.actions)}
    failures = state.get("parse_failures", 0) + 1 if parse_failed(update["pending_actions"]) else 0
    if failures >= cfg.limits.max_parse_retries:
        problem = update["pending_actions"][0]["rejection"].splitlines()[0]
        detail = f"{failures} unreadable model replies in a row (max_parse_retries={cfg.limits.max_parse_retries}); last: {problem}"
        update = stop_update(stopped(TerminationReason.FAILURE, detail), None)
    return update | {"parse_failures": failures, "turn_checks": verdict.fired}


def sent_back(decision: SendBack, reply: Reply, state: Mapping[str, Any]) -> dict[str, Any]:
    """The update that shows the model why its reply was not taken: one rejected call. An answer sent back to be
    checked is kept on the turn (the next prompt shows it as the model gave it) and counted."""
    if decision.kind != ErrorKind.UNVERIFIED_ANSWER:
        update: dict[str, Any] = {"pending_actions": [rejected(decision.kind, decision.message)]}
        if decision.kind == ErrorKind.INVALID_OUTPUT:
            update["output_failures"] = state.get("output_failures", 0) + 1
        return update
    text = error_text(ErrorKind.UNVERIFIED_ANSWER, problem=decision.message)
    return {
        "pending_actions": [rejected(ErrorKind.UNVERIFIED_ANSWER, text)],
        "turn_answer": reply.text or "",
        "answer_checks": state.get("answer_checks", 0) + 1,
    }


def stop_update(termination: Termination, answer: str | None) -> dict[str, Any]:
    """The update that ends the run: its termination and answer, no calls."""
    return {"termination": termination, "final_answer": answer, "pending_actions": []}


def rejected(kind: ErrorKind, text: str) -> Action:
    """A call that is not run: act reports ``text`` as its observation."""
    return {"id": "rejected_0", "tool": "", "args": {}, "index": 0, "rejection_kind": kind.value, "rejection": text}

