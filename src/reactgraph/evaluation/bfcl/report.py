"""A BFCL eval's report: every record scored with BFCL's checker, then per category and agent the accuracy (the
first calls executed; beside it the first reply's, which a multi-turn category has not), the entries, what the model
calls cost (calls, prompt and completion tokens, model seconds per entry and per right answer; with a server log the
prompt tokens evaluated per call and the share the server's prompt cache served: ``calls.Replies``), the seconds and
errors; as JSON, Markdown and a chart. The records alone make the report: a report is made again from ``bfcl.jsonl``
without a model. A record made before calls were measured has its calls counted and no tokens or seconds of them."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.runs import Record
from reactgraph.evaluation.bfcl.scoring import Verdict, score


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
    calls: int = 0  # model calls
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0  # the model calls' seconds, start to reply
    evaluated: int | None = None  # prompt tokens the server evaluated, of the calls its log tells (None: none does)
    evaluated_of: int = 0  # the prompt tokens of those calls
    evaluated_calls: int = 0


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
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    evaluated: int | None = None
    evaluated_of: int = 0
    evaluated_calls: int = 0

    @property
    def model_seconds_per_entry(self) -> float:
        return self.model_seconds / self.entries if self.entries else 0.0

    @property
    def model_seconds_per_right(self) -> float | None:
        return self.model_seconds / self.right if self.right else None

    @property
    def evaluated_per_call(self) -> float | None:
        return None if self.evaluated is None else self.evaluated / max(self.evaluated_calls, 1)

    @property
    def cache_share(self) -> float | None:
        """The share of the prompt tokens the server's cache served, of the calls its log tells."""
        return None if self.evaluated is None or not self.evaluated_of else 1 - self.evaluated / self.evaluated_of

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
        if not verdict.valid and not record["calls"] and (decoder := record.get("decode_error")):
            verdict = Verdict(False, decoder["type"], decoder["error"])  # the bare model's reply did not decode
        first = record.get("first_reply_calls")
        made = model_calls(record)
        told = [c for c in made if c.get("evaluated") is not None]
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
                calls=len(made),
                prompt_tokens=sum(c.get("input_tokens", 0) for c in made),
                completion_tokens=sum(c.get("output_tokens", 0) for c in made),
                model_seconds=round(sum(c.get("seconds", 0.0) for c in made), 3),
                evaluated=sum(c["evaluated"] for c in told) if told else None,
                evaluated_of=sum(c.get("input_tokens", 0) for c in told),
                evaluated_calls=len(told),
            )
        )
    return out


def model_calls(record: Record) -> list[dict[str, Any]]:
    """The model calls of a record: its replies, or a multi-turn entry's, turn by turn."""
    if record.get("turns"):
        return [reply for turn in record["turns"] for reply in turn.get("replies") or []]
    return list(record.get("replies") or [])


class BfclReport:
    """The scored records, with totals per (category, agent) in the order they were first met."""

    def __init__(self, runs: list[Scored], agents: list[str]) -> None:
        self.runs = runs
        self.agents = [a for a in agents if any(r.agent == a for r in runs)]
        self.categories = list(dict.fromkeys(r.category for r in runs))

    def totals(self, category: str, agent: str) -> Totals:
        runs = [r for r in self.runs if r.category == category and r.agent == agent]
        told = [r for r in runs if r.evaluated is not None]
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
            calls=sum(r.calls for r in runs),
            prompt_tokens=sum(r.prompt_tokens for r in runs),
            completion_tokens=sum(r.completion_tokens for r in runs),
            model_seconds=round(sum(r.model_seconds for r in runs), 1),
            evaluated=sum(r.evaluated or 0 for r in told) if told else None,
            evaluated_of=sum(r.evaluated_of for r in told),
            evaluated_calls=sum(r.evaluated_calls for r in told),
        )

    def table(self) -> list[Totals]:
        return [self.totals(c, a) for c in self.categories for a in self.agents]

    HEADERS = (
        "category", "agent", "accuracy", "first reply", "entries", "model calls", "prompt tokens", "completion tokens",
        "model s / entry", "model s / right", "evaluated / call", "cache share", "seconds", "errors",
    )

    def rows(self) -> list[list[str]]:
        return [
            [
                t.category, t.agent, f"{t.accuracy:.1%} ({t.right}/{t.entries})",
                "n/a" if t.first_reply_accuracy is None else f"{t.first_reply_accuracy:.1%}", str(t.entries),
                str(t.calls), f"{t.prompt_tokens:,}", f"{t.completion_tokens:,}", f"{t.model_seconds_per_entry:.1f}",
                _figure(t.model_seconds_per_right, ".1f"), _figure(t.evaluated_per_call, ",.0f"), _figure(t.cache_share, ".0%"),
                f"{t.seconds:.0f}", str(t.errors),
            ]
            for t in self.table()
        ]

    def to_json(self) -> str:
        figures = ("accuracy", "first_reply_accuracy", "model_seconds_per_entry", "model_seconds_per_right",
                   "evaluated_per_call", "cache_share")
        return json.dumps(
            {
                "totals": [asdict(t) | {name: getattr(t, name) for name in figures} for t in self.table()],
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


def _figure(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def _cell(run: Scored | None) -> str:
    if run is None:
        return "-"
    return "right" if run.right else (run.error_type or "wrong")


def summary(report: BfclReport) -> dict[str, Any]:
    """Accuracy by category and agent, as the chart draws it."""
    return {c: {a: report.totals(c, a).accuracy for a in report.agents} for c in report.categories}
