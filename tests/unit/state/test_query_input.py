"""A query that is not a string is refused with an error that names the field, in every entry point."""

from __future__ import annotations

import asyncio

import pytest

from reactgraph import InvalidInputError, ReActAgent
from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel

BAD = [123, b"what is 2+2?", ["what", "is"], {"text": "hi"}, 4.5]


def agent(model: ScriptedChatModel | None = None) -> ReActAgent:
    return ReActAgent(model=model or ScriptedChatModel(responses=["4"]), checkpointer=None)


def refused(call) -> str:
    with pytest.raises(InvalidInputError) as caught:
        call()
    assert isinstance(caught.value, TypeError)
    return str(caught.value)


@pytest.mark.parametrize("query", BAD, ids=lambda q: type(q).__name__)
def test_run_refuses_a_query_that_is_not_a_string(query):
    message = refused(lambda: agent().run(query))
    assert message.startswith(f"query must be a string, got {type(query).__name__}")


def test_every_entry_point_refuses_it_before_the_model_is_called():
    model = ScriptedChatModel(responses=["4"])
    a = agent(model)
    refused(lambda: list(a.stream(123)))
    refused(lambda: list(a.stream_updates(123)))
    refused(lambda: asyncio.run(a.arun(123)))

    async def consume():
        return [item async for item in a.astream(123)]

    refused(lambda: asyncio.run(consume()))
    assert model.position == 0


def test_the_served_graph_refuses_it_naming_the_field():
    graph = make_graph(model=ScriptedChatModel(responses=["4"]), tools=[])
    assert "query must be a string, got int" in refused(lambda: graph.invoke({"query": 123}))
    assert graph.invoke({"query": "2+2?"})["final_answer"] == "4"
