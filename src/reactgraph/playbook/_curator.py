"""Curator: merges new bullets into the playbook, counts runs for and against, retires what hurts.

A new bullet merges into an existing one with the same tool sequence and similar words (Jaccard
``SIMILAR`` or more): counts add up, the averages take the new run in, tags and sources join. A run
already merged (its source listed) is not counted twice, so a terminate run again on resume changes
nothing. A strategy or observation that hurt ``RETIRE_MARGIN`` runs more than it helped is retired;
a pitfall (the record of a failure) is kept. Past ``max_bullets`` the least supported go first.
"""

from __future__ import annotations

import time

from reactgraph.playbook.bullets import Bullet

SIMILAR = 0.7
RETIRE_MARGIN = 2
MAX_SOURCES = 20
MAX_TAGS = 24


def similarity(a: Bullet, b: Bullet) -> float:
    """Jaccard similarity of the two bullets' words."""
    wa, wb = a.words(), b.words()
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def find_match(bullets: list[Bullet], new: Bullet) -> Bullet | None:
    """The existing bullet ``new`` merges into: same tool sequence, most similar words (at least SIMILAR)."""
    scored = [(similarity(b, new), b) for b in bullets if b.tool_sequence == new.tool_sequence]
    best = max(scored, key=lambda pair: pair[0], default=None)
    return best[1] if best and best[0] >= SIMILAR else None


def merged(old: Bullet, new: Bullet) -> Bullet:
    """``old`` with ``new``'s run counted in (unchanged when that run is already counted)."""
    if set(new.sources) <= set(old.sources):
        return old
    runs = old.runs + new.runs
    section = old.section
    if section != "observations":
        helpful, harmful = old.helpful_count + new.helpful_count, old.harmful_count + new.harmful_count
        section = "strategies" if helpful > harmful else "pitfalls" if harmful > helpful else section
    return old.model_copy(
        update={
            "helpful_count": old.helpful_count + new.helpful_count,
            "harmful_count": old.harmful_count + new.harmful_count,
            "section": section,
            "runs": runs,
            "avg_iterations": (old.avg_iterations * old.runs + new.avg_iterations * new.runs) / runs,
            "tool_success_rate": (old.tool_success_rate * old.runs + new.tool_success_rate * new.runs) / runs,
            "tags": list(dict.fromkeys(old.tags + new.tags))[:MAX_TAGS],
            "sources": (old.sources + [s for s in new.sources if s not in old.sources])[-MAX_SOURCES:],
            "updated_at": time.time(),
        }
    )


def feedback(bullet: Bullet, source: str, good: bool) -> Bullet:
    """``bullet`` after a run it was shown in ended well (``good``) or badly; once per run."""
    if source in bullet.sources:
        return bullet
    return bullet.model_copy(
        update={
            "helpful_count": bullet.helpful_count + int(good),
            "harmful_count": bullet.harmful_count + int(not good),
            "sources": (bullet.sources + [source])[-MAX_SOURCES:],
            "updated_at": time.time(),
        }
    )


def retired(bullet: Bullet) -> bool:
    """A strategy or observation that hurt RETIRE_MARGIN runs more than it helped."""
    return bullet.section != "pitfalls" and bullet.harmful_count >= bullet.helpful_count + RETIRE_MARGIN


def over_cap(bullets: list[Bullet], max_bullets: int) -> list[Bullet]:
    """The bullets to drop so that ``max_bullets`` remain: least support (helpful + harmful), then oldest."""
    if len(bullets) <= max_bullets:
        return []
    ranked = sorted(bullets, key=lambda b: (b.helpful_count + b.harmful_count, b.updated_at))
    return ranked[: len(bullets) - max_bullets]
