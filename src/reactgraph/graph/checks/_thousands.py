"""Numbers as the question writes them (``dotted_thousands``): in a question written the way German, Dutch, Spanish,
Italian or Portuguese write numbers, ``2.340`` is two thousand three hundred and forty (the dot groups thousands),
while a small model reads it as 2.34: ``percent_of(percent=17, value=2.34)`` for "Wie viel sind 17 % von 2.340?".
A call that gives such a number in its decimal reading gets the grouped one (``value=2340``; ``"2.340 * 0.17"`` ->
``"2340 * 0.17"``). The question's way is told by the question alone: a decimal comma (``12,5``), a number with two
dots (``1.234.567``), or two of those languages' common words that English does not have (``wie``, ``von``,
``sind``). An English question's ``2.340`` stays a decimal."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.state import Action, runs

DOTTED = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d,]|\.\d)")
"""A number that may group its thousands with dots: ``2.340``, ``1.234.567``."""
DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d+,(?:\d{1,2}|\d{4,})(?![\d.,])")
"""A comma that can only be a decimal one: ``12,5``, ``0,25``, ``3,14159`` (not ``2,340``)."""
DOT_GROUPING_WORDS = frozenset(
    # German, Dutch, Spanish, Italian, Portuguese: common words that are not English words too ("do", "per", "van",
    # "son" are, and stay out: "How much do I pay per 1.250 items?" is English)
    "wie viel viele sind ist und der mit für ein eine mein meine zwischen oder wieviel "
    "hoeveel zijn het een wat niet "
    "cuánto cuanto cuántos cuantos cuánta es el los las del por qué cuál "
    "quanto quanti quanta è il di sono della dello che mio "
    "quantos quantas é são dos qual meu".split()
)
WRITTEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
"""A number written in a call's string argument (``2.34`` in ``"2.34 * 0.17"``)."""


def dotted_thousands(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """Calls that read a number the question groups with dots as a decimal get the number the question means."""
    grouped = misread(state.get("question") or "")
    if not grouped or not reply.actions:
        return None
    return rewritten(reply, [_corrected(a, grouped) if runs(a) else a for a in reply.actions])


def misread(question: str) -> dict[Decimal, int]:
    """The decimal reading of each number ``question`` groups with dots -> the number it means (``2.34`` -> 2340);
    nothing when the question does not write numbers that way."""
    dotted = DOTTED.findall(question)
    words = set(re.findall(r"[^\W\d_]+", question.lower()))
    groups_with_dots = (any(n.count(".") > 1 for n in dotted) or DECIMAL_COMMA.search(question)
                        or len(words & DOT_GROUPING_WORDS) >= 2)
    return {Decimal(n): int(n.replace(".", "")) for n in dotted if n.count(".") == 1} if groups_with_dots else {}


def _corrected(action: Action, grouped: dict[Decimal, int]) -> Action:
    args = _value(action.get("args"), grouped)
    return action if args == action.get("args") else {**action, "args": args}


def _value(value: Any, grouped: dict[Decimal, int]) -> Any:
    if isinstance(value, Mapping):
        return {k: _value(v, grouped) for k, v in value.items()}
    if isinstance(value, list):
        return [_value(v, grouped) for v in value]
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        return grouped.get(Decimal(str(value)), value)
    if isinstance(value, str):
        return WRITTEN_NUMBER.sub(lambda m: str(grouped.get(Decimal(m.group()), m.group())), value)
    return value
