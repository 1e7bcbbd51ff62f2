"""ReActAgent(..., output_schema=...): the final answer read into a pydantic model (or a signature
string's), natively through the model's structured output when the text does not fit, sent back with
the validation error otherwise (max_output_retries), and kept as plain JSON data in the checkpoint. The scripted
answers are not worked out with the tools: ``answer_checks=0`` keeps them from being sent back to be checked."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, SystemMessage
from pydantic import BaseModel

from reactgraph import ErrorKind, ReActAgent, build_graph
from reactgraph import TerminationReason as R
from reactgraph.persistence.reading import thread_config
from reactgraph.testing import ScriptedChatModel, tool_call


class Distance(BaseModel):
    """A distance with its unit."""

    meters: float
    unit: str


SIGNATURE = "question -> meters: float, unit: str"
GOOD = '{"meters": 12.5, "unit": "m"}'
QUESTION = "How far is 2.5 times 5 meters?"


def system_prompt(call: dict) -> str:
    return next(m.content for m in call["messages"] if isinstance(m, SystemMessage))


def purposes(result) -> list[list[str]]:
    return [[c.purpose for c in step.calls] for step in result.trace.steps]


def test_an_answer_that_fits_is_the_typed_output(math_tools, log):
    model = ScriptedChatModel(responses=[tool_call("multiply", {"a": 5, "b": 2}), GOOD])
    agent = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Distance)
    result = agent.run(QUESTION, thread_id="t")
    assert result.termination_reason is R.SUCCESS
    assert result.output == Distance(meters=12.5, unit="m") and isinstance(result.output, Distance)
    assert result.final_answer == GOOD  # the text answer beside the typed one
    assert log.calls == [("multiply", {"a": 5, "b": 2})]
    assert '{"meters": <number>, "unit": <string>}' in system_prompt(model.calls[0])  # the prompt asks for the shape
    assert purposes(result) == [["think"], ["think"]]  # no structured-output call for an answer that fits
    stored = agent.graph.get_state(thread_config("t")).values["output"]
    assert stored == {"meters": 12.5, "unit": "m"} and type(stored) is dict  # plain data in the checkpoint
    assert agent.get_result("t").output == result.output  # read back from the checkpoint


def test_a_wrong_answer_is_sent_back_with_the_error_and_the_next_one_is_the_output(math_tools):
    model = ScriptedChatModel(
        responses=[
            "Thought: I know it.\nFinal Answer: about twelve meters",
            'Thought: As JSON.\nFinal Answer: {"meters": 12.5, "unit": "m"}',
        ]
    )
    result = ReActAgent(model=model, tools=math_tools, answer_checks=0, tool_calling="text", output_schema=Distance).run(QUESTION)
    assert result.termination_reason is R.SUCCESS
    assert result.output == Distance(meters=12.5, unit="m") and result.final_answer == GOOD
    first, last = result.trace.steps
    assert first.kind == "tools" and last.kind == "final"
    [observation] = first.observations
    assert observation.error_kind is ErrorKind.INVALID_OUTPUT
    assert observation.content.startswith("Error (invalid_output): ")
    assert "'about twelve meters'" in observation.content and '{"meters": <number>, "unit": <string>}' in observation.content
    assert observation.content in model.calls[1]["messages"][-1].content  # the model saw why
    assert "Final Answer: as a JSON object" in system_prompt(model.calls[0])  # text format: JSON after the tag
    assert [e["error_kind"] for e in result.error_history] == ["invalid_output"]


def test_a_signature_string_gives_the_same_typed_result(math_tools):
    def run(schema):
        model = ScriptedChatModel(responses=["twelve and a half", GOOD])
        return ReActAgent(model=model, tools=math_tools, answer_checks=0, tool_calling="text", output_schema=schema).run(QUESTION)

    typed, signed = run(Distance), run(SIGNATURE)
    assert signed.output.model_dump() == typed.output.model_dump() == {"meters": 12.5, "unit": "m"}
    assert type(signed.output).__name__ == "Answer" and signed.output.meters == 12.5
    assert [o.error_kind for s in signed.trace.steps for o in s.observations] == [ErrorKind.INVALID_OUTPUT]


def test_native_structured_output_turns_a_text_answer_into_the_type(math_tools):
    model = ScriptedChatModel(responses=["It is 12.5 meters.", tool_call("Distance", {"meters": 12.5, "unit": "m"})])
    result = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Distance).run(QUESTION)
    assert result.termination_reason is R.SUCCESS
    assert result.output == Distance(meters=12.5, unit="m") and result.final_answer == "It is 12.5 meters."
    structuring = model.calls[1]
    assert structuring["tools"] == ["Distance"]  # the model's own structured output (here: a forced tool call)
    assert "It is 12.5 meters." in structuring["messages"][-1].content and QUESTION in structuring["messages"][-1].content
    [step] = result.trace.steps
    assert [c.purpose for c in step.calls] == ["think", "structured_output"]
    assert step.calls[1].token_usage.total_tokens > 0
    assert result.token_usage.total_tokens == sum(c.token_usage.total_tokens for c in step.calls)


def test_native_structuring_that_fails_sends_the_answer_back(math_tools):
    model = ScriptedChatModel(responses=["It is far.", AIMessage(content="no idea"), GOOD])
    result = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Distance).run(QUESTION)
    assert result.output == Distance(meters=12.5, unit="m")
    assert purposes(result) == [["think", "structured_output"], ["think"]]
    assert result.trace.steps[0].observations[0].error_kind is ErrorKind.INVALID_OUTPUT
    assert model.position == 3


def test_used_up_retries_end_the_run_as_failure_keeping_the_text_answer(math_tools):
    model = ScriptedChatModel(responses=["Final Answer: twelve", "Final Answer: still twelve"])
    agent = ReActAgent(model=model, tools=math_tools, answer_checks=0, tool_calling="text", output_schema=Distance, max_output_retries=1)
    result = agent.run(QUESTION)
    assert result.termination_reason is R.FAILURE and not result.partial
    assert result.final_answer == "still twelve" and result.output is None
    assert result.termination_detail.startswith("the answer did not fit the output schema 2 times (max_output_retries=1); last: ")
    assert "'still twelve'" in result.termination_detail
    assert model.position == 2  # no partial-answer call: the answer is there, only not in shape


def test_a_bad_signature_or_schema_is_refused_when_the_agent_is_made():
    with pytest.raises(ValueError, match=r"unknown type 'flot' in 'answer: flot'"):
        ReActAgent(model=ScriptedChatModel(responses=[]), output_schema="question -> answer: flot")
    with pytest.raises(TypeError, match="output_schema must be a pydantic model class"):
        ReActAgent(model=ScriptedChatModel(responses=[]), output_schema=dict)


def test_the_schema_shows_in_the_graphs_output_json_schema():
    typed = build_graph(ScriptedChatModel(responses=[]), [], output_schema=Distance).get_output_jsonschema()
    assert typed["properties"]["output"]["anyOf"][0] == {"$ref": "#/$defs/Distance"}
    assert set(typed["$defs"]["Distance"]["properties"]) == {"meters", "unit"}
    signed = build_graph(ScriptedChatModel(responses=[]), [], output_schema=SIGNATURE).get_output_jsonschema()
    assert set(signed["$defs"]["Answer"]["properties"]) == {"meters", "unit"}
    plain = build_graph(ScriptedChatModel(responses=[]), []).get_output_jsonschema()
    assert "Distance" not in plain.get("$defs", {}) and "Answer" not in plain.get("$defs", {})


def test_without_a_schema_the_prompt_and_the_result_are_as_before(math_tools):
    plain_model, typed_model = ScriptedChatModel(responses=["12.5 m"]), ScriptedChatModel(responses=[GOOD])
    plain = ReActAgent(model=plain_model, tools=math_tools, answer_checks=0).run(QUESTION)
    ReActAgent(model=typed_model, tools=math_tools, answer_checks=0, output_schema=Distance).run(QUESTION)
    assert plain.output is None and plain.final_answer == "12.5 m"
    plain_system, typed_system = system_prompt(plain_model.calls[0]), system_prompt(typed_model.calls[0])
    assert typed_system.startswith(plain_system + "\n\n") and "JSON" not in plain_system
    assert [m.content for m in plain_model.calls[0]["messages"][1:]] == [m.content for m in typed_model.calls[0]["messages"][1:]]


@pytest.mark.parametrize(("partial", "expected"), [(GOOD, Distance(meters=12.5, unit="m")), ("about twelve", None)])
def test_a_partial_answer_at_a_limit_has_an_output_only_when_it_fits(math_tools, partial, expected):
    model = ScriptedChatModel(responses=[tool_call("multiply", {"a": 5, "b": 2}), partial])
    result = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Distance, max_iterations=1).run(QUESTION)
    assert result.termination_reason is R.MAX_ITERATIONS and result.partial and result.final_answer == partial
    assert result.output == expected
    assert '{"meters": <number>, "unit": <string>}' in system_prompt(model.calls[1])  # the partial answer is asked in shape


def test_a_new_run_on_the_thread_starts_without_the_last_output(math_tools):
    model = ScriptedChatModel(responses=[GOOD, "I cannot complete the task."])
    agent = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Distance)
    assert agent.run(QUESTION, thread_id="t").output is not None
    again = agent.run("And the next one?", thread_id="t")
    assert again.termination_reason is R.FAILURE and again.output is None
    assert agent.graph.get_state(thread_config("t")).values["output"] is None


def test_an_answer_in_the_shape_the_error_showed_is_no_copy_of_the_error(math_tools):
    """The invalid_output observation shows the shape; an answer that follows it shares most of its words."""

    class City(BaseModel):
        name: str

    class Place(BaseModel):
        city: City

    class Route(BaseModel):
        origin: Place

    class Trip(BaseModel):
        route: Route

    good = '{"route": {"origin": {"city": {"name": "Oslo"}}}}'
    model = ScriptedChatModel(responses=["From Oslo", AIMessage(content="no"), good])
    result = ReActAgent(model=model, tools=math_tools, answer_checks=0, output_schema=Trip).run("Where from?")
    assert result.termination_reason is R.SUCCESS
    assert result.output == Trip(route=Route(origin=Place(city=City(name="Oslo"))))
    assert [o.error_kind for s in result.trace.steps for o in s.observations] == [ErrorKind.INVALID_OUTPUT]
