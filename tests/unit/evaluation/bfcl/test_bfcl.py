"""The BFCL suite (``reactgraph eval --suite bfcl:...``) on real BFCL entries, scored with BFCL's own checker, with
scripted models that answer each entry with its ground truth (or get one thing wrong)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from reactgraph import cli, prompts
from reactgraph.testing import ScriptedChatModel, tool_calls

try:
    from reactgraph.evaluation.bfcl.package import REQUIREMENT, VERSION, installed_version

    HAVE_BFCL = installed_version() == VERSION
except ImportError:  # pragma: no cover - the package's own module always imports
    HAVE_BFCL = False

if not HAVE_BFCL and os.environ.get("CI"):  # .ci/run installs it: a missing package there is a failure, not a skip
    raise RuntimeError(f"CI needs {REQUIREMENT} (installed with --no-deps by .ci/run)")
pytestmark = pytest.mark.skipif(
    not HAVE_BFCL, reason=f"needs {REQUIREMENT}: pip install --no-deps '{REQUIREMENT}' (.ci/run installs it)"
)

if HAVE_BFCL:
    from reactgraph.evaluation.bfcl.chart import bar_chart
    from reactgraph.evaluation.bfcl.entries import SINGLE_TURN, Entry, select
    from reactgraph.evaluation.bfcl.journal import FILE, Journal
    from reactgraph.evaluation.bfcl.runs import run_entry
    from reactgraph.evaluation.bfcl.scoring import score
    from reactgraph.evaluation.bfcl.tools import entry_tools, tool_name

IN_SCOPE = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple")
IRRELEVANCE = ("irrelevance", "live_irrelevance")
MODEL = "scripted"


def pick(options: list[Any]) -> Any:
    """A value the ground truth accepts: its first option that is not '' (the mark of an optional input)."""
    value = next(o for o in options if o != "")
    if isinstance(value, dict):  # a dict input: each key's options
        return {k: pick(v) for k, v in value.items() if any(o != "" for o in v)}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [{k: pick(o) for k, o in item.items() if any(x != "" for x in o)} for item in value]
    return value


def truth(entry: Entry) -> list[tuple[str, dict[str, Any]]]:
    """The entry's ground truth as calls: (tool name as offered, arguments)."""
    calls = []
    for answer in entry.ground_truth or []:
        (name, params), = answer.items()
        calls.append((tool_name(name), {p: pick(o) for p, o in params.items() if any(x != "" for x in o)}))
    return calls


def as_json_text(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """The calls written into the reply's text, as small models write them."""
    objects = [{"name": n, "arguments": a} for n, a in calls]
    return "I will call the functions.\n```json\n" + json.dumps(objects if len(objects) > 1 else objects[0]) + "\n```"


def entries(category: str, n: int = 2) -> list[Entry]:
    return select([category], limit=n)


@pytest.mark.parametrize("category", IN_SCOPE)
def test_the_ground_truth_scores_right_through_reactgraph_natively_and_as_text(category):
    for entry in entries(category):
        calls = truth(entry)
        for reply in (tool_calls(calls), as_json_text(calls)):
            record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[reply]), {}, MODEL)
            assert record["error"] == "", record
            assert score(entry, record["calls"]).valid, (entry.id, record["calls"], score(entry, record["calls"]))
            assert score(entry, record["first_reply_calls"]).valid


@pytest.mark.parametrize("category", IN_SCOPE)
def test_the_ground_truth_scores_right_through_the_text_format(category):
    entry = entries(category, 1)[0]
    model = ScriptedChatModel(responses=[as_json_text(truth(entry))])
    record = run_entry(entry, "reactgraph", model, {"tool_calling": "text"}, MODEL)
    assert not model.calls[0]["tools"]  # the tools were described in the prompt, not bound
    assert score(entry, record["calls"]).valid, record


@pytest.mark.parametrize("peer", ["prebuilt", "create_agent"])
@pytest.mark.parametrize("category", IN_SCOPE)
def test_the_ground_truth_scores_right_through_the_peers(category, peer):
    for entry in entries(category, 1):
        record = run_entry(entry, peer, ScriptedChatModel(responses=[tool_calls(truth(entry))]), {}, MODEL)
        assert score(entry, record["calls"]).valid, record


def test_dotted_names_are_offered_with_underscores_and_scored_with_dots():
    entry = next(e for e in entries("simple_python", 5) if "." in e.functions[0]["name"])
    tools, names = entry_tools(entry)
    assert "." not in tools[0].name and names[tools[0].name] == entry.functions[0]["name"]
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[tool_calls(truth(entry))]), {}, MODEL)
    assert record["calls"][0]["name"] == entry.functions[0]["name"]
    assert score(entry, record["calls"]).valid


def test_a_wrong_argument_is_scored_wrong():
    entry = select(["simple_python"], only=["simple_python_0"])[0]  # triangle area, base 10 and height 5
    (name, args), = truth(entry)
    wrong = tool_calls([(name, args | {"base": 11})])
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[wrong]), {}, MODEL)
    verdict = score(entry, record["calls"])
    assert record["calls"] == [{"name": "calculate_triangle_area", "args": args | {"base": 11}}]
    assert not verdict.valid and verdict.error_type.startswith("value_error")


def test_the_arguments_are_scored_as_the_model_wrote_them_not_as_reactgraph_read_them():
    """reactgraph reads "10" as 10 for an integer input, and the call runs; BFCL scores the text the model gave."""
    entry = select(["simple_python"], only=["simple_python_0"])[0]
    (name, args), = truth(entry)
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[tool_calls([(name, args | {"base": "10"})])]), {}, MODEL)
    assert record["calls"][0]["args"]["base"] == "10"
    assert score(entry, record["calls"]).error_type.startswith("type_error")


def test_a_call_refused_for_its_arguments_and_made_again_counts_and_the_first_reply_is_reported_beside_it():
    entry = select(["simple_python"], only=["simple_python_0"])[0]
    (name, args), = truth(entry)
    first = tool_calls([(name, {"base": 10})])  # height missing: refused, the model is asked again
    model = ScriptedChatModel(responses=[first, tool_calls([(name, args)])])
    record = run_entry(entry, "reactgraph", model, {}, MODEL)
    assert score(entry, record["calls"]).valid
    assert not score(entry, record["first_reply_calls"]).valid
    assert len(record["replies"]) == 2


@pytest.mark.parametrize("category", IRRELEVANCE)
@pytest.mark.parametrize("agent", ["reactgraph", "prebuilt", "create_agent"])
def test_irrelevance_is_right_only_without_any_call(category, agent):
    entry = entries(category, 1)[0]
    answered = run_entry(entry, agent, ScriptedChatModel(responses=["None of the functions fits this question."]), {}, MODEL)
    assert answered["calls"] == [] and score(entry, answered["calls"]).valid
    tool = entry_tools(entry)[0][0]
    kinds = {"number": 1.5, "integer": 1, "boolean": True, "array": [1.0], "object": {}}
    made_up = {p: kinds.get(tool.args_schema["properties"][p]["type"], "x") for p in tool.args_schema.get("required", [])}
    insisted = [tool_calls([(tool.name, made_up)]) for _ in range(2)]  # reactgraph holds it back once (unfounded_call)
    called = run_entry(entry, agent, ScriptedChatModel(responses=[*insisted, "done"]), {}, MODEL)
    assert called["calls"] and not score(entry, called["calls"]).valid


def test_a_call_named_in_prose_with_its_arguments_as_json_is_read_and_a_listed_call_is_not_the_answer():
    """Issue 28's two misses, in the shapes Qwen2.5-Coder-1.5B wrote them on BFCL entries."""
    entry = select(["simple_python"], only=["simple_python_0"])[0]
    (name, args), = truth(entry)
    announced = f"I will use the `{name}` function. The arguments are:\n```json\n{json.dumps(args)}\n```"
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[announced]), {}, MODEL)
    assert score(entry, record["calls"]).valid, record
    listed = f"1. **{name}** function:\n   - Base: 10\n   - Height: 5"
    model = ScriptedChatModel(responses=[listed, tool_calls([(name, args)])])
    record = run_entry(entry, "reactgraph", model, {}, MODEL)
    assert record["first_reply_calls"] == [] and score(entry, record["calls"]).valid  # asked again, then called


def write_factory(tmp_path, module: str, body: str) -> list[str]:
    (tmp_path / f"{module}.py").write_text(body)
    return ["--model", f"{module}:model"]


GROUND_TRUTH_MODEL = """
import json
from reactgraph.evaluation.bfcl.entries import select
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_calls
from tests.unit.evaluation.bfcl.test_bfcl import truth
CALLS = []
def model():
    es = select(["simple_python", "irrelevance"], limit=2)
    routes = [(e.question, tool_calls(truth(e)) if e.ground_truth else "No function fits.") for e in es]
    def counted(messages):
        CALLS.append(1)
        return by_prompt(*routes, default="?")(messages)
    return ScriptedChatModel(responses=[counted], repeat_last=True)
"""


def test_the_command_runs_reports_and_resumes_without_running_an_entry_again(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    model = write_factory(tmp_path, "gt_model", GROUND_TRUTH_MODEL)
    out = tmp_path / "out"
    command = ["eval", "--suite", "bfcl:simple_python,irrelevance", "--limit", "2", "--compare", "prebuilt", "--out", str(out), *model]
    assert cli.main(command) == 0
    lines = (out / FILE).read_text().splitlines()
    assert len(lines) == 8  # 4 entries, 2 agents
    totals = json.loads((out / "eval.json").read_text())["totals"]
    assert {(t["category"], t["agent"]): (t["entries"], t["right"]) for t in totals} == {
        ("simple_python", "reactgraph"): (2, 2), ("simple_python", "prebuilt"): (2, 2),
        ("irrelevance", "reactgraph"): (2, 2), ("irrelevance", "prebuilt"): (2, 2),
    }
    assert "| simple_python | reactgraph | 100.0% (2/2) |" in (out / "eval.md").read_text()
    svg = ET.fromstring((out / "bfcl.svg").read_text())
    assert len([r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("height") not in (None, "12", "360")]) == 4

    import gt_model

    gt_model.CALLS.clear()
    (out / FILE).write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])  # killed while writing the last record
    assert cli.main(command) == 0
    assert len(gt_model.CALLS) == 1  # only the run whose record was cut ran again
    again = json.loads((out / "eval.json").read_text())["totals"]
    assert untimed(again) == untimed(totals)  # the entry run again took its own time: the counts are the same


def untimed(totals: list[dict]) -> list[dict]:
    """The totals without the wall-clock figures, which a run made again does not repeat."""
    return [{k: v for k, v in t.items() if "seconds" not in k} for t in totals]


def test_a_journal_of_another_model_is_refused(tmp_path):
    Journal(tmp_path, "a").add({"agent": "reactgraph", "id": "x", "model": "a"})
    with pytest.raises(ValueError, match="holds runs of model 'a'"):
        Journal(tmp_path, "b")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--suite", "bfcl:multi_turn_miss_func"], "only multi_turn_base is offered"),
        (["--suite", "bfcl:simple"], "unknown category 'simple'"),
        (["--suite", "bfcl:simple_python", "--repeat", "2"], "does not take --repeat"),
        (["--suite", "bfcl:simple_python", "--limit", "0"], "--limit takes"),
        (["--suite", "bfcl:simple_python", "--only", "simple_python_9999"], "no entry simple_python_9999"),
        (["--limit", "3"], "--limit is for a BFCL suite"),
    ],
)
def test_bad_bfcl_options_are_usage_errors_before_any_model_call(tmp_path, capsys, argv, message):
    assert cli.main(["eval", *argv, "--model", "ollama:none", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_every_single_turn_category_loads_with_its_ground_truth():
    for category in SINGLE_TURN:
        loaded = select([category], limit=3)
        assert len(loaded) == 3 and all(e.category == category for e in loaded)
        assert all((e.ground_truth is None) == ("irrelevance" in category) for e in loaded)


def test_the_chart_draws_a_bar_per_agent_and_category_and_the_marks():
    svg = ET.fromstring(bar_chart("t", {"a": {"x": 0.5, "y": 1.0}, "b": {"x": 0.0}}, marks={"a": 0.7}, mark_label="published"))
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert {"50%", "100%", "0%", "published", "x", "y"} <= set(texts)
    dashed = [line for line in svg.iter("{http://www.w3.org/2000/svg}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 2  # the mark, and its legend


def test_a_reply_with_a_native_call_to_a_tool_not_on_offer_is_no_call():
    entry = entries("irrelevance", 1)[0]
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[tool_calls([("no_such_tool", {})]), "No."]), {}, MODEL)
    assert record["calls"] == [] and score(entry, record["calls"]).valid
    assert record["first_reply_calls"] == [{"name": "no_such_tool", "args": {}}]
    assert isinstance(AIMessage(content="x"), AIMessage)


def test_the_pin_is_the_one_the_install_instructions_give():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
    for name in ("pyproject.toml", os.path.join("docs", "evaluation.md")):
        with open(os.path.join(root, name)) as file:
            assert REQUIREMENT in file.read(), name


# Recorded from Qwen2.5-Coder-1.5B (Q4, llama.cpp behind the Ollama shim) on live_simple_3-2-1, as every agent got it.
RECORDED_ANNOUNCED = (
    "To find a suitable Uber ride for your needs, I'll use the `uber_ride` function. Here are the arguments:\n\n```json\n{\n"
    "  \"loc\": \"221B Baker Street, Berkeley, CA, USA\",\n  \"type\": \"plus\",\n  \"time\": 600\n}\n```\n\n"
    "This will return a JSON object with the details of the Uber ride that meets your criteria."
)


@pytest.mark.parametrize("agent, right", [("reactgraph", True), ("prebuilt", False), ("create_agent", False)])
def test_the_recorded_announced_call_is_read_as_the_call_by_reactgraph_only(agent, right):
    entry = select(["live_simple"], only=["live_simple_3-2-1"])[0]
    record = run_entry(entry, agent, ScriptedChatModel(responses=[RECORDED_ANNOUNCED]), {}, MODEL)
    assert score(entry, record["calls"]).valid is right, record


def test_ctrl_c_says_the_same_command_picks_up(tmp_path, capsys, monkeypatch):
    import reactgraph.commands.benchmark as benchmark

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(benchmark.run_bfcl, "__defaults__", (interrupted,))
    argv = ["eval", "--suite", "bfcl:simple_python", "--limit", "1", "--model", "ollama:none", "--out", str(tmp_path)]
    assert cli.main(argv) == 130  # EXIT_INTERRUPTED
    assert "the same command picks up where it stopped" in capsys.readouterr().err


# Recorded on parallel_3 (reactgraph's first reply): the calls listed with the tool's name spelled out in words, each
# with its arguments as JSON, and an invented result after each.
RECORDED_LISTED = (
    "To get the protein sequence of human HbA1c, normal hemoglobin, and rat hemoglobin along with their 3D models, you can "
    "use the following tools:\n\n1. **Protein Info Get Sequence And 3D**:\n   - **Arguments**: `{\"protein_name\": \"HbA1c\", "
    "\"model_3d\": true}`\n   - **Result**: {\"sequence\": \"Sequence of HbA1c\", \"3d_model\": \"3D model of HbA1c\"}\n\n"
    "2. **Protein Info Get Sequence And 3D**:\n   - **Arguments**: `{\"protein_name\": \"Normal Hemoglobin\", \"model_3d\": true}`\n"
    "   - **Result**: {\"sequence\": \"Sequence of Normal Hemoglobin\", \"3d_model\": \"3D model of Normal Hemoglobin\"}\n\n"
    "3. **Protein Info Get Sequence And 3D**:\n   - **Arguments**: `{\"protein_name\": \"Rat Hemoglobin\", \"model_3d\": true}`\n"
    "   - **Result**: {\"sequence\": \"Sequence of Rat Hemoglobin\", \"3d_model\": \"3D model of Rat Hemoglobin\"}\n\n"
    "These tools will provide the sequence and 3D models for each specified protein."
)


def test_the_recorded_list_of_calls_with_the_tool_spelled_out_is_read_as_the_three_calls():
    entry = select(["parallel"], only=["parallel_3"])[0]
    record = run_entry(entry, "reactgraph", ScriptedChatModel(responses=[RECORDED_LISTED]), {}, MODEL)
    assert [c["args"]["protein_name"] for c in record["calls"]] == ["HbA1c", "Normal Hemoglobin", "Rat Hemoglobin"]
    assert score(entry, record["calls"]).valid


# Multi-turn: an entry's user turns as turns of one conversation, its tools running on BFCL's API instances.
MULTI_TURN_IDS = ["multi_turn_base_0", "multi_turn_base_1"]  # a file system and a social feed; 4 turns each
DONE = "The request of this turn is complete."


def structured(call: str, entry: Entry) -> tuple[str, dict[str, Any]]:
    """A ground-truth call string (``sort('a.pdf')``) as a structured call, positional arguments named by the
    method's signature."""
    import ast
    import importlib
    import inspect

    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    args = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    if node.args:
        method = next(
            getattr(cls, node.func.id)
            for cls in (getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[c]), c) for c in entry.involved_classes)
            if hasattr(cls, node.func.id)
        )
        names = [p for p in inspect.signature(method).parameters if p != "self"]
        args |= {names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    return node.func.id, args


def conversation_model(
    entry: Entry, text: bool = False, wrong: tuple[int, str, str] | None = None, together: bool = False
) -> ScriptedChatModel:
    """Answers each turn of ``entry`` with its ground truth, a call per reply (``together``: the turn's calls in one
    reply), then a final answer (natively, or as JSON in the text); any other prompt (notes on earlier steps or
    turns) gets a note. ``wrong`` (turn, key, value): that turn's first call has that argument changed."""
    plans = {}
    for turn, (question, calls) in enumerate(zip(entry.questions, entry.ground_truth or [], strict=True)):
        made = [structured(call, entry) for call in calls]
        if wrong and wrong[0] == turn:
            made[0] = (made[0][0], made[0][1] | {wrong[1]: wrong[2]})
        groups = [made] if together and made else [[call] for call in made]
        plans[question] = [as_json_text(group) if text else tool_calls(group) for group in groups]

    notes = tuple(prompt.split("\n")[0] for prompt in (prompts.SUMMARIZE_PROMPT, prompts.FOLD_PROMPT))

    def reply(messages: list[Any]) -> Any:
        asked = [m.text for m in messages if m.type == "human"]
        if not asked or asked[-1].startswith(notes):  # reactgraph's notes on earlier steps or turns
            return "Notes on the earlier steps."
        plan = next(p for text in reversed(asked) for q, p in plans.items() if q in text)  # the turn's question
        return plan.pop(0) if plan else DONE

    return ScriptedChatModel(responses=[reply], repeat_last=True)


@pytest.mark.parametrize("entry_id", MULTI_TURN_IDS)
@pytest.mark.parametrize("fmt", ["native", "text"])
def test_a_multi_turn_entry_replayed_from_its_ground_truth_passes_the_multi_turn_checker_through_reactgraph(entry_id, fmt):
    entry = select(["multi_turn_base"], only=[entry_id])[0]
    overrides = {"tool_calling": "text"} if fmt == "text" else {}
    record = run_entry(entry, "reactgraph", conversation_model(entry, text=fmt == "text"), overrides, MODEL)
    assert record["error"] == "", record
    assert len(record["turns"]) == len(entry.questions) and [t["answer"] for t in record["turns"]] == [DONE] * len(entry.questions)
    assert [len(c) for c in record["calls"]] == [len(t) for t in entry.ground_truth]
    assert score(entry, record["calls"]).valid, score(entry, record["calls"])


@pytest.mark.parametrize("peer", ["prebuilt", "create_agent"])
def test_a_multi_turn_entry_replayed_from_its_ground_truth_passes_through_the_peers(peer):
    entry = select(["multi_turn_base"], only=[MULTI_TURN_IDS[0]])[0]
    record = run_entry(entry, peer, conversation_model(entry), {}, MODEL)
    assert record["error"] == "" and len(record["turns"]) == len(entry.questions), record
    assert score(entry, record["calls"]).valid, score(entry, record["calls"])


@pytest.mark.parametrize("agent, fmt", [("reactgraph", "native"), ("reactgraph", "text"), ("prebuilt", "native"), ("create_agent", "native")])
def test_the_calls_of_one_reply_run_in_the_order_the_model_wrote_them(agent, fmt):
    """cd, mkdir, mv in one reply: BFCL runs them in that order, and so must every agent (run concurrently, the mv
    would sometimes go first and the entry be scored wrong)."""
    entry = select(["multi_turn_base"], only=["multi_turn_base_0"])[0]
    overrides = {"tool_calling": "text"} if fmt == "text" else {}
    for _ in range(5):
        record = run_entry(entry, agent, conversation_model(entry, text=fmt == "text", together=True), overrides, MODEL)
        assert [[c.split("(")[0] for c in turn] for turn in record["calls"]] == [
            [c.split("(")[0] for c in turn] for turn in entry.ground_truth
        ]
        assert score(entry, record["calls"]).valid


def test_the_tools_give_back_bfcls_results_and_each_turn_sees_the_state_the_earlier_ones_left():
    entry = select(["multi_turn_base"], only=["multi_turn_base_0"])[0]
    model = conversation_model(entry)
    record = run_entry(entry, "reactgraph", model, {}, MODEL)
    assert record["calls"][0] == ["cd(folder='document')", "mkdir(dir_name='temp')", "mv(source='final_report.pdf',destination='temp')"]
    results = [m.content for call in model.calls for m in call["messages"] if m.type == "tool"]
    assert '{"matching_lines": ["Year2024 This is the final report content including budget analysis and other sections."]}' in results
    assert record["turns"][0]["replies"][0]["tool_calls"] == [{"name": "cd", "args": {"folder": "document"}}]


@pytest.mark.parametrize("agent", ["reactgraph", "prebuilt"])
def test_a_wrong_call_in_one_turn_fails_the_multi_turn_checker(agent):
    entry = select(["multi_turn_base"], only=["multi_turn_base_0"])[0]
    record = run_entry(entry, agent, conversation_model(entry, wrong=(1, "pattern", "budget")), {}, MODEL)
    assert record["error"] == "" and len(record["turns"]) == len(entry.questions)
    verdict = score(entry, record["calls"])
    assert not verdict.valid and verdict.error_type == "multi_turn:execution_response_mismatch", verdict


def test_two_runs_of_one_entry_are_both_scored_right_though_bfcl_caches_instances_by_model_and_entry():
    """BFCL keeps each run's API instances in its executor's globals by model name and entry id: a run (or a
    scoring) under a name used before would start from the state the earlier one left."""
    from reactgraph.evaluation.bfcl.package import multi_turn_checker, multi_turn_executor

    entry = select(["multi_turn_base"], only=["multi_turn_base_0"])[0]
    wrong = run_entry(entry, "reactgraph", conversation_model(entry, wrong=(0, "dir_name", "tmp")), {}, MODEL)
    right = [run_entry(entry, "reactgraph", conversation_model(entry), {}, MODEL) for _ in range(2)]
    assert not score(entry, wrong["calls"]).valid
    assert all(score(entry, r["calls"]).valid for r in right)
    assert not [k for k in vars(multi_turn_executor()) if k.startswith("reactgraph_")]  # every run's instances dropped

    # the trap itself: the checker under one name for both scorings judges the right run by the wrong one's state
    test_entry = {"id": entry.id, "initial_config": entry.initial_config, "involved_classes": list(entry.involved_classes)}
    checked = [
        multi_turn_checker()([[c] for c in calls], entry.ground_truth, dict(test_entry), entry.category, "one_name")["valid"]
        for calls in (wrong["calls"], right[0]["calls"])
    ]
    assert checked == [False, False]


@pytest.mark.parametrize("agent, ran", [("reactgraph", 21), ("prebuilt", 20)])
def test_a_turn_past_bfcls_step_limit_ends_the_entry_and_it_is_scored_force_terminated(agent, ran):
    """20 replies with calls per user turn, then an answer; one more reply with calls ends BFCL's loop (reactgraph
    runs that 21st call, as BFCL does; a peer stops at its recursion limit before its tools run)."""
    entry = select(["multi_turn_base"], only=["multi_turn_base_1"])[0]
    model = ScriptedChatModel(responses=[tool_calls([("pwd", {})])], repeat_last=True)
    record = run_entry(entry, agent, model, {"stall_threshold": 100, "max_iterations": 3}, MODEL)
    assert record["reason"] == "max_iterations" and len(record["turns"]) == 1 and len(record["calls"][0]) == ran
    assert score(entry, record["calls"]).error_type == "multi_turn:force_terminated"


def test_a_call_with_a_key_that_is_not_a_name_is_refused_before_it_reaches_bfcls_eval():
    from reactgraph.evaluation.bfcl.multi_turn import Session, call_string

    assert call_string("cd", {"folder": "a'b"}) == 'cd(folder="a\'b")'
    entry = select(["multi_turn_base"], only=["multi_turn_base_0"])[0]
    tools, _ = entry_tools(entry, Session(entry).execute)
    cd = next(t for t in tools if t.name == "cd")
    assert "not a parameter name" in cd.invoke({"folder='x'),print('x'),dict(a": 1})


def test_the_multi_turn_command_reports_its_accuracy_with_no_first_reply_figure(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    model = write_factory(tmp_path, "mt_model", MULTI_TURN_MODEL)
    out = tmp_path / "out"
    assert cli.main(["eval", "--suite", "bfcl:multi_turn_base", "--limit", "1", "--out", str(out), *model]) == 0
    record = json.loads((out / FILE).read_text())
    assert record["id"] == "multi_turn_base_0" and len(record["turns"]) == 4
    assert "| multi_turn_base | reactgraph | 100.0% (1/1) | n/a |" in (out / "eval.md").read_text()


MULTI_TURN_MODEL = """
from reactgraph.evaluation.bfcl.entries import select
from tests.unit.evaluation.bfcl.test_bfcl import conversation_model
def model():
    return conversation_model(select(["multi_turn_base"], limit=1)[0])
"""
