"""Every reply check, in one ordered table: how think judges what the model replied.

think builds the prompt, calls the model, reads the reply (``read_reply``: an answer, a give-up or calls) and runs
the run's checks (``reply_checks``, by default all of these, in this order) on it (``_pipeline.judged``; the
modules whose names start with ``_`` are the graph's own, this package's names are the checks' surface). A check is
``(reply, state, config) -> Decision | None``: ``Accept`` (pass it on), ``SendBack`` (show the model why, ask
again), ``Stop`` (end the run), ``Rewrite`` (replace its calls). The first ``SendBack`` or ``Stop`` decides.

| check | judges | decides |
| --- | --- | --- |
| ``answer_stands`` | any reply right after an answer was sent back to be checked | the reply says nothing new (empty, a Thought alone, a copy, a call announced): ``Stop`` with the sent-back answer |
| ``no_answer`` | answer, give-up | empty, a copy of what the prompt showed (an error, the budget line, the format's instructions, a rule of the default system prompt): ``SendBack`` as no answer |
| ``null_answer`` | answer | ``None`` / ``null`` / ``N/A`` after a tool gave a result: ``SendBack`` as no answer |
| ``announced_call`` | answer | says it will call a tool and calls none: ``SendBack`` as no answer |
| ``made_up_output`` | answer | shows the output of code nothing ran: ``SendBack`` as no answer |
| ``unsupported_number`` | answer | a number no tool result backs, or worked out with no tool a tool on offer could be: ``SendBack`` to be checked |
| ``unfounded_name`` | answer | mostly a name neither the question nor a result holds: ``SendBack`` to be checked |
| ``answers_each`` | answer | a bare yes or no to a question that also asks which (what, when, ...): ``SendBack`` to be checked, each question named |
| ``unfinished_plan`` | answer | the last tool result as it came, when fewer tools ran than the steps of the model's own numbered plan (the sum, for an average): ``SendBack`` to be checked, the next step named |
| ``said_already`` | calls | ``ask_user`` for what the user wrote (their question, a fact they told, the values it gives): ``Rewrite``, the agent answers it with their words |
| ``guessed_values`` | calls | with ``ask_user`` on offer, calls on numbers neither the user nor a tool result gave, for a question about the user's own things ("my two lucky numbers"): ``Rewrite``, not run, the agent asks the user for them ("What are your two lucky numbers?"); once a turn |
| ``one_question`` | calls | a second ``ask_user`` in one reply: ``Rewrite``, it waits for the first's answer |
| ``repeated_plan`` | calls | the step before's call again with its result in place of one of its numbers, under the same reasoning word for word (497.8 + 100 after 397.8 + 100 gave 497.8): ``Rewrite``, not run; made again, it runs |
| ``thought_required`` | calls | with ``require_thought``: no or filler reasoning: ``Rewrite``, the calls not run |
| ``fan_out`` | calls | a list where the tool takes one value: ``Rewrite``, one call per item |
| ``premature_call`` | calls | a calculation on guessed numbers beside a lookup: ``Rewrite``, not run yet |
| ``dotted_thousands`` | calls | a number the question groups with dots (``2.340`` in a German question) given as a decimal (2.34): ``Rewrite``, the call gets 2340 |
| ``unfounded_call`` | calls | calls none of whose values (leaving out yes/no, 0, 1, defaults and choices) the question, the earlier turns, a tool result or your system prompt holds, with no founded call beside them: ``Rewrite``, not run; made again, it runs |
| ``unfounded_options`` | calls | optional arguments on nothing the run was given (a text with a digit none of it holds, a yes/no other than the declared default whose name it does not mention): ``Rewrite``, left out, the tool's default applies |
| ``output_schema`` | answer | with an output schema: read into it (``Accept(output=...)``), else ``SendBack`` / ``Stop`` |

Checks that send an answer back to be checked (``unverified_answer``) do so at most ``answer_checks`` times a turn
(default 1), never at the last iteration; then the answer stands. Your own checks go in the same list
(``ReActAgent(reply_checks=[*DEFAULT_REPLY_CHECKS, my_check])`` or ``@agent.reply_check``), by name in a run's
config or the served graph's context. What each built-in check gained on the local model: benchmarks/results/
reply-checks.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from reactgraph.config import DEFAULT_REPLY_CHECKS, ConfigError
from reactgraph.errors import did_you_mean
from reactgraph.graph.checks._answers import announced_call, answer_stands, made_up_output, no_answer, null_answer
from reactgraph.graph.checks._base import Accept, Check, Decision, Reply, Rewrite, SendBack, Stop
from reactgraph.graph.checks._calls import one_question, repeated_plan, thought_required
from reactgraph.graph.checks._clarify import guessed_values, said_already
from reactgraph.graph.checks._fan_out import fan_out
from reactgraph.graph.checks._grounded import answers_each, unfounded_name, unsupported_number
from reactgraph.graph.checks._grounding import premature_call
from reactgraph.graph.checks._options import unfounded_options
from reactgraph.graph.checks._output import output_schema
from reactgraph.graph.checks._pipeline import Verdict, judged, update_of
from reactgraph.graph.checks._plan import unfinished_plan
from reactgraph.graph.checks._reply import find_phrase, read_reply
from reactgraph.graph.checks._thousands import dotted_thousands
from reactgraph.graph.checks._unfounded import unfounded_call

BUILTIN_CHECKS: dict[str, Check] = {
    "answer_stands": answer_stands,
    "no_answer": no_answer,
    "null_answer": null_answer,
    "announced_call": announced_call,
    "made_up_output": made_up_output,
    "unsupported_number": unsupported_number,
    "unfounded_name": unfounded_name,
    "answers_each": answers_each,
    "unfinished_plan": unfinished_plan,
    "said_already": said_already,
    "guessed_values": guessed_values,
    "one_question": one_question,
    "repeated_plan": repeated_plan,
    "thought_required": thought_required,
    "fan_out": fan_out,
    "premature_call": premature_call,
    "dotted_thousands": dotted_thousands,
    "unfounded_call": unfounded_call,
    "unfounded_options": unfounded_options,
    "output_schema": output_schema,
}
"""The built-in checks by name, in their default order."""

REMOVED = frozenset({"copied_result", "untried_give_up", "uncovered_parts", "tools_question", "named_values", "asked_before"})
"""Built-in checks that went (no measured gain on the local model: benchmarks/results/reply-checks.md): a config
that still names one is told so."""


def resolved_checks(names: Sequence[str], own: Mapping[str, Check] | None = None) -> tuple[tuple[str, Check], ...]:
    """The checks ``names`` name, in order: built-ins and the agent's ``own``; ConfigError for a name that is neither."""
    known = {**BUILTIN_CHECKS, **(own or {})}
    unknown = [name for name in names if name not in known]
    if unknown:
        problems = "; ".join(
            f"reply check {name!r} was removed in reactgraph 0.1 (it gained nothing measured): leave it out"
            if name in REMOVED else f"unknown reply check {name!r}{did_you_mean(name, known)}"
            for name in unknown
        )
        raise ConfigError(f"invalid reactgraph config: reply_checks: {problems} (known: {', '.join(known)})")
    return tuple((name, known[name]) for name in names)


def named_checks(checks: Iterable[str | Check]) -> tuple[tuple[str, ...], dict[str, Check]]:
    """(the names, in order; your own functions by name) of a list of built-in names and functions. A function is
    named by its ``__name__`` (a lambda: ``check_<its place>``); it may not take a built-in check's name."""
    names: list[str] = []
    own: dict[str, Check] = {}
    for place, check in enumerate(checks):
        if isinstance(check, str):
            names.append(check)
            continue
        if not callable(check):
            raise ConfigError(f"invalid reactgraph config: reply_checks: {check!r:.80} is neither a check's name nor a function")
        name = getattr(check, "__name__", "")
        name = name if name.isidentifier() else f"check_{place}"
        if name in BUILTIN_CHECKS:
            raise ConfigError(f"invalid reactgraph config: reply_checks: your check {name!r} has a built-in check's name; rename it")
        names.append(name)
        own[name] = check
    return tuple(names), own


__all__ = [
    "BUILTIN_CHECKS",
    "DEFAULT_REPLY_CHECKS",
    "Accept",
    "Check",
    "Decision",
    "Reply",
    "Rewrite",
    "SendBack",
    "Stop",
    "Verdict",
    "find_phrase",
    "judged",
    "named_checks",
    "read_reply",
    "resolved_checks",
    "update_of",
]
