"""Tools whose argument schema is a JSON schema (MCP tools, LangChain tools built from a dict):
validated like typed functions, described to the model like them."""

from __future__ import annotations

import pytest
from langchain_core.tools import StructuredTool

from reactgraph.config import AgentConfig
from reactgraph.tools import ToolRegistry
from reactgraph.tools.execution import execute
from reactgraph.tools.specs import tool_specs

SCHEMA = {
    "type": "object",
    "properties": {
        "width": {"type": "number"},
        "height": {"type": "number", "default": 1},
        "unit": {"type": "string", "enum": ["m", "ft"]},
        "exact": {"type": "boolean"},
    },
    "required": ["width"],
}
EXPECTED = 'Expected arguments: width: number, height: number (optional, leave it out for 1), unit: "m" | "ft" (optional), exact: boolean (optional)'


def action(tool: str, **args) -> dict:
    return {"id": "call_1", "index": 0, "tool": tool, "args": args}


@pytest.fixture
def calls() -> list[dict]:
    return []


@pytest.fixture
def registry(calls) -> ToolRegistry:
    def area(**args) -> str:
        calls.append(args)
        return f"{args['width'] * args.get('height', 1)} {args.get('unit', 'm')}2"

    return ToolRegistry([StructuredTool(name="area", description="Area of a rectangle.", args_schema=SCHEMA, func=area)])


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({}, "'width' is a required property"),
        ({"width": "wide"}, "width: 'wide' is not of type 'number'"),
        ({"width": 2, "colour": "red"}, "unexpected argument 'colour'"),
        ({"width": 2, "unit": "cm"}, "unit: 'cm' is not one of ['m', 'ft']"),
    ],
)
def test_bad_arguments_are_invalid_parameters_listing_what_was_expected(registry, calls, args, problem):
    outcome = execute(action("area", **args), registry, AgentConfig())
    assert outcome["error_kind"] == "invalid_parameters" and calls == []
    assert problem in outcome["content"] and EXPECTED in outcome["content"]
    assert outcome["content"].endswith("Fix the arguments and call again.")


def test_good_arguments_run_the_tool(registry, calls):
    outcome = execute(action("area", width=2, height=3, unit="ft"), registry, AgentConfig())
    assert (outcome["status"], outcome["content"]) == ("ok", "6 ft2")
    assert calls == [{"width": 2, "height": 3, "unit": "ft"}]


def test_numbers_and_yes_no_written_as_text_are_read_as_their_type(registry, calls):
    """As pydantic reads them for a typed function: the text format writes every input as text."""
    outcome = execute(action("area", width="2.5", height="2", exact="true"), registry, AgentConfig())
    assert (outcome["status"], outcome["content"]) == ("ok", "5.0 m2")
    assert calls == [{"width": 2.5, "height": 2, "exact": True}]


def test_a_schema_that_allows_more_arguments_takes_them(calls):
    tool = StructuredTool(
        name="echo", description="Echo.", func=lambda **a: calls.append(a) or "ok",
        args_schema={"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": True},
    )
    outcome = execute(action("echo", text="hi", extra=1), ToolRegistry([tool]), AgentConfig())
    assert outcome["status"] == "ok" and calls == [{"text": "hi", "extra": 1}]


def test_nested_values_are_checked_through_references(calls):
    schema = {
        "type": "object",
        "properties": {"point": {"$ref": "#/$defs/Point"}},
        "required": ["point"],
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
    }
    tool = StructuredTool(name="plot", description="Plot a point.", func=lambda **a: calls.append(a) or "ok", args_schema=schema)
    outcome = execute(action("plot", point={"x": "left"}), ToolRegistry([tool]), AgentConfig())
    assert outcome["error_kind"] == "invalid_parameters" and calls == []
    assert "point.x: 'left' is not of type 'integer'" in outcome["content"]
    assert "Expected arguments: point: object" in outcome["content"]


def test_the_model_sees_a_json_schema_tool_like_a_typed_function(registry):
    (spec,) = tool_specs(entry.tool for entry in registry.list())
    assert (spec.name, spec.description, spec.params, spec.required) == ("area", "Area of a rectangle.", ("width", "height", "unit", "exact"), ("width",))
    assert spec.types == ("number", "number", "string", "boolean") and spec.choices == (("unit", ("m", "ft")),)
    assert spec.signature() == "area[<width>, <height>, <unit>, <exact>]"


def test_parameter_descriptions_from_metadata_reach_a_json_schema(registry):
    tool = registry.get("area").tool
    described = ToolRegistry().register("area", tool, {"parameters": {"width": "In metres."}}).tool
    assert described.args["width"] == {"type": "number", "description": "In metres."}
    assert "description" not in SCHEMA["properties"]["width"]  # the tool's own schema is left as it was
