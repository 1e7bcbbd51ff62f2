"""Each reply check's gain, read from eval traces (reactgraph.evaluation.checks): a check that sent an answer back is
scored by what that answer would have given, a rewrite on BFCL by the calls as the model made them, and the rest is
left to an ablation; benchmarks/check_gains.py turns eval outputs into the table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reactgraph.evaluation.bfcl.checks import entry_firings
from reactgraph.evaluation.bfcl.entries import load_category
from reactgraph.evaluation.checks import CheckGain, Firing, ablated, gains, markdown
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import Expectation, Task, shipped_suite
from reactgraph.testing import ScriptedChatModel, tool_call

ROOT = Path(__file__).resolve().parents[3]
TASK = Task(id="mult", category="arithmetic", question="What is 6*7?", tools=["calculator"], expect=Expectation(kind="numeric", value=42))


def run(*script):
    return run_suite([TASK], lambda t: ScriptedChatModel(responses=list(script)), shipped_suite()).runs[0]


def test_a_sent_back_answer_is_scored_as_the_run_would_have_ended_with_it():
    turned = run("41", tool_call("calculator", {"expression": "6*7"}), "42")
    assert turned.correct and turned.fired[0]["check"] == "unsupported_number" and turned.fired[0]["if_let_through"] is False
    assert turned.fired[0]["tokens_after"] > 0
    spoiled = run("42", tool_call("calculator", {"expression": "6*8"}), "48")
    assert not spoiled.correct and spoiled.fired[0]["if_let_through"] is True
    rows = gains([Firing(task=r.task_id + str(i), right=r.correct, **{k: f[k] for k in ("check", "decision", "if_let_through", "tokens_after")})
                  for i, r in enumerate((turned, spoiled)) for f in r.fired])
    assert [(g.check, g.fired, g.tasks, g.wrong_to_right, g.right_to_wrong, g.net) for g in rows] == [("unsupported_number", 2, 2, 1, 1, 0)]


def test_firings_the_trace_cannot_score_are_counted_apart_and_an_ablation_settles_them():
    found = [Firing(check="premature_call", decision="rewrite", task=t, right=r) for t, r in (("a", True), ("b", False), ("c", True))]
    gain, = gains(found)
    assert (gain.fired, gain.unscored, gain.wrong_to_right, gain.right_to_wrong) == (3, 3, 0, 0)
    settled = ablated(gain, {"a": True, "b": False, "c": True}, {"a": False, "b": False, "c": True})
    assert (settled.wrong_to_right, settled.right_to_wrong, settled.unscored, settled.source) == (1, 0, 0, "ablation")
    assert "| `premature_call` | 3 | 3 | 1 | 0 | +1 | 0 |" in markdown([settled])


def test_a_task_counts_once_per_check_however_often_it_fired():
    found = [Firing(check="no_answer", decision="send_back", task="a", right=True, if_let_through=False, tokens_after=t) for t in (50, 20)]
    assert gains(found) == [CheckGain(check="no_answer", fired=2, tasks=1, wrong_to_right=1, tokens_after=50)]


def test_on_bfcl_a_sent_back_answer_means_no_call_and_a_rewrite_the_calls_as_made():
    simple = load_category("simple_python")[0]
    truth = simple.ground_truth[0]
    name, args = next(iter(truth.items()))
    right_call = {"name": name, "args": {k: v[0] for k, v in args.items()}}
    record = {"executed_step": 1, "checks": [
        {"check": "no_answer", "decision": "send_back", "reply": "answer", "step": 0, "answer": "x", "calls": [], "tokens_after": 9},
        {"check": "fan_out", "decision": "rewrite", "reply": "calls", "step": 1, "answer": None, "calls": [right_call], "tokens_after": 0},
    ]}
    sent, fanned = entry_firings(simple, record, right=False)
    assert (sent.if_let_through, fanned.if_let_through) == (False, True)  # no call is wrong here; the call as made was right
    irrelevant = load_category("irrelevance")[0]
    assert entry_firings(irrelevant, {"executed_step": None, "checks": record["checks"][:1]}, right=False)[0].if_let_through is True


def test_the_benchmark_script_makes_the_table_from_an_eval_json(tmp_path):
    report = run_suite([TASK], lambda t: ScriptedChatModel(responses=["41", tool_call("calculator", {"expression": "6*7"}), "42"]), shipped_suite())
    (tmp_path / "eval.json").write_text(report.to_json())
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "check_gains.py"), "--suite", str(tmp_path / "eval.json")],
                         capture_output=True, text=True, check=True).stdout
    assert "| `unsupported_number` | 1 | 1 | 1 | 0 | +1 | 0 |" in out and "**all of them**" in out
    assert json.loads(report.to_json())["runs"][0]["fired"][0]["check"] == "unsupported_number"
