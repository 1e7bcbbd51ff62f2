"""Reflector: a finished run's trace turned into playbook bullets.

The rules (``reflect``) read the tool calls, their errors and how the run ended: an answer that an
ok tool result supports (confidence's ``support`` signal) gives a strategy (the calls that answered,
helpful); an answer without a tool, or one no result supports, teaches nothing (it may be wrong); a
run stopped by a stall or a limit gives a pitfall (the calls that led nowhere, harmful); a give-up
after calls that all failed gives a pitfall about those tools, any other give-up an observation (the
tools did not have the answer); and an error followed by a call that worked gives an observation
(which call failed and which worked instead).

A bullet is written from the run's shape only: tool names, argument names (never their values), error
kinds, the stop's kind and the counts. No tool output, argument value, stop detail or question text goes
into it: bullets are shown to later runs on other threads, so what one tool returned or one user asked
must not reach them, and a poisoned tool result must not become an instruction to every later run. The
question is kept as its keywords (``tags``) and a digest (``question_key``), for retrieval only.
``lesson_prompt`` / ``read_lesson`` are the optional model call for a lesson in words, given the same shape.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from reactgraph.answers.result import ReActStep, ToolAction, steps_from_state
from reactgraph.errors import ErrorKind
from reactgraph.playbook.bullets import Bullet, Section, keywords, question_key
from reactgraph.state import iteration_of

# calls that never reached a tool: an unreadable reply, a tool that does not exist, a call the user refused
NOT_RUN = frozenset(
    {ErrorKind.EMPTY_REPLY, ErrorKind.MALFORMED_OUTPUT, ErrorKind.MISSING_ACTION, ErrorKind.MISSING_THOUGHT,
     ErrorKind.NON_ANSWER, ErrorKind.INVALID_OUTPUT, ErrorKind.TOOL_NOT_FOUND, ErrorKind.REJECTED}
)
GOOD = frozenset({"success"})
BAD = frozenset({"stalled", "max_iterations", "token_budget", "timeout"})
GAVE_UP = frozenset({"failure"})
LEARNT_FROM = GOOD | BAD | GAVE_UP  # cancelled, custom, clarification: the run was stopped from outside
MAX_RECOVERIES = 2
STALL_SHAPE = re.compile(r"the same (action|observation) \d+ times in a row")
MAX_CALL_CHARS = 80


def outcome(reason: str) -> str:
    """'good', 'bad', 'gave_up' or 'none' (a run stopped from outside teaches nothing)."""
    return "good" if reason in GOOD else "bad" if reason in BAD else "gave_up" if reason in GAVE_UP else "none"


def call_text(action: ToolAction) -> str:
    """``tool(arg=…, ...)``: the tool and its arguments' names, never their values; cut to MAX_CALL_CHARS."""
    text = f"{action.tool}({', '.join(f'{k}=…' for k in action.args)})"
    return text if len(text) <= MAX_CALL_CHARS else text[: MAX_CALL_CHARS - 4] + "...)"


def tool_calls(steps: list[ReActStep]) -> list[tuple[ToolAction, bool, str]]:
    """(action, ok, error kind) for every call to an offered tool, in order (``NOT_RUN`` left out)."""
    out = []
    for step in steps:
        for action, obs in zip(step.actions, step.observations, strict=False):
            if obs.error_kind in NOT_RUN or not action.tool:
                continue
            out.append((action, obs.status == "ok" and obs.error_kind is None, str(obs.error_kind or "")))
    return out


def sequence(actions: list[ToolAction]) -> list[str]:
    """The tools in call order, a run of calls to the same tool counted once."""
    out: list[str] = []
    for action in actions:
        if not out or out[-1] != action.tool:
            out.append(action.tool)
    return out


def first_of_each(actions: list[ToolAction]) -> list[ToolAction]:
    """The first call to each tool, in order."""
    seen: dict[str, ToolAction] = {}
    for action in actions:
        seen.setdefault(action.tool, action)
    return list(seen.values())


def stop_shape(reason: str, detail: str) -> str:
    """How a run stopped, without the detail's values: 'stalled: the same observation 3 times in a row', 'max
    iterations'."""
    shape = reason.replace("_", " ")
    if reason == "stalled" and (found := STALL_SHAPE.match(detail)):
        shape += f": {found.group(0)}"  # our own wording, up to the repeated text, which stays out
    return shape


def changed_arguments(failed: ToolAction, worked: ToolAction) -> str:
    """What a call that worked changed of one that failed, by name: 'another tool', 'other b'."""
    if failed.tool != worked.tool:
        return f"{call_text(worked)} worked instead"
    names = sorted(k for k in {*failed.args, *worked.args} if failed.args.get(k) != worked.args.get(k))
    return f"the same call with other {', '.join(names) or 'arguments'} worked"


def reflect(
    question: str, steps: list[ReActStep], reason: str, detail: str, iterations: int, source: str, supported: bool = True
) -> list[Bullet]:
    """The bullets a finished run teaches (none for a run stopped from outside); ``supported``: an ok
    tool result holds the answer."""
    kind = outcome(reason)
    if kind == "none":
        return []
    calls = tool_calls(steps)
    ok = [a for a, good, _ in calls if good]
    tried = [a for a, _, _ in calls]
    rate = len(ok) / len(calls) if calls else 1.0
    tags = keywords(question)

    def bullet(content: str, section: Section, seq: list[str], helpful: int, harmful: int) -> Bullet:
        return Bullet(
            content=content, section=section, tool_sequence=seq, helpful_count=helpful, harmful_count=harmful,
            tags=tags, tool_success_rate=rate, avg_iterations=float(iterations), sources=[source],
            question_key=question_key(question),
        )

    shown = ", then ".join(call_text(a) for a in first_of_each(ok if kind == "good" else tried)) or "no tool"
    bullets: list[Bullet] = []
    if kind == "good" and ok and supported:
        turns = f"{iterations} turn" + ("s" if iterations != 1 else "")
        bullets.append(bullet(f"{shown}, then answered ({turns}).", "strategies", sequence(ok), 1, 0))
    elif kind == "good":
        pass  # answered without a tool, or with nothing that supports the answer: no strategy to keep
    elif kind == "bad":
        bullets.append(bullet(f"{shown} led to no answer ({stop_shape(reason, detail)}).", "pitfalls", sequence(tried), 0, 1))
    elif tried and not ok:  # every call failed, then the model gave up: a pitfall about those tools
        errors = ", ".join(dict.fromkeys(error or "error" for _, _, error in calls))
        content = f"{shown} failed every time ({errors}); the run gave up."
        bullets.append(bullet(content, "pitfalls", sequence(tried), 0, 1))
    else:
        how = f"{shown} did not give the answer" if tried else "no tool was called"
        bullets.append(bullet(f"{how}; the run said it cannot answer.", "observations", sequence(tried), 0, 0))
    helpful, harmful = (1, 0) if kind == "good" else (0, 1) if kind == "bad" else (0, 0)
    for failed, worked in recoveries(calls)[:MAX_RECOVERIES]:
        action, error = failed
        content = f"{call_text(action)} failed ({error}); {changed_arguments(action, worked)}."
        bullets.append(bullet(content, "observations", sequence([action, worked]), helpful, harmful))
    return bullets


def recoveries(calls: list[tuple[ToolAction, bool, str]]) -> list[tuple[tuple[ToolAction, str], ToolAction]]:
    """Each failed call paired with the first later call that worked (another tool, or other arguments)."""
    out = []
    for i, (action, good, error) in enumerate(calls):
        if good:
            continue
        later = next((a for a, g, _ in calls[i + 1 :] if g and (a.tool, a.args) != (action.tool, action.args)), None)
        if later is not None:
            out.append(((action, error), later))
    return out


LESSON_SYSTEM = (
    "You review a finished run of a tool-using agent. Write ONE sentence of advice for the next run on a "
    "similar question: which tool to call, with what kind of arguments, or what to avoid. Reply with the "
    "sentence only."
)


def lesson_prompt(question: str, steps: list[ReActStep], reason: str) -> list[BaseMessage]:
    """The prompt for a lesson in words, from the run's shape: the question's keywords, the calls (tools and
    argument names) with their outcome, how the run ended. No value, result or question text to copy."""
    lines = [f"Question about: {', '.join(keywords(question)[:12]) or '(no keywords)'}"]
    for action, good, error in tool_calls(steps):
        lines.append(f"- {call_text(action)} -> {'ok' if good else 'error ' + error}")
    lines.append(f"The run ended: {reason}.")
    return [SystemMessage(content=LESSON_SYSTEM), HumanMessage(content="\n".join(lines))]


def read_lesson(text: str, question: str, steps: list[ReActStep], reason: str, iterations: int, source: str) -> Bullet | None:
    """The model's lesson as a bullet (its first line, at most 300 characters), or None when it wrote nothing."""
    line = next((ln.strip(" -*") for ln in text.strip().splitlines() if ln.strip(" -*")), "")
    kind = outcome(reason)
    if not line or kind == "none":
        return None
    calls = tool_calls(steps)
    rate = sum(g for _, g, _ in calls) / len(calls) if calls else 1.0
    section: Section = "strategies" if kind == "good" else "pitfalls" if kind == "bad" else "observations"
    return Bullet(
        content=line[:300], section=section, lesson=True, tool_sequence=sequence([a for a, _, _ in calls]),
        helpful_count=int(kind == "good"), harmful_count=int(kind == "bad"), tags=keywords(question),
        tool_success_rate=rate, avg_iterations=float(iterations), sources=[source], question_key=question_key(question),
    )


def reflect_state(state: dict[str, Any]) -> tuple[str, list[ReActStep], str, str, int]:
    """(question, steps, reason, detail, iterations) of a finished run's state."""
    termination = state.get("termination") or {}
    return (
        state.get("question") or "",
        steps_from_state(state.get("steps") or []),
        str(termination.get("reason") or ""),
        str(termination.get("detail") or ""),
        iteration_of(state),
    )


def supported(state: dict[str, Any]) -> bool:
    """An ok tool result holds the finished run's answer (confidence's ``support`` signal is positive)."""
    return ((state.get("confidence_signals") or {}).get("support") or {}).get("effect", 0) > 0
