"""The bare model asked BFCL's own way (the ``bare`` agent), held-out slices of a category (``--offset``), and what
the report says each agent's model calls cost (calls, tokens, model seconds, the share a server's prompt cache
served, read from llama.cpp's log)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import SystemMessage

from reactgraph import cli
from reactgraph.testing import ScriptedChatModel, tool_calls
from tests.unit.evaluation.bfcl.test_bfcl import HAVE_BFCL, MODEL, truth, write_factory

pytestmark = pytest.mark.skipif(not HAVE_BFCL, reason="needs bfcl-eval at reactgraph's pin (see tests/unit/evaluation/bfcl/test_bfcl.py)")

if HAVE_BFCL:
    from reactgraph.evaluation.bfcl.bare import DECODER_FAILED, bare_messages
    from reactgraph.evaluation.bfcl.calls import ServerLog
    from reactgraph.evaluation.bfcl.entries import Entry, load_category, select
    from reactgraph.evaluation.bfcl.journal import FILE
    from reactgraph.evaluation.bfcl.report import BfclReport, scored
    from reactgraph.evaluation.bfcl.runs import run_entry
    from reactgraph.evaluation.bfcl.scoring import score
    from reactgraph.evaluation.bfcl.tools import bfcl_name


def as_bfcl_text(entry: Entry) -> str:
    """The entry's ground truth as BFCL's prompt asks for it: ``[func(a=1, b='x'), ...]`` with BFCL's names."""
    names = {f["name"].replace(".", "_"): f["name"] for f in entry.functions}
    calls = [f"{bfcl_name(name, names)}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in truth(entry)]
    return "[" + ", ".join(calls) + "]"


def test_the_bare_prompt_is_bfcls_default_system_prompt_listing_the_functions_with_the_python_hint():
    entry = select(["simple_python"], limit=1)[0]
    messages = bare_messages(entry)
    assert [m["role"] for m in messages] == ["system", "user"] and messages[1]["content"] == entry.question
    system = messages[0]["content"]
    assert system.startswith("You are an expert in composing functions.")
    assert "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]" in system
    listed = json.loads(system[system.index("invoke.\n") + len("invoke.\n"):])  # the functions, as JSON
    assert [f["name"] for f in listed] == [f["name"] for f in entry.functions]
    assert listed[0]["description"].endswith(" Note that the provided function is in Python 3 syntax.")
    assert not entry.functions[0]["description"].endswith("syntax.")  # the entry itself is not changed


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "live_simple", "live_multiple"])
def test_the_bare_model_writing_the_ground_truth_in_bfcls_format_is_right_in_one_call(category):
    for entry in select([category], limit=2):
        model = ScriptedChatModel(responses=[as_bfcl_text(entry)])
        record = run_entry(entry, "bare", model, {}, MODEL)
        assert score(entry, record["calls"]).valid, (entry.id, record)
        assert record["calls"] == record["first_reply_calls"] and len(record["replies"]) == 1
        assert len(model.calls) == 1 and model.calls[0]["tools"] == []  # no tools bound: BFCL's prompt lists them
        assert isinstance(model.calls[0]["messages"][0], SystemMessage)


def test_a_bare_reply_that_does_not_decode_is_no_call_with_bfcls_error_type_and_right_only_for_irrelevance():
    simple, irrelevant = select(["simple_python"], limit=1)[0], select(["irrelevance"], limit=1)[0]
    prose = "To compute this, take the base times the height and halve it."
    for entry, right in ((simple, False), (irrelevant, True)):
        record = run_entry(entry, "bare", ScriptedChatModel(responses=[prose]), {}, MODEL)
        assert record["calls"] == [] and record["decode_error"]["type"] == DECODER_FAILED
        (run,) = scored([entry], [record])
        assert run.right is right
        assert run.error_type == ("" if right else DECODER_FAILED)
    called = run_entry(irrelevant, "bare", ScriptedChatModel(responses=["[calculate_area(base=1, height=2)]"]), {}, MODEL)
    assert called["calls"] == [{"name": "calculate_area", "args": {"base": 1, "height": 2}}]
    assert not score(irrelevant, called["calls"]).valid


def test_a_native_tool_call_in_the_bare_reply_is_not_read_as_bfcl_decodes_the_text_only():
    entry = select(["simple_python"], limit=1)[0]
    record = run_entry(entry, "bare", ScriptedChatModel(responses=[tool_calls(truth(entry))]), {}, MODEL)
    assert record["calls"] == [] and record["replies"][0]["tool_calls"]  # kept in the record, not scored
    assert not score(entry, record["calls"]).valid


def test_an_offset_picks_a_later_slice_of_each_category_in_bfcls_order():
    everything = load_category("parallel")
    later = select(["parallel", "irrelevance"], offset=100, limit=25)
    assert [e.id for e in later if e.category == "parallel"] == [e.id for e in everything[100:125]]
    assert len([e for e in later if e.category == "irrelevance"]) == 25
    first = {e.id for e in select(["parallel"], limit=25)}
    assert first.isdisjoint(e.id for e in later)
    with pytest.raises(ValueError, match=rf"--offset {len(everything)}: bfcl:parallel has {len(everything)} entries"):
        select(["parallel"], offset=len(everything))  # a run of nothing, said before it starts
    assert [e.id for e in select(["parallel"], offset=100, only=[everything[101].id])] == [everything[101].id]
    with pytest.raises(ValueError, match="from entry 100 on"):
        select(["parallel"], offset=100, only=[everything[3].id])


BFCL_TEXT_MODEL = """
from reactgraph.evaluation.bfcl.entries import select
from reactgraph.testing import ScriptedChatModel, by_prompt
from tests.unit.evaluation.bfcl.test_bfcl_bare import as_bfcl_text
def model():
    es = select(["simple_python"], offset=100, limit=2)
    return ScriptedChatModel(responses=[by_prompt(*[(e.question, as_bfcl_text(e)) for e in es], default="?")], repeat_last=True)
"""


def test_the_command_runs_the_bare_agent_on_a_later_slice_and_says_so(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    model = write_factory(tmp_path, "bfcl_text_model", BFCL_TEXT_MODEL)
    out = tmp_path / "out"
    command = ["eval", "--suite", "bfcl:simple_python", "--offset", "100", "--limit", "2", "--agents", "bare,reactgraph"]
    assert cli.main([*command, "--out", str(out), *model]) == 0
    records = [json.loads(line) for line in (out / FILE).read_text().splitlines()]
    assert sorted({r["id"] for r in records}) == ["simple_python_100", "simple_python_101"]
    totals = {t["agent"]: t for t in json.loads((out / "eval.json").read_text())["totals"]}
    assert (totals["bare"]["right"], totals["bare"]["calls"]) == (2, 2)
    assert totals["reactgraph"]["calls"] >= 2
    assert "--offset 100 --limit 2" in (out / "eval.md").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--suite", "bfcl:simple_python", "--offset", "-1"], "--offset takes"),
        (["--suite", "bfcl:multi_turn_base", "--agents", "bare"], "single-turn categories only"),
        (["--suite", "bfcl:simple_python", "--agents", "bare,nobody"], "unknown nobody"),
        (["--offset", "3"], "--offset is for a BFCL suite"),
        (["--agents", "bare"], "unknown bare"),  # the task suite has no bare agent
    ],
)
def test_bad_slice_and_agent_options_are_usage_errors(tmp_path, capsys, argv, message):
    assert cli.main(["eval", *argv, "--model", "ollama:none", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def record(agent: str, entry_id: str, category: str, calls: list[dict[str, Any]], replies: list[dict[str, Any]]) -> dict:
    return {"agent": agent, "id": entry_id, "category": category, "calls": calls, "first_reply_calls": calls,
            "error": "", "tokens": 0, "seconds": 9.0, "replies": replies}


def test_the_report_gives_each_agent_its_calls_tokens_model_seconds_and_cache_share():
    a, b = select(["irrelevance"], limit=2)
    call = {"input_tokens": 1000, "output_tokens": 20, "seconds": 3.0}
    records = [
        record("bare", a.id, a.category, [], [call | {"evaluated": 1000}]),
        record("bare", b.id, b.category, [{"name": "f", "args": {}}], [call | {"evaluated": 200}]),  # wrong: a call
        record("reactgraph", a.id, a.category, [], [call | {"evaluated": None}, call | {"seconds": 5.0}]),
        record("reactgraph", b.id, b.category, [], [call]),
    ]
    report = BfclReport(scored([a, b], records), ["reactgraph", "bare"])
    bare, ours = report.totals("irrelevance", "bare"), report.totals("irrelevance", "reactgraph")
    assert (bare.right, bare.calls, bare.prompt_tokens, bare.completion_tokens) == (1, 2, 2000, 40)
    assert (bare.model_seconds_per_entry, bare.model_seconds_per_right) == (3.0, 6.0)
    assert (bare.evaluated_per_call, bare.cache_share) == (600, 0.4)  # 1,200 of 2,000 prompt tokens evaluated
    assert (ours.right, ours.calls, ours.model_seconds_per_entry, ours.model_seconds_per_right) == (2, 3, 5.5, 5.5)
    assert ours.cache_share is None and ours.evaluated_per_call is None  # no log told
    row = next(r for r in report.rows() if r[1] == "bare")
    assert row[5:12] == ["2", "2,000", "40", "3.0", "6.0", "600", "40%"]
    assert json.loads(report.to_json())["totals"][1]["cache_share"] == 0.4


LLAMA_CPP_LOG = {  # what llama-cpp-python's server logs for a completion (its verbose output, as recorded)
    "hit": "Llama.generate: 25 prefix-match hit, remaining 14 prompt tokens to eval\n",
    "cached": "Llama.generate: full prompt already cached, skipping reset\n",
    "timings": "llama_perf_context_print: prompt eval time =    1453.05 ms /    14 tokens\n"
    'INFO:     127.0.0.1:36606 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n',
}


@pytest.mark.parametrize("logged, evaluated", [(("hit", "timings"), 14), (("cached", "timings"), 0), (("timings",), "whole"), ((), None)])
def test_the_server_log_tells_the_prompt_tokens_each_call_evaluated(tmp_path, logged, evaluated):
    log = tmp_path / "server.log"
    log.write_text("an earlier completion\n" + LLAMA_CPP_LOG["hit"] + LLAMA_CPP_LOG["timings"])
    entry = select(["simple_python"], limit=1)[0]

    def reply(messages: Any) -> str:  # the server logs the completion while the call runs
        with log.open("a") as file:
            file.write("".join(LLAMA_CPP_LOG[k] for k in logged))
        return as_bfcl_text(entry)

    made = run_entry(entry, "bare", ScriptedChatModel(responses=[reply]), {}, MODEL, ServerLog(log))
    (call,) = made["replies"]
    expected = call["input_tokens"] if evaluated == "whole" else evaluated  # nothing reused: the whole prompt
    assert call["evaluated"] == expected and call["input_tokens"] > 100


def test_a_server_log_that_is_not_there_gives_no_figure(tmp_path):
    log = ServerLog(Path(tmp_path) / "none.log")
    assert log.mark() == 0 and log.evaluated(0, 500) is None
