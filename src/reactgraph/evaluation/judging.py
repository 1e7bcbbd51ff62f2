"""Whether a driven turn gave what its task wants, and if not, what went wrong, in words a report can show."""

from __future__ import annotations

from reactgraph.evaluation.checkers import check_answer, missing_calls
from reactgraph.evaluation.drivers import Driven
from reactgraph.evaluation.suite import Expectation, Turn

CUT = 200  # characters of an answer or a detail a problem quotes


def turn_problems(number: int, turn: Turn, done: Driven) -> list[str]:
    """What turn ``number`` got wrong (empty: it is right): it did not run, ended for another reason, answered wrong,
    left out a call it must make, has no call waiting that must wait, or a reply check that must act did not."""
    where = f"turn {number} ({shown(turn)})"
    if done.result is None:
        return [f"{where} did not run: {done.note}"]
    result, problems = done.result, []
    reason = result.termination_reason.value
    if reason != turn.expected_reason.value:
        detail = f": {result.termination_detail[:CUT]}" if result.termination_detail else ""
        problems.append(f"{where} ended {reason}{detail}; want {turn.expected_reason.value}")
    if not check_answer(turn.expect, done.answer):
        problems.append(f"{where} answered {_quoted(done.answer)}; want {wanted(turn.expect)}")
    for call in missing_calls(turn.ran, result.trace.steps):
        args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
        problems.append(f"{where}: no {call.tool}({args}) ran")
    pending = {call.tool for call in result.pending_approvals}
    problems += [f"{where}: no {tool} call waits for approval" for tool in turn.waiting if tool not in pending]
    acted = {check.check for step in result.trace.steps for check in step.checks}
    problems += [f"{where}: the reply check {name} did not act" for name in turn.checked if name not in acted]
    return problems


def shown(turn: Turn) -> str:
    """The turn's input, short: the question, the answer given, or the decision."""
    if turn.question is not None:
        return repr(turn.question[:80])
    return f"answer {turn.answer!r}" if turn.answer is not None else turn.approval or ""


def wanted(expect: Expectation | None) -> str:
    if expect is None:
        return "any answer"
    if expect.kind == "numeric":
        return f"the number {expect.value}"
    if expect.kind == "check":
        return f"an answer the {expect.check} check passes"
    return f"{expect.kind.replace('_', ' ')} {expect.value!r}"


def _quoted(answer: str | None) -> str:
    if answer is None:
        return "nothing"
    flat = " ".join(answer.split())
    return repr(flat if len(flat) <= CUT else flat[:CUT] + "...")
