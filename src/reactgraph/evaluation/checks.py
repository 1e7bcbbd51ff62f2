"""What each reply check did in an eval run, and whether it paid: per check, how often it acted, how often it turned
a wrong outcome right and a right one wrong, and the tokens of the turns after it (``gains``).

Whether an outcome was turned is read from the trace where the trace can tell what would have happened had the
check let the reply through (``if_let_through``):
- a check that sent an answer or a give-up back: the run would have ended with that reply (the task's checker says
  whether it was right; on BFCL an answer is no call, right only where no function fits);
- a check that rewrote the calls of the turn BFCL scores: the calls as the model made them, scored by BFCL's checker.
Where it cannot (a stop a check decided, a rewrite in the task suite), the firing is ``unscored``; an ablation settles
it: the same tasks run with the check left out of ``reply_checks`` (``ablated``), right with it against right without.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from reactgraph.answers.result import ReActStep


class Firing(BaseModel):
    """One check acting on one reply of one task's run."""

    check: str
    decision: str
    task: str
    right: bool  # how the run ended: right or not
    if_let_through: bool | None = None  # had the check let the reply through: right or not (None: the trace cannot tell)
    tokens_after: int = 0  # tokens of the run's turns after the one the check acted on


class CheckGain(BaseModel):
    """What one check did over a set of runs."""

    check: str
    fired: int = 0
    tasks: int = 0
    wrong_to_right: int = 0
    right_to_wrong: int = 0
    unscored: int = 0
    tokens_after: int = 0
    source: str = "trace"  # "trace", or "ablation" (wrong_to_right / right_to_wrong from runs without the check)

    @property
    def net(self) -> int:
        return self.wrong_to_right - self.right_to_wrong


def fired(steps: Sequence[ReActStep], judge: Callable[[str, str], bool]) -> list[dict[str, Any]]:
    """The checks that acted in a run's ``steps``, each with whether the run would have been right had it let the
    reply through (``judge(text, reply kind)`` for a sent-back answer or give-up; None otherwise) and the tokens of the
    turns after it."""
    out = []
    for place, step in enumerate(steps):
        after = sum(s.token_usage.total_tokens for s in steps[place + 1 :])
        for run in step.checks:
            let = None
            if run.decision == "send_back" and run.reply in ("answer", "give_up") and run.answer is not None:
                let = judge(run.answer, run.reply)
            out.append({"check": run.check, "decision": run.decision, "if_let_through": let, "tokens_after": after})
    return out


def firings(task: str, right: bool, records: Iterable[dict[str, Any]]) -> list[Firing]:
    """``fired``'s records of one task's run as Firings."""
    return [Firing(task=task, right=right, **{k: r[k] for k in ("check", "decision", "if_let_through", "tokens_after")})
            for r in records]


def gains(found: Iterable[Firing]) -> list[CheckGain]:
    """Per check, in the order first met: how often it acted and on how many tasks, the outcomes it turned each way
    (counted once per task, by its first scored firing there), the firings the trace cannot score, the tokens after."""
    table: dict[str, CheckGain] = {}
    tasks: dict[str, set[str]] = {}
    judged: dict[str, set[str]] = {}
    for f in found:
        gain = table.setdefault(f.check, CheckGain(check=f.check))
        gain.fired += 1
        tasks.setdefault(f.check, set()).add(f.task)
        if f.task not in judged.setdefault(f.check, set()):
            gain.tokens_after += f.tokens_after
        if f.if_let_through is None:
            gain.unscored += 1
            continue
        if f.task in judged[f.check]:
            continue
        judged[f.check].add(f.task)
        gain.wrong_to_right += int(f.right and not f.if_let_through)
        gain.right_to_wrong += int(f.if_let_through and not f.right)
    for name, gain in table.items():
        gain.tasks = len(tasks[name])
    return list(table.values())


def ablated(gain: CheckGain, with_check: dict[str, bool], without: dict[str, bool]) -> CheckGain:
    """``gain`` with its turned outcomes read from an ablation: per task it fired on (``with_check``: task -> right, the
    runs with it), right or not in the runs without it (``without``)."""
    both = [t for t in with_check if t in without]
    return gain.model_copy(update={
        "wrong_to_right": sum(with_check[t] and not without[t] for t in both),
        "right_to_wrong": sum(without[t] and not with_check[t] for t in both),
        "unscored": gain.unscored - min(gain.unscored, len(both)),
        "source": "ablation",
    })


def markdown(rows: Sequence[CheckGain], title: str = "") -> str:
    """The table: one row per check."""
    head = [f"**{title}**", ""] if title else []
    lines = [
        "| check | fired | tasks | wrong -> right | right -> wrong | net | unscored | tokens after | from |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for g in rows:
        lines.append(
            f"| `{g.check}` | {g.fired} | {g.tasks} | {g.wrong_to_right} | {g.right_to_wrong} | {g.net:+d} | {g.unscored} "
            f"| {g.tokens_after:,} | {g.source} |"
        )
    return "\n".join([*head, *lines])
