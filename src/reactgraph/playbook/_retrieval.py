"""Retrieval: the bullets for a question, and the prompt block that shows them.

Lexical by default: the question's words against each bullet's words (content, tags, tools), each
shared word weighted by its rarity among the bullets (idf). A bullet whose tools the run does not
offer is left out. The block lists strategies, then pitfalls ('Avoid'), then observations, each
with its tool sequence and counts, and stops before ``max_tokens``; the header says they are records of
earlier runs, not instructions, and each note is quoted as a JSON string.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from reactgraph import prompts
from reactgraph.models.tokens import count_tokens
from reactgraph.playbook.bullets import Bullet, question_key, terms

MIN_SHARE = 0.2  # a bullet must share this part of the question's words (by weight) to be retrieved


def usable(bullet: Bullet, tools: Iterable[str] | None) -> bool:
    """The run offers every tool of the bullet's sequence (``tools`` None: any)."""
    return tools is None or set(bullet.tool_sequence) <= set(tools)


def rank_lexical(question: str, bullets: list[Bullet], k: int) -> list[Bullet]:
    """The ``k`` bullets sharing most of the question's words (idf-weighted), or written about the
    very same question; ties go to the better supported bullet, then the newer."""
    wanted, asked, key = terms(question), " ".join(question.split()), question_key(question)
    if not asked or not bullets:
        return []
    words = [b.words() for b in bullets]
    idf = {w: math.log(1 + len(bullets) / (1 + sum(w in ws for ws in words))) for w in wanted}
    total = sum(idf.values())
    scored = []
    for bullet, ws in zip(bullets, words, strict=True):
        # the same question asked again matches whole, words or not ('What is 6*7 + 2*4?')
        same = bullet.question_key == key or asked in bullet.content  # (bullets of older versions quoted it)
        share = 1.0 if same else sum(idf[w] for w in wanted & ws) / total if total else 0.0
        if share >= MIN_SHARE:
            scored.append((share, bullet.helpful_count - bullet.harmful_count, bullet.updated_at, bullet))
    scored.sort(key=lambda s: s[:3], reverse=True)
    return [s[3] for s in scored[:k]]


KINDS = ("Worked", "Avoid", "Note")  # the block's order


def kind_of(bullet: Bullet) -> str:
    return "Avoid" if bullet.shown_as_pitfall else "Note" if bullet.section == "observations" else "Worked"


def line_of(bullet: Bullet) -> str:
    """One line of the block: the kind, the note quoted as data (a JSON string: one line, its quotes escaped, so
    no note reads as the prompt's own text), its tools and its record."""
    kind = kind_of(bullet)
    tools = " -> ".join(bullet.tool_sequence) or "none"
    record = f"helped {bullet.helpful_count}, hurt {bullet.harmful_count}"
    return f"- {kind}: {json.dumps(bullet.content, ensure_ascii=False)} [tools: {tools}; {record}]"


def block(bullets: list[Bullet], max_tokens: int) -> tuple[str, list[str]]:
    """The prompt block and the ids of the bullets in it: strategies, pitfalls, observations, in that
    order, as many as fit in ``max_tokens`` ('' and [] when none does)."""
    text = prompts.PLAYBOOK_HEADER
    ids: list[str] = []
    for bullet in sorted(bullets, key=lambda b: KINDS.index(kind_of(b))):
        candidate = f"{text}\n{line_of(bullet)}"
        if count_tokens(candidate) <= max_tokens:
            text, ids = candidate, [*ids, bullet.id]
    return (text, ids) if ids else ("", [])
