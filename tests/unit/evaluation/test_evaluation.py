"""The evaluation suite: checkers, fault injection, runs on both agents, report totals."""

from __future__ import annotations

import json
import re

import pytest
from langchain_core.messages import ToolMessage

from reactgraph.config import make_config
from reactgraph.evaluation.checkers import check_answer
from reactgraph.evaluation.faults import InjectedFault, inject_fault
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import Expectation, Fault, SuiteError, Task, load_suite, shipped_suite
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools.registry import ToolRegistry

SUITE = shipped_suite()


def test_shipped_suite_loads_and_covers_the_categories():
    tasks = load_suite(SUITE)
    assert len(tasks) >= 40
    categories = {t.category for t in tasks}
    assert {"arithmetic", "percentages", "text", "search", "files", "fault_transient", "fault_permanent",
            "impossible", "multi_tool", "limits"} <= categories
    reasons = {t.expected_reason.value for t in tasks}
    assert {"success", "failure", "max_iterations", "token_budget"} <= reasons
    registry = ToolRegistry.with_builtins(root=SUITE / "files", documents=SUITE / "docs")
    assert {name for t in tasks for name in t.tools} <= set(registry.names())  # every tool a task names exists


@pytest.mark.parametrize(
    ("expect", "answer", "ok"),
    [
        (Expectation(kind="numeric", value=397.8), "17% of 2,340 is 397.8.", True),
        (Expectation(kind="numeric", value=397.8), "It is about 398.", False),
        (Expectation(kind="numeric", value=1750, tolerance=0.5), "1,750 kWh each", True),
        (Expectation(kind="exact", value="Paris"), " paris. ", True),
        (Expectation(kind="exact", value="Paris"), "Paris, France", False),
        (Expectation(kind="contains", value=["q1.txt", "q2.txt"]), "Files: Q1.TXT and q2.txt", True),
        (Expectation(kind="contains", value=["q1.txt", "q2.txt"]), "Files: q1.txt", False),
        (Expectation(kind="none_of", value=["sunny"]), "I cannot know", True),
        (Expectation(kind="check", check="refusal"), "I cannot complete this task: no weather tool.", True),
        (Expectation(kind="check", check="refusal"), "It will be sunny.", False),
        (Expectation(kind="numeric", value=5), None, False),
        (Expectation(kind="numeric", value=1000), "about 1e3 joules", True),
        (Expectation(kind="numeric", value=1), "see q1 and the 2nd table", False),  # digits in a word are no number
        (None, None, True),
    ],
)
def test_checkers(expect, answer, ok):
    assert check_answer(expect, answer) is ok


def test_the_numeric_check_and_the_confidence_read_an_answer_alike():
    """One reading of numbers: an answer the eval counts right for a number is one the confidence finds that
    number in, also written with an exponent (the two had patterns of their own, one without exponents)."""
    from reactgraph.answers.confidence import confidence_of

    state = {"final_answer": "about 1e3 joules", "question": "How much energy?", "termination": {"reason": "success"},
             "steps": [{"observations": [{"tool": "calculator", "status": "ok", "content": "1000"}]}]}
    assert check_answer(Expectation(kind="numeric", value=1000), state["final_answer"])
    assert confidence_of(state).signals["support"].detail == "the number 1E+3 is in a tool result"


def test_bad_suite_file_is_a_clear_error(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"id": "x", "category": "c", "question": "q", "tools": [], "expected_reason": "sucess"}]))
    with pytest.raises(SuiteError, match=r"(?s)a\.json.*expected_reason"):
        load_suite(tmp_path)


def test_transient_fault_fails_then_works():
    registry = ToolRegistry.with_builtins(["calculator"])
    counter = inject_fault(registry, Fault(tool="calculator", mode="transient", failures=2))
    tool = registry.get("calculator").tool
    for _ in range(2):
        with pytest.raises(ConnectionError, match="connection refused"):
            tool.invoke({"expression": "2+2"})
    assert tool.invoke({"expression": "2+2"}) == "4"
    assert counter == {"calls": 3, "failures": 2}


def test_permanent_fault_always_fails():
    registry = ToolRegistry.with_builtins(["calculator"])
    inject_fault(registry, Fault(tool="calculator", mode="permanent"))
    with pytest.raises(InjectedFault):
        registry.get("calculator").tool.invoke({"expression": "1"})


def faulty_task(**kw) -> Task:
    return Task(id="t1", category="fault_transient", question="What is 6*7?", tools=["calculator"],
                expect=Expectation(kind="numeric", value=42), **kw)


def test_suite_run_recovers_from_transient_fault_through_retries(tmp_path):
    task = faulty_task(fault=Fault(tool="calculator", mode="transient", failures=2), config={"tool_execution.initial_delay_seconds": 0})
    model = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*7"}), "6*7 = 42"])
    report = run_suite([task], lambda t: model, SUITE)
    run, = report.runs
    assert run.correct and run.reason == "success" and run.recovered and run.tool_errors == 1
    assert model.calls[0]["tools"] == ["calculator"]  # non-interactive: no ask_user
    totals = report.totals("reactgraph")
    assert totals["recovery_rate"] == 1.0 and totals["reason_right_rate"] == 1.0
    assert totals["iteration_share"] == 2 / 10


@pytest.mark.parametrize("peer", ["prebuilt", "create_agent"])
def test_suite_compares_with_a_peer_and_reports_side_by_side(peer):
    tasks = [
        faulty_task(),
        Task(id="t2", category="impossible", question="Weather?", tools=["calculator"],
             expect=Expectation(kind="check", check="refusal"), expected_reason="failure"),
        Task(id="t3", category="limits", question="Loop", tools=["calculator"], expected_reason="max_iterations",
             config={"max_iterations": 2}),
    ]

    def model_for(task):
        if task.id == "t1":
            return ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*7"}), "42"])
        if task.id == "t2":
            return ScriptedChatModel(responses=["I cannot complete this task: no weather tool."])
        return ScriptedChatModel(
            responses=[lambda m: "partial" if "must stop now" in m[-1].content else tool_call("calculator", {"expression": f"{len(m)}+1"})],
            repeat_last=True,
        )

    seen = []
    report = run_suite(tasks, model_for, SUITE, agents=["reactgraph", peer], progress=lambda r: seen.append((r.task_id, r.agent)))
    assert seen == [(t, agent) for t in ("t1", "t2", "t3") for agent in ("reactgraph", peer)]
    by = {(r.task_id, r.agent): r for r in report.runs}
    assert by["t1", "reactgraph"].correct and by["t1", peer].correct
    assert by["t2", "reactgraph"].reason == "failure" == by["t2", peer].reason
    assert by["t3", "reactgraph"].reason == "max_iterations" and by["t3", "reactgraph"].answer == "partial"
    assert by["t3", peer].reason == "max_iterations" and by["t3", peer].answer is None  # it crashed
    assert "GraphRecursionError" in by["t3", peer].detail
    md = report.to_markdown()
    assert md.splitlines()[0].startswith("| task | reactgraph correct |") and f"{peer} correct" in md
    assert "reactgraph: correct 3/3" in md
    data = json.loads(report.to_json())
    assert data["totals"]["reactgraph"]["reason_right"] == 3 and len(data["runs"]) == 6


def test_turns_meant_to_act_that_made_a_readable_call_are_counted():
    """The 'thoughts that lead to actions' measure: a call to an unknown tool or an unreadable reply is
    a turn that meant to act and did not; a final answer is not such a turn."""
    model = ScriptedChatModel(
        responses=[
            tool_call("calculater", {"expression": "6*7"}),  # no such tool
            "Thought: compute\nAction: calculator for 6 * 7",  # unreadable in the text format
            tool_call("calculator", {"expression": "6*7"}),
            "42",
        ],
        repeat_last=True,
    )
    report = run_suite([faulty_task(fault=None)], lambda t: model, SUITE)
    run, = report.runs
    assert (run.acting_turns, run.acted_turns, run.correct) == (3, 1, True)
    assert report.totals("reactgraph")["acted_rate"] == 1 / 3
    assert "turns meant to act that made a readable call 33% of 3" in report.to_markdown()


def test_answers_sent_back_to_be_checked_are_counted_and_the_steps_kept():
    """With answer_checks on, an answer given with no tool call is sent back once: the run records the
    check, and its steps keep what was called with which arguments and what came back."""
    model = ScriptedChatModel(responses=["41", tool_call("calculator", {"expression": "6*7"}), "42"])
    report = run_suite([faulty_task(fault=None)], lambda t: model, SUITE, overrides={"answer_checks": 1})
    run, = report.runs
    assert run.correct and run.checks == 1
    assert [s["kind"] for s in run.steps] == ["check", "tools", "final"]
    assert run.steps[1]["calls"] == [{"tool": "calculator", "args": {"expression": "6*7"}}]
    assert run.steps[1]["results"][0]["status"] == "ok" and "42" in run.steps[1]["results"][0]["content"]
    assert report.totals("reactgraph")["checks"] == 1 and "answers sent back to be checked 1" in report.to_markdown()


def test_eval_command_through_the_cli_writes_reports(tmp_path, monkeypatch, capsys):
    from reactgraph import cli

    args = ["eval", "--only", "arith-mul,text-upper", "--out", str(tmp_path), "--set", "max_iterations=4",
            "--model", "tests.unit.evaluation.test_evaluation:answers_10063"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "reactgraph: correct 1/2" in out  # arith-mul is right, text-upper is not
    assert "reactgraph arith-mul: ok (success" in out  # not a terminal: a line per run
    data = json.loads((tmp_path / "eval.json").read_text())
    assert [(r["task_id"], r["correct"], r["max_iterations"]) for r in data["runs"]] == [("arith-mul", True, 4), ("text-upper", False, 4)]
    assert "reactgraph eval --model tests.unit.evaluation.test_evaluation:answers_10063 --repeat 1 --set max_iterations=4" in (tmp_path / "eval.md").read_text()


def test_eval_command_rejects_a_bad_setting(tmp_path):
    from reactgraph import cli

    model = ["--model", "tests.unit.evaluation.test_evaluation:answers_10063"]
    assert cli.main(["eval", "--set", "max_iterations=0", "--out", str(tmp_path), *model]) == 2
    assert cli.main(["eval", "--suite", str(tmp_path / "missing"), "--out", str(tmp_path), *model]) == 2
    assert cli.main(["eval", "--set", "tool_calling", "--out", str(tmp_path), *model]) == 2


def answers_10063() -> ScriptedChatModel:
    """A model factory for the CLI: answers every question with 10063."""
    return ScriptedChatModel(responses=["10063"], repeat_last=True)


def test_eval_model_on_a_base_url_caps_its_replies():
    """An OpenAI-compatible server (llama.cpp, vLLM) reads ``max_tokens``: the request carries the cap."""
    pytest.importorskip("langchain_openai")
    from reactgraph.commands.evaluate import build_model

    model = build_model("openai:qwen", "http://127.0.0.1:9/v1", make_config(max_output_tokens=200, temperature=0.0))
    payload = model._get_request_payload([("user", "hi")])
    assert (payload["model"], payload["temperature"], payload["extra_body"]) == ("qwen", 0.0, {"max_tokens": 200})
    uncapped = build_model("openai:qwen", "http://127.0.0.1:9/v1", make_config(max_output_tokens=None))
    assert "extra_body" not in uncapped._get_request_payload([("user", "hi")])


def test_eval_runs_chosen_agents_and_reports_a_baseline_beside_them(tmp_path, capsys):
    """--agents prebuilt runs only the prebuilt agent; --baseline puts its saved runs beside a later run."""
    from reactgraph import cli

    model = ["--model", "tests.unit.evaluation.test_evaluation:answers_10063", "--only", "arith-mul,text-upper"]
    assert cli.main(["eval", "--agents", "prebuilt", "--out", str(tmp_path / "base"), *model]) == 0
    saved = json.loads((tmp_path / "base" / "eval.json").read_text())
    assert {r["agent"] for r in saved["runs"]} == {"prebuilt"}
    args = ["eval", "--baseline", str(tmp_path / "base" / "eval.json"), "--out", str(tmp_path / "new"), *model]
    assert cli.main(args) == 0
    both = json.loads((tmp_path / "new" / "eval.json").read_text())
    assert [(r["agent"], r["task_id"]) for r in both["runs"]] == [
        ("reactgraph", "arith-mul"), ("reactgraph", "text-upper"), ("prebuilt", "arith-mul"), ("prebuilt", "text-upper")
    ]
    assert set(both["totals"]) == {"reactgraph", "prebuilt"} and both["totals"]["prebuilt"]["correct"] == 1
    assert "--baseline" in (tmp_path / "new" / "eval.md").read_text()
    assert cli.main(["eval", "--agents", "nobody", "--out", str(tmp_path), *model]) == 2
    assert cli.main(["eval", "--agents", "prebuilt", "--compare", "prebuilt", "--out", str(tmp_path), *model]) == 2
    (tmp_path / "junk.json").write_text("{not json")
    assert cli.main(["eval", "--baseline", str(tmp_path / "junk.json"), "--out", str(tmp_path), *model]) == 2
    assert "not a readable eval.json" in capsys.readouterr().err


def test_answers_that_copy_an_error_are_refused_and_counted_for_both_agents():
    """reactgraph sends a copied error back (and counts the refusal); a final answer that is a copy
    is counted for either agent."""
    error_copy = "Error (tool_not_found): there is no tool 'calculater'."

    def model_for(task):
        return ScriptedChatModel(responses=[tool_call("calculater", {"expression": "6*7"}), error_copy, "6*7 is 42", "6*7 is 42"])  # checked once

    report = run_suite([faulty_task(config={"summary_every": 0})], model_for, SUITE, agents=["reactgraph", "prebuilt"])
    ours, prebuilt = report.runs
    assert (ours.correct, ours.non_answer_replies, ours.copied_answer) == (True, 1, False)
    assert prebuilt.answer == error_copy and prebuilt.copied_answer and not prebuilt.correct
    assert report.totals("prebuilt")["copied_answers"] == 1 and report.totals("reactgraph")["non_answer_replies"] == 1
    assert "final answers that are no answer (empty, a copied error or budget line) 1" in report.to_markdown()


def test_eval_compares_with_langchains_create_agent(tmp_path):
    from reactgraph import cli

    model = ["--model", "tests.unit.evaluation.test_evaluation:answers_10063", "--only", "arith-mul"]
    assert cli.main(["eval", "--compare", "create_agent", "--out", str(tmp_path), *model]) == 0
    report = json.loads((tmp_path / "eval.json").read_text())
    assert [(r["agent"], r["task_id"]) for r in report["runs"]] == [("reactgraph", "arith-mul"), ("create_agent", "arith-mul")]
    assert "--compare create_agent" in (tmp_path / "eval.md").read_text()


def test_the_cli_offers_the_peers_the_runner_runs():
    """--compare takes the names of evaluation.peers, the runner's one list (read without loading the peers)."""
    from reactgraph import cli
    from reactgraph.evaluation.runner import RUNNERS

    compare = next(a for a in cli.parser()._subparsers._group_actions[0].choices["eval"]._actions if a.dest == "compare")
    assert list(compare.choices) == [name for name in RUNNERS if name != "reactgraph"] == ["prebuilt", "create_agent"]


def sums_model() -> ScriptedChatModel:
    """A model factory for the CLI: calls calculator with the question's two numbers, then answers with the result."""

    def reply(messages):
        if isinstance(messages[-1], ToolMessage) or "Observation" in str(messages[-1].content):
            return f"The sum is {messages[-1].content}."
        a, b = re.findall(r"\d+", messages[1].content)[:2]
        return tool_call("calculator", {"expression": f"{a}+{b}"}, thought="Add the numbers.")

    return ScriptedChatModel(responses=[reply], repeat_last=True)


def test_eval_learn_fills_a_playbook_on_one_half_and_measures_the_other_with_it(tmp_path, capsys):
    from reactgraph import cli

    tasks = [
        {"id": f"sum-{a}-{b}", "category": "sums", "question": f"What is the sum of {a} and {b}?", "tools": ["calculator"],
         "expected_reason": "success", "expect": {"kind": "numeric", "value": a + b}}
        for a, b in ((2, 3), (4, 5), (6, 7), (8, 9))
    ]
    (tmp_path / "suite.json").write_text(json.dumps(tasks))
    (tmp_path / "files").mkdir()
    (tmp_path / "docs").mkdir()
    common = ["--suite", str(tmp_path / "suite.json"), "--model", "tests.unit.evaluation.test_evaluation:sums_model"]
    assert cli.main(["eval", "--learn", "--out", str(tmp_path / "learn"), *common]) == 0
    data = json.loads((tmp_path / "learn" / "eval.json").read_text())
    assert [(r["agent"], r["task_id"], r["correct"]) for r in data["runs"]] == [
        ("reactgraph+playbook", "sum-4-5", True), ("reactgraph+playbook", "sum-8-9", True)
    ]
    first, second = (r["playbook"] for r in data["runs"])
    assert first == ["calculator(expression=…), then answered (2 turns)."]  # the run's shape, not its question
    assert second == first  # questions that differ only in their numbers make one bullet, counted by run
    assert "learning pass: 2/2 right" in capsys.readouterr().out
    [saved] = json.loads((tmp_path / "learn" / "playbook.json").read_text())["bullets"]
    assert (saved["helpful_count"], saved["runs"], saved["tool_sequence"]) == (4, 4, ["calculator"])
    assert "Playbook bullets shown:" in (tmp_path / "learn" / "eval.md").read_text()
    assert cli.main(["eval", "--held-out", "--out", str(tmp_path / "base"), *common]) == 0
    base = json.loads((tmp_path / "base" / "eval.json").read_text())
    assert [(r["agent"], r["task_id"], r["playbook"]) for r in base["runs"]] == [
        ("reactgraph", "sum-4-5", []), ("reactgraph", "sum-8-9", [])
    ]
    assert cli.main(["eval", "--learn", "--repeat", "2", "--out", str(tmp_path / "x"), *common]) == 2


def test_a_missed_run_s_model_text_is_no_reference_link_in_the_report():
    """A reply like ``[Fennel] [Street]`` reads as a Markdown reference link, which the docs site's strict build (it
    holds every report under benchmarks/) refuses: the report escapes the model's brackets."""
    import markdown

    model = ScriptedChatModel(responses=["Thought: [Fennel] [Street]\nFinal Answer: [Fennel] [Street]"], repeat_last=True)
    task = faulty_task(fault=None)
    report = run_suite([task], lambda t: model, SUITE)
    md = report.to_markdown()
    assert "\\[Fennel\\] \\[Street\\]" in md and "[Fennel] [Street]" not in md.replace("\\[", "").replace("\\]", "")
    html = markdown.markdown(md)
    assert "[Fennel] [Street]" in html  # shown as written, as text
