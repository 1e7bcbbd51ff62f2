"""tool_calling="python": the tools listed with their JSON schemas, calls written as one Python list (BFCL's prompt
format), shown back as that list."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel
from reactgraph.tool_calling import FORMATS
from reactgraph.tool_calling.reading import ReadContext
from reactgraph.tool_calling.tags import Tags
from reactgraph.tools.specs import tool_specs


def agent_for(model, tools, **options):
    return ReActAgent(model, tools, checkpointer=None, allow_clarification=False, summary_every=0, tool_calling="python", **options)


def test_a_list_of_calls_runs_every_call_and_is_shown_back_as_the_list_each_result_after_its_call(math_tools, log):
    model = ScriptedChatModel(responses=["[multiply(a=6, b=7), add(a=1, b=2)]", "42 and 3"])
    result = agent_for(model, math_tools).run("6*7 and 1+2?")
    assert sorted(log.calls) == [("add", {"a": 1, "b": 2}), ("multiply", {"a": 6, "b": 7})]  # they run in parallel
    assert result.final_answer == "42 and 3" and [s.format for s in result.trace.steps][0] == "python"
    first, second = model.calls
    system = first["messages"][0].content
    assert first["tools"] == [] and first["stop"] == ["\nObservation:"]
    assert '{"name": "add", "description": "Add two integers.", "parameters": {"properties": {"a": {"type": "integer"}' in system
    assert "[func_name1(param1=value1, param2=value2), func_name2(param=value)]" in system
    assert second["messages"][-2].content == "[multiply(a=6, b=7), add(a=1, b=2)]"
    assert second["messages"][-1].content == "multiply(a=6, b=7) returned: 42\nadd(a=1, b=2) returned: 3"


@pytest.mark.parametrize(("reply", "read"), [
    ("```python\n[add(a=1, b=2)]\n```", [("add", {"a": 1, "b": 2})]),
    ("[add(1, 2)]", [("add", {"a": 1, "b": 2})]),  # positional, in the schema's order
    ('[lookup(key="paris")]', [("lookup", {"key": "paris"})]),
    # as the local model wrote them on BFCL: calls quoted, several in one string, name and arguments pairs
    ('["add(a=1, b=2)"]', [("add", {"a": 1, "b": 2})]),
    ("[\"add(a=1, b=2), lookup(key='x')\"]", [("add", {"a": 1, "b": 2}), ("lookup", {"key": "x"})]),
    ('["lookup", {"key": "paris"}, "add", {"a": 1, "b": 2}]', [("lookup", {"key": "paris"}), ("add", {"a": 1, "b": 2})]),
    ('[["add", {"a": 1, "b": 2}], ["add", {"a": 3, "b": 4}]]', [("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})]),
])
def test_the_list_is_read_bare_fenced_or_positional(math_tools, reply, read):
    fmt = FORMATS["python"]
    ctx = fmt.context(tool_specs(math_tools), Tags())
    parsed = fmt.read(AIMessage(content=reply), ctx)
    assert [(a["tool"], a["args"]) for a in parsed.actions] == read and parsed.source == "python"


def test_fields_of_a_tools_one_object_input_are_that_input():
    """BFCL's ThinQ_Connect takes one object, body; the local model wrote its fields as the call's own inputs, and
    each call was rejected: "ThinQ_Connect needs body". A field the object does not name stays a rejection."""
    fields = {"mode": {"type": "string", "enum": ["COOL", "HEAT"]}, "power": {"type": "boolean"}}
    thinq = {"type": "function", "function": {"name": "ThinQ_Connect", "description": "Control the air conditioner.",
             "parameters": {"type": "object", "required": ["body"], "properties": {
                 "body": {"type": "object", "properties": fields, "required": ["mode"]}}}}}
    fmt = FORMATS["python"]
    ctx = fmt.context(tool_specs([thinq]), Tags())
    [bound] = fmt.read(AIMessage(content="[ThinQ_Connect(mode='COOL', power=True)]"), ctx).actions
    assert bound["args"] == {"body": {"mode": "COOL", "power": True}} and "rejection" not in bound
    [whole] = fmt.read(AIMessage(content="[ThinQ_Connect(body={'mode': 'HEAT'})]"), ctx).actions
    assert whole["args"] == {"body": {"mode": "HEAT"}}
    [unknown] = fmt.read(AIMessage(content="[ThinQ_Connect(mode='COOL', fan='HIGH')]"), ctx).actions
    assert "needs body" in unknown["rejection"]


def test_a_call_of_an_unknown_tool_or_with_an_expression_is_a_rejection(math_tools):
    fmt = FORMATS["python"]
    ctx: ReadContext = fmt.context(tool_specs(math_tools), Tags())
    parsed = fmt.read(AIMessage(content="[add(a=1, b=2), count(text='x'), multiply(a=2, b=3 * x)]"), ctx)
    assert [a["tool"] for a in parsed.actions] == ["add", "count", ""]
    assert "rejection" not in parsed.actions[0]
    assert "there is no tool 'count'" in parsed.actions[1]["rejection"]
    assert "use literal values" in parsed.actions[2]["rejection"]
    assert parsed.actions[1]["args"] == {"text": "'x'"} and parsed.actions[2]["args"] == {"written": "multiply(a=2, b=3 * x)"}


def test_a_rejected_call_is_shown_back_as_written(math_tools, log):
    model = ScriptedChatModel(responses=["[add(a=1, b=2), multiply(a=2, b=3 * x)]", "3"])
    agent_for(model, math_tools).run("1+2?")
    assert model.calls[1]["messages"][-2].content == "[add(a=1, b=2), multiply(a=2, b=3 * x)]"
    assert log.calls == [("add", {"a": 1, "b": 2})]


def test_a_reply_that_is_no_list_of_calls_is_read_as_the_native_format_reads_text(math_tools):
    fmt = FORMATS["python"]
    ctx = fmt.context(tool_specs(math_tools), Tags())
    assert fmt.read(AIMessage(content="The answer is [3, 4]."), ctx).answer == "The answer is [3, 4]."
    for data in ('["sin(x)"]', '["classify", "hello"]', '["hello", {"a": 1}]', '["add", {"a": 1, "b": 2}, "x"]', "[[1, 2], [3, 4]]"):
        assert fmt.read(AIMessage(content=data), ctx).answer == data  # no tool on offer named, or no pair: data
    json_call = fmt.read(AIMessage(content='{"name": "add", "arguments": {"a": 2, "b": 3}}'), ctx)
    assert [(a["tool"], a["args"]) for a in json_call.actions] == [("add", {"a": 2, "b": 3})]
