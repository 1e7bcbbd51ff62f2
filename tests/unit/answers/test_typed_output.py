"""reactgraph.answers.typed: a signature string read into a pydantic model (no eval), an answer text read
into the schema with the problem as text, and the answer's shape as the prompt shows it."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from reactgraph.answers.typed import SignatureError, answer_shape, output_model, parse_signature, read_answer


class Distance(BaseModel):
    """A distance with its unit."""

    meters: float = Field(description="The distance in meters.")
    unit: str


# -- signature strings --------------------------------------------------------------------


def test_a_signature_gives_the_output_fields_with_their_types():
    model = parse_signature("question -> answer: float, unit: str")
    assert list(model.model_fields) == ["answer", "unit"]
    assert model.model_validate({"answer": "12.5", "unit": "m"}).answer == 12.5
    assert {f.annotation for f in model.model_fields.values()} == {float, str}
    assert all(f.is_required() for f in model.model_fields.values())


def test_every_supported_type_reads_and_validates():
    model = parse_signature(
        "q -> n: int, ok: bool, tags: list[str], grid: list[list[int]], maybe: float | None, table: dict, "
        "scores: dict[str, float], loose: list, note"
    )
    value = model.model_validate(
        {"n": 3, "ok": True, "tags": ["a"], "grid": [[1, 2]], "table": {"x": [1]}, "scores": {"a": 0.5}, "loose": [1, "a"], "note": "hi"}
    )
    assert value.maybe is None  # an optional field may be left out
    assert value.grid == [[1, 2]] and value.scores == {"a": 0.5} and value.note == "hi"
    assert model.model_fields["note"].annotation is str  # a name without a type is a string
    with pytest.raises(ValueError, match="grid"):
        model.model_validate({**value.model_dump(), "grid": [["x"]]})


def test_the_inputs_may_be_left_out():
    assert list(parse_signature("answer: int").model_fields) == ["answer"]


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        ("question -> answer: flot", r"unknown type 'flot' in 'answer: flot'"),
        ("question -> answer: __import__('os').system('x')", r"cannot read \"\('os'\)\.system\('x'\)\" in \"answer: __import__"),
        ("question -> 1st: int", r"'1st' is not a field name"),
        ("question -> answer: int, answer: str", r"'answer' is named twice"),
        ("question -> ", r"no output field"),
        ("question -> answer: list[int", r"in 'answer: list\[int'"),
        ("question -> answer: dict[int, str]", r"dict keys are strings"),
        ("question -> answer: list[int, str]", r"list takes one type"),
        ("a -> b -> c: int", r"more than one '->'"),
        ("question -> json: str", r"'json' is a name pydantic reserves"),
        ("question -> answer: None", r"'None' alone"),
        ("bad input -> answer: int", r"'bad input' is not an input name"),
    ],
)
def test_a_bad_signature_is_a_value_error_naming_the_bad_part(signature, message):
    with pytest.raises(SignatureError, match=message) as raised:
        parse_signature(signature)
    assert isinstance(raised.value, ValueError)


def test_output_model_takes_a_model_class_or_a_signature_and_refuses_anything_else():
    assert output_model(None) is None
    assert output_model(Distance) is Distance
    assert list(output_model("q -> a: int").model_fields) == ["a"]
    with pytest.raises(TypeError, match="output_schema must be a pydantic model class or a signature string"):
        output_model(dict)


# -- reading an answer --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"meters": 12.5, "unit": "m"}',
        'The distance:\n```json\n{"meters": 12.5, "unit": "m"}\n```',
        'It is {"meters": "12.5", "unit": "m"} as asked.',
        "{'meters': 12.5, 'unit': 'm',}",  # a small model's Python-ish JSON
    ],
)
def test_an_answer_is_read_from_a_json_object(text):
    value, problem = read_answer(text, Distance)
    assert problem is None and value == Distance(meters=12.5, unit="m")


def test_a_one_field_schema_takes_a_bare_value():
    model = parse_signature("question -> answer: float")
    assert read_answer("42.5", model) == (model(answer=42.5), None)
    assert read_answer('{"answer": 7}', model)[0] == model(answer=7)
    text_model = parse_signature("question -> city: str")
    assert read_answer("Paris", text_model)[0] == text_model(city="Paris")
    assert read_answer('"Paris"', text_model)[0] == text_model(city="Paris")


def test_an_answer_that_does_not_fit_gives_the_problem_as_text():
    value, problem = read_answer('{"meters": "twelve", "unit": "m"}', Distance)
    assert value is None
    assert "meters: Input should be a valid number" in problem and "'twelve'" in problem
    assert read_answer('{"meters": 3}', Distance)[1] == "unit: Field required"
    value, problem = read_answer("about twelve meters", Distance)
    assert value is None and problem == "the answer is no JSON object: 'about twelve meters'"
    _, problem = read_answer("about twelve", parse_signature("q -> answer: float"))
    assert problem.startswith("answer: Input should be a valid number") and "'about twelve'" in problem


# -- the shape the prompt shows -------------------------------------------------------------


def test_the_shape_shows_each_field_with_its_type_and_description():
    shape = answer_shape(Distance)
    assert shape.splitlines()[0] == '{"meters": <number>, "unit": <string>}'
    assert "- meters: The distance in meters." in shape.splitlines()


def test_the_shape_of_nested_and_optional_fields():
    class Place(BaseModel):
        city: str
        rank: int | None = None

    class Trip(BaseModel):
        stops: list[Place]
        tags: dict[str, bool]

    assert answer_shape(Trip) == '{"stops": [{"city": <string>, "rank": <integer> | null}, ...], "tags": {<string>: <boolean>}}'
    assert answer_shape(parse_signature("q -> answer: float")) == '{"answer": <number>}'
