"""Suite results: per-task rows and totals per agent, as a table, JSON and Markdown."""

from __future__ import annotations

import json
import statistics
from typing import Any

from pydantic import BaseModel

from reactgraph.evaluation.calibration import auroc, reliability

# The seed criteria the suite measures against.
REASON_RIGHT_GOAL = 0.95
RECOVERY_GOAL = 0.80
ITERATION_SHARE_GOAL = 0.50


class TaskRun(BaseModel):
    """One task run by one agent, with what was measured."""

    task_id: str
    category: str
    agent: str
    correct: bool
    reason: str
    expected_reason: str
    reason_ok: bool
    iterations: int
    max_iterations: int
    tool_errors: int
    faulted: bool
    recovered: bool
    tokens: int
    seconds: float
    answer: str | None
    detail: str = ""
    acting_turns: int = 0  # turns that did not end the run with an answer (reactgraph) / had tool calls (prebuilt)
    acted_turns: int = 0  # ... with at least one readable call to a tool on offer
    copied_answer: bool = False  # the final answer is empty or repeats an error message or the budget line
    non_answer_replies: int = 0  # replies refused as no answer during the run (reactgraph only)
    confidence: float | None = None  # result.confidence (reactgraph only; None without an answer)
    playbook: list[str] = []  # the playbook bullets shown in the run's prompt (eval --learn)
    checks: int = 0  # final answers sent back to be checked with a tool (answer_checks; reactgraph only)
    steps: list[dict[str, Any]] = []  # the run's trace, shortened: kind, thought, calls, results (reactgraph only)
    fired: list[dict[str, Any]] = []  # the reply checks that acted, each with what letting the reply through gave (evaluation.checks)
    problems: list[str] = []  # what went wrong, turn by turn (evaluation.judging; reactgraph only): empty when right


class SuiteReport(BaseModel):
    """All runs of a suite, with totals per agent."""

    runs: list[TaskRun]

    def agents(self) -> list[str]:
        return list(dict.fromkeys(r.agent for r in self.runs))

    def totals(self, agent: str) -> dict[str, Any]:
        """Counts and rates for one agent; ``goals`` says which seed criteria hold."""
        runs = [r for r in self.runs if r.agent == agent]
        faulted = [r for r in runs if r.faulted]
        succeeded = [r for r in runs if r.reason == "success" and r.correct]
        n = len(runs) or 1
        totals: dict[str, Any] = {
            "runs": len(runs),
            "correct": sum(r.correct for r in runs),
            "correct_rate": sum(r.correct for r in runs) / n,
            "reason_right": sum(r.reason_ok for r in runs),
            "reason_right_rate": sum(r.reason_ok for r in runs) / n,
            "faulted": len(faulted),
            "recovered": sum(r.recovered for r in faulted),
            "recovery_rate": sum(r.recovered for r in faulted) / len(faulted) if faulted else None,
            "iteration_share": statistics.mean(r.iterations / r.max_iterations for r in succeeded) if succeeded else None,
            "acting_turns": (acting := sum(r.acting_turns for r in runs)),
            "acted_rate": sum(r.acted_turns for r in runs) / acting if acting else None,
            "copied_answers": sum(r.copied_answer for r in runs),
            "non_answer_replies": sum(r.non_answer_replies for r in runs),
            "checks": sum(r.checks for r in runs),
            "tool_errors": sum(r.tool_errors for r in runs),
            "tokens": sum(r.tokens for r in runs),
            "seconds": round(sum(r.seconds for r in runs), 2),
            "iterations_per_right": statistics.mean(r.iterations for r in runs if r.correct) if any(r.correct for r in runs) else None,
        }
        scored = [r for r in runs if r.confidence is not None]
        scores, right = [r.confidence for r in runs if r.confidence is not None], [r.correct for r in scored]
        totals["confidence_answers"] = len(scored)
        totals["confidence_auroc"] = auroc(scores, right)
        totals["reliability"] = [b.model_dump() | {"label": b.label} for b in reliability(scores, right)] if scored else []
        totals["goals"] = {
            "reason_right>=95%": totals["reason_right_rate"] >= REASON_RIGHT_GOAL,
            "recovery>=80%": totals["recovery_rate"] is not None and totals["recovery_rate"] >= RECOVERY_GOAL,
            "iterations<50%": totals["iteration_share"] is not None and totals["iteration_share"] < ITERATION_SHARE_GOAL,
        }
        return totals

    def to_json(self) -> str:
        return json.dumps(
            {"totals": {a: self.totals(a) for a in self.agents()}, "runs": [r.model_dump() for r in self.runs]}, indent=2
        )

    def rows(self) -> list[list[str]]:
        """One row per task: for each agent, correct / reason / iterations / errors / tokens / seconds / confidence."""
        by_task: dict[str, dict[str, TaskRun]] = {}
        for run in self.runs:
            by_task.setdefault(run.task_id, {})[run.agent] = run
        rows = []
        for task_id, per_agent in by_task.items():
            row = [task_id]
            for agent in self.agents():
                r = per_agent.get(agent)
                row += (
                    [
                        "yes" if r.correct else "no",
                        r.reason if r.reason_ok else f"{r.reason} (want {r.expected_reason})",
                        f"{r.iterations}/{r.max_iterations}",
                        str(r.tool_errors),
                        str(r.tokens),
                        f"{r.seconds:.1f}",
                        _share(r.confidence, "{:.2f}"),
                    ]
                    if r
                    else ["-"] * 7
                )
            rows.append(row)
        return rows

    def headers(self) -> list[str]:
        cols = ["correct", "reason", "iters", "tool errors", "tokens", "s", "confidence"]
        return ["task"] + [f"{a} {c}" for a in self.agents() for c in cols]

    def total_lines(self) -> list[str]:
        lines = []
        for agent in self.agents():
            t = self.totals(agent)
            recovery = f"{t['recovered']}/{t['faulted']}" if t["faulted"] else "n/a"
            share = f"{t['iteration_share']:.0%}" if t["iteration_share"] is not None else "n/a"
            acted = f"{t['acted_rate']:.0%} of {t['acting_turns']}" if t["acted_rate"] is not None else "n/a"
            lines.append(
                f"{agent}: correct {t['correct']}/{t['runs']} ({t['correct_rate']:.0%}), "
                f"termination reason right {t['reason_right']}/{t['runs']} ({t['reason_right_rate']:.0%}), "
                f"tool-fault tasks recovered {recovery}, iterations used by correct answers {share} of max "
                f"({_share(t['iterations_per_right'], '{:.2f}')} per right answer), "
                f"turns meant to act that made a readable call {acted}, "
                f"final answers that are no answer (empty, a copied error or budget line) {t['copied_answers']}, "
                f"replies refused as no answer {t['non_answer_replies']}, "
                f"answers sent back to be checked {t['checks']}, "
                f"tool errors {t['tool_errors']}, tokens {t['tokens']}, {t['seconds']} s, {confidence_text(t)}"
            )
        return lines

    def reliability_rows(self, agent: str) -> list[list[str]]:
        """The agent's reliability table (confidence bucket, answers, mean confidence, share right);
        empty when its runs gave no confidence."""
        return [
            [b["label"], str(b["count"]), _share(b["mean_confidence"], "{:.2f}"), _share(b["right_rate"], "{:.0%}")]
            for b in self.totals(agent)["reliability"]
        ]

    def to_markdown(self) -> str:
        head = self.headers()
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(row) + " |" for row in self.rows()]
        out += [""] + [f"- {line}" for line in self.total_lines()]
        for agent in self.agents():
            if rows := self.reliability_rows(agent):
                out += ["", f"Confidence by bucket, {agent}:", "", "| " + " | ".join(RELIABILITY_HEADERS) + " |", "|---|---|---|---|"]
                out += ["| " + " | ".join(row) + " |" for row in rows]
        if missed := [r for r in self.runs if r.problems]:
            out += ["", "What went wrong:", ""]
            out += [line for r in missed for line in miss_lines(r)]
        if used := [r for r in self.runs if r.playbook]:
            out += ["", "Playbook bullets shown:", ""]
            out += [f"- {r.agent} {r.task_id}: " + " / ".join(f"`{b}`" for b in r.playbook) for r in used]
        return "\n".join(out)


RELIABILITY_HEADERS = ("confidence", "answers", "mean confidence", "right")


def miss_lines(run: TaskRun, cut: int = 160) -> list[str]:
    """A missed run for the report: each problem, then the run's steps (turn, kind, the model's words, its calls, what
    they gave) and the reply checks that acted."""
    lines = [f"- {run.agent} `{run.task_id}`: " + plain("; ".join(run.problems))]
    for step in run.steps:
        turn = f"turn {step['turn']} " if "turn" in step else ""
        said = " ".join(str(step.get("thought", "")).split())[:cut]
        calls = ", ".join(f"{c['tool']}({_args(c['args'])})" for c in step.get("calls", []))
        gave = " / ".join(" ".join(str(r["content"]).split())[:cut] for r in step.get("results", []))
        checks = ", ".join(f"{c['check']}: {c['decision']}" for c in step.get("checks", []))
        parts = [f"said {said!r}" if said else "", f"called {calls}" if calls else "", f"got {gave!r}" if gave else "",
                 f"checks {checks}" if checks else ""]
        lines.append(f"  - {turn}{step['kind']}: " + plain("; ".join(p for p in parts if p)))
    return lines


def plain(text: str) -> str:
    """Model-written text for Markdown: its brackets escaped, so ``[Fennel] [Street]`` is no reference link (the docs
    site's strict build refuses one it cannot resolve)."""
    return text.replace("[", "\\[").replace("]", "\\]")


def _args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


def confidence_text(totals: dict[str, Any]) -> str:
    """How well confidence separated right from wrong answers, for the totals line."""
    answers = totals["confidence_answers"]
    if not answers:
        return "confidence n/a"
    if totals["confidence_auroc"] is None:
        return f"confidence AUROC n/a (right vs wrong: one of them is missing among {answers} answers)"
    return f"confidence AUROC {totals['confidence_auroc']:.2f} (right vs wrong, {answers} answers)"


def _share(value: float | None, form: str) -> str:
    return "-" if value is None else form.format(value)
