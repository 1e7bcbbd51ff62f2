"""The walkthrough suite and the runner's paths it needs: follow-up turns, a clarification answered, an approval
resumed, the served graph, and the command line (run, resume, chat) driven in-process. Each path is run on a scripted
model that gets the task right and on one that gets it wrong, and the verdict must tell them apart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from pydantic import ValidationError

from reactgraph import cli
from reactgraph.evaluation.report import SuiteReport
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import SHIPPED, Task, load_suite, shipped_suite, suite_path
from reactgraph.loading import load_object
from reactgraph.models.tokens import message_text
from reactgraph.testing import SENT_EMAILS, ScriptedChatModel, tool_call

ROOT = Path(__file__).resolve().parents[3]
WALKTHROUGH = shipped_suite("walkthrough")


# -- scripted models -----------------------------------------------------------------------------------


def question_of(messages: list[BaseMessage]) -> str:
    return next(message_text(m) for m in messages if isinstance(m, HumanMessage))


def results_of(messages: list[BaseMessage]) -> list[str]:
    return [message_text(m) for m in messages if isinstance(m, ToolMessage)]


def is_notes(messages: list[BaseMessage]) -> bool:
    return "You keep the" in message_text(messages[0])


def percent_reply(doubled: str):
    """17% of 2,340 with percent_of; "Now double that number." with calculator(``doubled``)."""

    def reply(messages: list[BaseMessage]):
        if is_notes(messages):
            return "Notes: the steps so far."
        found = [r for r in results_of(messages) if not r.startswith("Not run")]  # a call held back is made again
        if "double" in question_of(messages):
            return f"Doubled, it is {found[-1]}." if found else tool_call("calculator", {"expression": doubled})
        return f"17% of 2,340 is {found[-1]}." if found else tool_call("percent_of", {"percent": 17, "value": 2340})

    return reply


def percent_model() -> ScriptedChatModel:
    """A model that doubles the last answer (right): `--model tests.unit.evaluation.test_walkthrough:percent_model`."""
    return ScriptedChatModel(responses=[percent_reply("2 * 397.8")], repeat_last=True)


def confused_model() -> ScriptedChatModel:
    """A model that doubles a number from inside the working (the local model's 35.6)."""
    return ScriptedChatModel(responses=[percent_reply("2 * 17.8")], repeat_last=True)


FOLLOW_UP = {"question": "Now double that number.", "expect": {"kind": "numeric", "value": 795.6}}


def follow_up_task(**fields) -> Task:
    return Task.model_validate({
        "id": "follow-up", "category": "walkthrough", "question": "What is 17% of 2,340?",
        "expect": {"kind": "numeric", "value": 397.8}, "then": [FOLLOW_UP], **fields,
    })


def run_one(task: Task, model: ScriptedChatModel, **options):
    return run_suite([task], lambda t: model, WALKTHROUGH, **options).runs[0]


# -- the shipped suite ---------------------------------------------------------------------------------


def test_the_walkthrough_ships_beside_the_default_suite_and_is_named_by_suite():
    tasks = load_suite(suite_path("walkthrough"))
    ids = {t.id for t in tasks}
    assert {  # the examples the issue lists
        "python-first", "python-conversation", "python-middleware", "python-approval", "python-subagent",
        "python-typed-answer", "python-playbook", "cli-documents", "served-percent", "cli-percent-follow-up",
        "chat-follow-up", "travel-agent", "cli-german", "graph-messages", "python-clarification",
    } <= ids
    assert {t.driver for t in tasks} == {"agent", "graph", "served", "cli", "chat"}
    assert len(load_suite(suite_path(None))) == 45 and not ids & {t.id for t in load_suite(shipped_suite())}
    assert suite_path("./walkthrough") == Path("walkthrough") and set(SHIPPED) == {"default", "walkthrough"}


def test_every_name_the_walkthrough_imports_loads():
    for task in load_suite(WALKTHROUGH):
        for spec in [*(t for t in task.tools if ":" in t), *task.reply_checks, *filter(None, [task.middleware])]:
            assert load_object(spec) is not None, spec


def test_the_walkthrough_s_documents_are_the_repository_s():
    copy = (WALKTHROUGH / "docs" / "ARCHITECTURE.md").read_text()
    assert copy == (ROOT / "docs" / "ARCHITECTURE.md").read_text(), (
        "docs/ARCHITECTURE.md changed: cp docs/ARCHITECTURE.md src/reactgraph/evaluation/tasks/walkthrough/docs/ "
        "and check the layer count the walkthrough expects (cli-documents, python-subagent)"
    )
    layers = {int(n) for n in re.findall(r"^\| (\d+) \|", copy, flags=re.MULTILINE)}
    by_id = {t.id: t for t in load_suite(WALKTHROUGH)}
    assert by_id["cli-documents"].expect.value == len(layers) == max(layers)
    assert by_id["python-subagent"].expect.value == 3 * len(layers)


def test_the_sub_agent_task_s_researcher_searches_the_suite_s_docs_as_the_docs_example_does():
    """docs/tools.md's researcher is `with_builtins(["search_documents"], documents="docs/")`: the task's sub-agent has
    that one tool over the suite's docs, no file tools, and finds the layer count there."""
    from reactgraph.evaluation.building import task_registry

    task = next(t for t in load_suite(WALKTHROUGH) if t.id == "python-subagent")
    registry = task_registry(task, WALKTHROUGH, model=ScriptedChatModel(responses=["13"]))
    researcher = registry.get("researcher").tool.delegates_to
    assert researcher.names() == ["search_documents"]
    assert researcher.get("search_documents").tool.invoke({"query": "layers"}).startswith(
        "ARCHITECTURE.md: # Architecture reactgraph is one idea per package, in 13 [layers]")


@pytest.mark.parametrize(("fields", "says"), [
    ({"then": [{"question": "Next?", "answer": "7"}]}, "one of question, answer or approval"),
    ({"driver": "chat", "then": [{"answer": "7"}]}, "a chat task's turns are questions"),
    ({"options": ["--tools", "calculator"]}, "options are a cli or chat task's"),
    ({"driver": "cli", "tools": ["calculator"]}, "set up by its options alone"),
    ({"driver": "served", "tools": ["calculator"]}, "the served graph's tools"),
    ({"reply_checks": ["names_the_tool"]}, "not 'module:attribute'"),
    ({"then": [{"question": "Next?", "surprise": 1}]}, "Extra inputs are not permitted"),
])
def test_a_task_the_runner_cannot_drive_is_refused_when_loaded(fields, says):
    with pytest.raises(ValidationError, match=says):
        Task.model_validate({"id": "t", "category": "c", "question": "Q?"} | fields)


# -- follow-up turns --------------------------------------------------------------------------------------


@pytest.mark.parametrize("driver", ["agent", "served"])
def test_a_follow_up_turn_is_judged_on_its_own(driver):
    task = follow_up_task(**({"tools": ["calculator", "percent_of"]} if driver == "agent" else {}), driver=driver)
    right = run_one(task, percent_model())
    assert (right.correct, right.problems, right.answer) == (True, [], "Doubled, it is 795.6.")
    assert [(s.get("turn"), s["calls"][0]["tool"] if s["calls"] else None) for s in right.steps] == [
        (1, "percent_of"), (1, None), (2, "calculator"), (2, None)
    ]
    wrong = run_one(task, confused_model())
    assert not wrong.correct and wrong.reason == "success"
    assert wrong.problems == ["turn 2 ('Now double that number.') answered 'Doubled, it is 35.6.'; want the number 795.6"]


def test_the_served_task_runs_the_served_graph_with_its_own_tools_and_reads_the_chat_s_last_message():
    model = percent_model()
    run = run_one(follow_up_task(driver="served"), model)
    assert run.correct
    offered = model.calls[0]["tools"]
    assert {"calculator", "percent_of", "circle_area", "text", "ask_user"} <= set(offered)  # the defaults: ask_user too
    assert "read_file" not in offered  # no REACTGRAPH_FILES_ROOT: the file tools are not served


def test_a_served_task_whose_chat_ends_on_no_ai_message_is_wrong(monkeypatch):
    """What a chat client shows is the thread's last message: a turn that ends on a tool message shows no answer."""
    from reactgraph.evaluation import drivers

    monkeypatch.setattr(drivers, "AIMessage", type("NoMessageIsThis", (), {}))  # as if no turn ended on an AI message
    run = run_one(follow_up_task(driver="served", then=[]), percent_model())
    assert not run.correct and run.problems == ["turn 1 ('What is 17% of 2,340?') answered nothing; want the number 397.8"]


# -- a clarification answered, an approval resumed ---------------------------------------------------------


def lucky_reply(asks_again: bool):
    def reply(messages: list[BaseMessage]):
        if is_notes(messages):
            return "Notes."
        found, text = results_of(messages), "\n".join(message_text(m) for m in messages)
        if found and found[-1] == "42.0":
            return "Your lucky numbers multiply to 42."
        if "6 and 7" in text and not asks_again:
            return tool_call("multiply", {"a": 6, "b": 7})
        return tool_call("ask_user", {"question": "What are your two lucky numbers?"})

    return ScriptedChatModel(responses=[reply], repeat_last=True)


LUCKY = {
    "id": "lucky", "category": "walkthrough", "question": "Multiply my two lucky numbers.",
    "tools": ["reactgraph.testing:multiply"], "interactive": True, "expected_reason": "clarification",
    "then": [{"answer": "6 and 7", "expect": {"kind": "numeric", "value": 42}, "ran": [{"tool": "multiply", "args": {"a": 6, "b": 7}}]}],
}


def test_a_clarification_answered_goes_on_and_one_asked_again_is_wrong():
    task = Task.model_validate(LUCKY)
    right = run_one(task, lucky_reply(asks_again=False))
    assert (right.correct, right.reason, right.answer) == (True, "success", "Your lucky numbers multiply to 42.")
    wrong = run_one(task, lucky_reply(asks_again=True))  # the question asked again is answered with the user's answer
    assert not wrong.correct and wrong.reason == "clarification"  # the question asked again goes to the user again
    assert wrong.problems[0].startswith("turn 2 (answer '6 and 7') ended clarification: What are your two lucky numbers?")
    assert "no multiply(a=6, b=7) ran" in wrong.problems[-1]


def test_the_eval_s_own_tasks_stay_non_interactive():
    """Without ``interactive`` a task runs as the default suite does: no ask_user on offer."""
    model = lucky_reply(asks_again=False)
    run = run_one(Task.model_validate(LUCKY | {"interactive": False}), model)
    assert "ask_user" not in model.calls[0]["tools"] and not run.correct


def emailing(calls: bool):
    def reply(messages: list[BaseMessage]):
        if is_notes(messages):
            return "Notes."
        found = results_of(messages)
        if any(r.startswith("sent to") for r in found):
            return "I sent Ann the report."
        if found and calls:
            return tool_call("send_email", {"to": found[-1], "body": "The report."})
        if found:
            return f"Ann's address is {found[-1]}."
        return tool_call("lookup", {"name": "Ann"})

    return ScriptedChatModel(responses=[reply], repeat_last=True)


def test_an_approval_resumed_runs_the_call_and_an_answer_instead_of_the_call_is_wrong():
    [task] = [t for t in load_suite(WALKTHROUGH) if t.id == "python-approval"]
    sent = len(SENT_EMAILS)
    right = run_one(task, emailing(calls=True))
    assert (right.correct, right.reason, right.problems) == (True, "success", [])
    assert SENT_EMAILS[sent:] == [{"to": "ann@example.com", "body": "The report."}]  # after the approval, once
    wrong = run_one(task, emailing(calls=False))
    assert not wrong.correct and wrong.answer == "Ann's address is ann@example.com."
    assert wrong.problems == [
        "turn 1 ('Email Ann the report') ended success: the model gave a final answer; want approval",
        "turn 1 ('Email Ann the report'): no send_email call waits for approval",
        "turn 2 (approve) did not run: AnswerError: no call waits for approval",
    ]
    assert len(SENT_EMAILS) == sent + 1  # nothing more was sent


def test_the_docs_reply_check_must_act_and_the_number_be_right():
    """python-reply-check: the docs' names_the_tool must send the answer back; the answer must be 100 (the local
    model never named the tool after the send-back, and the answer stood: what the docs say it does)."""
    [task] = [t for t in load_suite(WALKTHROUGH) if t.id == "python-reply-check"]
    product = tool_call("multiply", {"a": 12.5, "b": 8})
    sent_back = run_one(task, ScriptedChatModel(responses=[product, "100.0", "100.0"]))
    assert (sent_back.correct, sent_back.problems) == (True, [])
    named = run_one(task, ScriptedChatModel(responses=[product, "multiply gave 100.0"]))
    assert not named.correct and named.problems == ["turn 1 ('What is 12.5 times 8?'): the reply check names_the_tool did not act"]


# -- the command line, in-process ----------------------------------------------------------------------------


@pytest.mark.parametrize("driver", ["cli", "chat"])
def test_a_command_line_task_runs_the_command_on_the_eval_s_model(driver):
    task = follow_up_task(driver=driver, options=["--tools", "calculator,percent_of"])
    model = percent_model()
    right = run_one(task, model, command=cli.main)
    assert (right.correct, right.answer) == (True, "Doubled, it is 795.6.")
    assert set(model.calls[0]["tools"]) == {"calculator", "percent_of", "ask_user"}  # --tools, and the defaults
    wrong = run_one(task, confused_model(), command=cli.main)
    assert wrong.problems == ["turn 2 ('Now double that number.') answered 'Doubled, it is 35.6.'; want the number 795.6"]


def test_a_command_line_task_that_waits_is_resumed_by_resume_and_one_without_the_command_line_is_said_so():
    task = Task.model_validate({
        **{k: v for k, v in LUCKY.items() if k not in ("tools", "interactive")},
        "driver": "cli", "options": ["--tools", "reactgraph.testing:multiply"],
    })
    assert run_one(task, lucky_reply(asks_again=False), command=cli.main).correct  # run exits 3, resume --answer
    wrong = run_one(task, lucky_reply(asks_again=True), command=cli.main)
    assert wrong.reason == "clarification" and not wrong.correct  # asked again: the user is asked again
    alone = run_one(task, lucky_reply(asks_again=False))
    assert alone.problems == ["turn 1 ('Multiply my two lucky numbers.') did not run: a cli task needs the command line "
                              "(run it with reactgraph eval)", "turn 2 not run: answer '6 and 7'"]


def test_reactgraph_eval_runs_the_walkthrough_by_name_and_reports_what_went_wrong(tmp_path, capsys):
    common = ["eval", "--suite", "walkthrough", "--only", "cli-percent-follow-up,served-percent"]
    assert cli.main([*common, "--model", "tests.unit.evaluation.test_walkthrough:confused_model", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "eval.json").read_text())
    assert [(r["task_id"], r["correct"]) for r in report["runs"]] == [("cli-percent-follow-up", False), ("served-percent", False)]
    markdown = (tmp_path / "eval.md").read_text()
    assert "--suite walkthrough" in markdown and "What went wrong:" in markdown
    assert "- reactgraph `served-percent`: turn 2 ('Now double that number.') answered 'Doubled, it is 35.6.'" in markdown
    assert "  - turn 2 tools: called calculator(expression='2 * 17.8'); got '35.6'" in markdown
    assert "answered 'Doubled, it is 35.6.'" in capsys.readouterr().out  # said as it happens too
    assert cli.main([*common, "--model", "tests.unit.evaluation.test_walkthrough:percent_model", "--out", str(tmp_path)]) == 0
    assert all(r["correct"] for r in json.loads((tmp_path / "eval.json").read_text())["runs"])


def test_the_report_of_a_multi_turn_run_keeps_its_problems_and_steps():
    run = run_one(follow_up_task(tools=["calculator", "percent_of"]), confused_model())
    again = SuiteReport.model_validate({"runs": json.loads(SuiteReport(runs=[run]).to_json())["runs"]})
    assert again.runs[0].problems == run.problems and again.runs[0].steps[2]["turn"] == 2
