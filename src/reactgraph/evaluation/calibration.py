"""How well a confidence score separates right from wrong answers: AUROC and a reliability table."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

BUCKET_EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


class Bucket(BaseModel):
    """The answers whose confidence lies in [low, high) (the last bucket includes high)."""

    low: float
    high: float
    count: int
    mean_confidence: float | None
    right_rate: float | None

    @property
    def label(self) -> str:
        return f"{self.low:.1f}-{self.high:.1f}"


def auroc(scores: Sequence[float], right: Sequence[bool]) -> float | None:
    """The chance that a right answer scores above a wrong one (Mann-Whitney U over every pair; a
    tie counts half); None when either class is empty."""
    if len(scores) != len(right):
        raise ValueError(f"auroc needs as many scores as labels, got {len(scores)} and {len(right)}")
    good = [s for s, ok in zip(scores, right, strict=True) if ok]
    bad = [s for s, ok in zip(scores, right, strict=True) if not ok]
    if not good or not bad:
        return None
    wins = sum(1.0 if g > b else 0.5 if g == b else 0.0 for g in good for b in bad)
    return wins / (len(good) * len(bad))


def reliability(scores: Sequence[float], right: Sequence[bool], edges: Sequence[float] = BUCKET_EDGES) -> list[Bucket]:
    """One bucket per pair of ``edges``: how many answers, their mean confidence and the share right."""
    pairs = list(zip(scores, right, strict=True))
    buckets = []
    for i, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
        last = i == len(edges) - 2
        inside = [(s, ok) for s, ok in pairs if low <= s < high or (last and s == high)]
        n = len(inside)
        buckets.append(
            Bucket(
                low=low,
                high=high,
                count=n,
                mean_confidence=sum(s for s, _ in inside) / n if n else None,
                right_rate=sum(ok for _, ok in inside) / n if n else None,
            )
        )
    return buckets
