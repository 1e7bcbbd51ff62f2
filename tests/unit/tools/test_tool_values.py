"""A tool's structured result kept on the step: the value it returned (a dict, a number, an artifact) beside the text
the model saw, which is the text ``create_agent`` shows its model for the same tool."""

from __future__ import annotations

from langchain.tools import tool
from pydantic import BaseModel

from reactgraph import ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.create_agent_peer import create_agent_run, reactgraph_run, tool_results


@tool
def forecast(city: str) -> dict:
    """The forecast for a city."""
    return {"city": city, "high": 21.5, "days": [1, 2]}


@tool
def count(word: str) -> int:
    """How many letters a word has."""
    return len(word)


@tool(response_format="content_and_artifact")
def rows(table: str) -> tuple[str, list[dict]]:
    """The rows of a table: a summary for the model, the rows as the artifact."""
    return f"2 rows of {table}", [{"id": 1}, {"id": 2}]


class Point(BaseModel):
    x: int
    y: int


def point() -> Point:
    """A point."""
    return Point(x=1, y=2)


def test_the_value_is_kept_beside_the_text_create_agent_shows():
    script = [tool_call("forecast", {"city": "Rome"}), tool_call("count", {"word": "hello"}), "done"]
    question = "What is the forecast for Rome, and how many letters has hello?"
    state, _ = create_agent_run(script, [forecast, count], question)
    result, _, _ = reactgraph_run(script, [forecast, count], question)
    shown = [o for step in result.trace.steps for o in step.observations]
    assert [o.content for o in shown] == tool_results(state)
    assert shown[0].value == {"city": "Rome", "high": 21.5, "days": [1, 2]} and shown[1].value == 5


def test_an_artifact_is_the_value():
    script = [tool_call("rows", {"table": "users"}), "done"]
    state, _ = create_agent_run(script, [rows], "How many rows has the users table?")
    result, _, _ = reactgraph_run(script, [rows], "How many rows has the users table?")
    observation = result.trace.steps[0].observations[0]
    assert observation.content == tool_results(state)[0] == "2 rows of users"
    assert observation.value == state["messages"][2].artifact == [{"id": 1}, {"id": 2}]


def test_a_pydantic_value_is_kept_as_data_and_text_has_no_value():
    model = ScriptedChatModel(responses=[tool_call("point", {}), tool_call("echo", {"text": "hi"}), "Final Answer: done"])

    def echo(text: str) -> str:
        """Echo."""
        return text

    result = ReActAgent(model, [point, echo], checkpointer=None).run("Get a point, then echo hi.")
    first, second = (s.observations[0] for s in result.trace.steps[:2])
    assert first.value == {"x": 1, "y": 2} and second.value is None and second.content == "hi"


def test_a_value_bigger_than_the_limit_is_not_kept():
    def big() -> list:
        """A big list."""
        return list(range(5000))

    model = ScriptedChatModel(responses=[tool_call("big", {}), "Final Answer: done"])
    result = ReActAgent(model, [big], checkpointer=None, max_tool_output_bytes=2048).run("go")
    assert result.trace.steps[0].observations[0].value is None
    assert "[cut:" in result.trace.steps[0].observations[0].content
