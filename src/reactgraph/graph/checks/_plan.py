"""An answer that stops part-way through the model's own plan: the reply before laid out numbered steps ("1. Add the
numbers. 2. Divide the sum by how many there are."), fewer tool calls than steps have run, and the answer is the
last result as it came (the sum, not the average). A small model often answers with the first step's result. Sent
back once to be checked (``unverified_answer``), the next step named. The reply check: ``unfinished_plan``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reactgraph import prompts
from reactgraph.answers.confidence import numbers_in
from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, SendBack
from reactgraph.graph.checks._grounding import results

STEP = re.compile(r"^[ \t>*#-]*(?:step\s*)?(\d{1,2})\s*[.):]\s*(\S.*)$", re.IGNORECASE | re.MULTILINE)
"""A numbered line of a plan: ``1. Add ...``, ``### Step 2: Divide ...``, ``3) Report ...``."""


def unfinished_plan(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> SendBack | None:
    """An answer whose numbers (leaving out the question's) are the last tool result's, given when fewer tools ran
    than the model's plan has steps, is sent back with the plan's next step."""
    if reply.answer is None or not (answer := numbers_in(reply.answer)):
        return None
    steps = state.get("steps") or []
    ran = results(state)
    plan = max((planned(step.get("thought") or "") for step in steps), key=len, default=[])
    given = set(numbers_in(state.get("question") or ""))
    if not ran or len(ran) >= len(plan) or not (last := set(numbers_in(ran[-1]))) or set(answer) - given != last:
        return None
    return SendBack(prompts.UNFINISHED_PLAN.format(
        answer=reply.answer.strip(), done=len(ran), count=len(plan), step=len(ran) + 1, next=plan[len(ran)].rstrip(".") + ".",
    ))


def planned(text: str) -> list[str]:
    """The steps of the numbered plan in ``text`` (its longest run of lines numbered 1, 2, 3 ...), or []."""
    best: list[str] = []
    run: list[str] = []
    for match in STEP.finditer(text):
        number, line = int(match.group(1)), match.group(2).replace("**", "").strip()
        if number == len(run) + 1:
            run.append(line)
        elif number == 1:
            run = [line]
        else:
            continue
        best = max(best, run, key=len)
    return list(best) if len(best) >= 2 else []
