"""How well confidence separates right from wrong answers: AUROC and the reliability table, by hand,
then in the eval's report."""

from __future__ import annotations

import json

import pytest

from reactgraph.evaluation.calibration import Bucket, auroc, reliability
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import Expectation, Task, shipped_suite
from reactgraph.testing import ScriptedChatModel, tool_call


def test_auroc_counts_the_pairs_a_right_answer_scores_above_a_wrong_one():
    # right: 0.9, 0.6; wrong: 0.7, 0.2. Pairs (right, wrong): 0.9>0.7, 0.9>0.2, 0.6<0.7, 0.6>0.2 -> 3 of 4.
    assert auroc([0.9, 0.6, 0.7, 0.2], [True, True, False, False]) == 0.75


def test_auroc_counts_ties_half():
    # right: 0.5, 0.8; wrong: 0.5. Pairs: tie (0.5), 0.8>0.5 -> (0.5 + 1) / 2.
    assert auroc([0.5, 0.8, 0.5], [True, True, False]) == 0.75
    assert auroc([0.4, 0.4, 0.4], [True, False, False]) == 0.5


def test_auroc_extremes_and_empty_classes():
    assert auroc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auroc([0.1, 0.8, 0.9], [True, False, False]) == 0.0
    assert auroc([0.9, 0.8], [True, True]) is None
    assert auroc([0.1], [False]) is None
    assert auroc([], []) is None


def test_auroc_takes_equal_lengths():
    with pytest.raises(ValueError, match="as many"):
        auroc([0.5], [True, False])


def test_reliability_buckets_by_confidence():
    scores = [0.1, 0.15, 0.5, 0.55, 0.65, 0.95, 1.0, 0.8]
    right = [False, False, True, False, True, True, True, False]
    table = reliability(scores, right)
    assert [b.label for b in table] == ["0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0"]
    assert (table[0].low, table[0].high, table[0].count, table[0].mean_confidence, table[0].right_rate) == (
        0.0, 0.2, 2, pytest.approx(0.125), 0.0
    )
    assert table[1] == Bucket(low=0.2, high=0.4, count=0, mean_confidence=None, right_rate=None)
    assert (table[2].count, table[2].mean_confidence, table[2].right_rate) == (2, pytest.approx(0.525), 0.5)
    assert (table[3].count, table[3].right_rate) == (1, 1.0)
    # 0.8 opens the last bucket and 1.0 closes it
    assert (table[4].count, table[4].mean_confidence, table[4].right_rate) == (3, pytest.approx(0.9167, abs=1e-4), 2 / 3)


def test_reliability_with_other_edges():
    table = reliability([0.2, 0.7], [False, True], edges=(0.0, 0.5, 1.0))
    assert [(b.label, b.count, b.right_rate) for b in table] == [("0.0-0.5", 1, 0.0), ("0.5-1.0", 1, 1.0)]


def test_the_eval_report_has_each_runs_confidence_its_auroc_and_the_table():
    tasks = [
        Task(id="right", category="arithmetic", question="What is 6*7?", tools=["calculator"],
             expect=Expectation(kind="numeric", value=42)),
        Task(id="wrong", category="arithmetic", question="What is 6*8?", tools=["calculator"],
             expect=Expectation(kind="numeric", value=48)),
    ]
    scripts = {
        "right": [tool_call("calculator", {"expression": "6*7"}), "6*7 = 42"],
        "wrong": [tool_call("calculator", {"expression": "6*8"}), "6*8 = 46", "6*8 = 46"],  # the observation says 48; sent back once
    }
    report = run_suite(tasks, lambda task: ScriptedChatModel(responses=scripts[task.id]), shipped_suite(), agents=["reactgraph", "prebuilt"])
    by = {(r.task_id, r.agent): r for r in report.runs}
    assert by["right", "reactgraph"].confidence > by["wrong", "reactgraph"].confidence
    assert by["right", "prebuilt"].confidence is None  # the peers give none
    totals = report.totals("reactgraph")
    assert totals["confidence_auroc"] == 1.0
    assert sum(b["count"] for b in totals["reliability"]) == 2
    assert report.totals("prebuilt")["confidence_auroc"] is None
    data = json.loads(report.to_json())
    assert data["totals"]["reactgraph"]["confidence_auroc"] == 1.0
    assert data["runs"][0]["confidence"] == by["right", "reactgraph"].confidence
    md = report.to_markdown()
    assert "confidence AUROC 1.00 (right vs wrong, 2 answers)" in md
    assert "| confidence | answers | mean confidence | right |" in md
    assert "| reactgraph s | reactgraph confidence | prebuilt correct |" in md.splitlines()[0]
    cells = next(line for line in md.splitlines() if line.startswith("| right |")).strip(" |").split(" | ")
    assert (cells[7], cells[14]) == (f"{by['right', 'reactgraph'].confidence:.2f}", "-")
    assert next(line for line in md.splitlines() if line.startswith("- prebuilt:")).endswith("confidence n/a")
    assert "Confidence by bucket, prebuilt" not in md
