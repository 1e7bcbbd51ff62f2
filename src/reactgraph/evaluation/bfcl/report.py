"""A BFCL eval's report: every record scored with BFCL's checker, then per category and agent the accuracy (the
first calls executed; beside it the first reply's, which a multi-turn category has not), the entries, tokens,
seconds and errors; as JSON, Markdown and a chart. The records alone make the report: a report is made again from ``bfcl.jsonl`` without a model."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.runs import Record
from reactgraph.evaluation.bfcl.scoring import score


@dataclass(frozen=True)
class Scored:
    """One record with its verdicts."""

    agent: str
    id: str
    category: str
    right: bool
    first_reply_right: bool | None  # None: a multi-turn entry, judged on its whole conversation only
    error_type: str
    error: str
    tokens: int
    seconds: float
    crashed: bool


@dataclass(frozen=True)
class Totals:
    category: str
    agent: str
    entries: int
    right: int
    first_reply_right: int | None
    tokens: int
    seconds: float
    errors: int

    @property
    def accuracy(self) -> float:
        return self.right / self.entries if self.entries else 0.0

    @property
    def first_reply_accuracy(self) -> float | None:
        if self.first_reply_right is None:
            return None
        return self.first_reply_right / self.entries if self.entries else 0.0


def scored(entries: list[Entry], records: list[Record]) -> list[Scored]:
    """The records of ``entries`` (others are left out), each judged, in the entries' order."""
    by_id = {e.id: e for e in entries}
    order = {entry_id: i for i, entry_id in enumerate(by_id)}
    out = []
    for record in sorted((r for r in records if r["id"] in by_id), key=lambda r: order[r["id"]]):
        entry = by_id[record["id"]]
        verdict = score(entry, record["calls"])
        first = record.get("first_reply_calls")
        out.append(
            Scored(
                agent=record["agent"],
                id=record["id"],
                category=record["category"],
                right=verdict.valid and not record.get("error"),
                first_reply_right=None if first is None else (score(entry, first).valid and not record.get("error")),
                error_type="crashed" if record.get("error") else verdict.error_type,
                error=record.get("error") or verdict.error,
                tokens=int(record.get("tokens") or 0),
                seconds=float(record.get("seconds") or 0.0),
                crashed=bool(record.get("error")),
            )
        )
    return out


class BfclReport:
    """The scored records, with totals per (category, agent) in the order they were first met."""

    def __init__(self, runs: list[Scored], agents: list[str]) -> None:
        self.runs = runs
        self.agents = [a for a in agents if any(r.agent == a for r in runs)]
        self.categories = list(dict.fromkeys(r.category for r in runs))

    def totals(self, category: str, agent: str) -> Totals:
        runs = [r for r in self.runs if r.category == category and r.agent == agent]
        return Totals(
            category=category,
            agent=agent,
            entries=len(runs),
            right=sum(r.right for r in runs),
            first_reply_right=(
                None if any(r.first_reply_right is None for r in runs) else sum(bool(r.first_reply_right) for r in runs)
            ),
            tokens=sum(r.tokens for r in runs),
            seconds=round(sum(r.seconds for r in runs), 1),
            errors=sum(r.crashed for r in runs),
        )

    def table(self) -> list[Totals]:
        return [self.totals(c, a) for c in self.categories for a in self.agents]

    HEADERS = ("category", "agent", "accuracy", "first reply", "entries", "tokens", "seconds", "errors")

    def rows(self) -> list[list[str]]:
        return [
            [
                t.category, t.agent, f"{t.accuracy:.1%} ({t.right}/{t.entries})",
                "n/a" if t.first_reply_accuracy is None else f"{t.first_reply_accuracy:.1%}", str(t.entries), str(t.tokens), f"{t.seconds:.0f}", str(t.errors),
            ]
            for t in self.table()
        ]

    def to_json(self) -> str:
        return json.dumps(
            {
                "totals": [asdict(t) | {"accuracy": t.accuracy, "first_reply_accuracy": t.first_reply_accuracy} for t in self.table()],
                "runs": [asdict(r) for r in self.runs],
            },
            indent=2,
        )

    def to_markdown(self) -> str:
        out = ["| " + " | ".join(self.HEADERS) + " |", "|" + "---|" * len(self.HEADERS)]
        out += ["| " + " | ".join(row) + " |" for row in self.rows()]
        out += ["", "Per entry (right, or BFCL's error type):", ""]
        out += ["| entry | " + " | ".join(self.agents) + " |", "|" + "---|" * (len(self.agents) + 1)]
        by_entry: dict[str, dict[str, Scored]] = {}
        for run in self.runs:
            by_entry.setdefault(run.id, {})[run.agent] = run
        for entry_id, per_agent in by_entry.items():
            cells = [_cell(per_agent.get(agent)) for agent in self.agents]
            out.append(f"| {entry_id} | " + " | ".join(cells) + " |")
        return "\n".join(out)


def _cell(run: Scored | None) -> str:
    if run is None:
        return "-"
    return "right" if run.right else (run.error_type or "wrong")


def summary(report: BfclReport) -> dict[str, Any]:
    """Accuracy by category and agent, as the chart draws it."""
    return {c: {a: report.totals(c, a).accuracy for a in report.agents} for c in report.categories}
