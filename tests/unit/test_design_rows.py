"""Rows of the design documents reactgraph grew from, working as written: ``step.action`` and ``step.observation``,
``enable_scratchpad``, the demo weather and flight tools (``reactgraph.testing``, never among the built-ins), and the
examples in ``examples/``, run on a scripted model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from reactgraph import ConfigError, ReActAgent
from reactgraph.testing import DEMO_TOOLS, ScriptedChatModel, get_weather, search_flights, tool_call, tool_calls
from reactgraph.tools.builtin import BUILTINS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_step_shows_its_actions_and_observations_as_text(math_tools):
    model = ScriptedChatModel(responses=[
        tool_calls([("add", {"a": 2, "b": 3}), ("multiply", {"a": 4, "b": 5})], thought="Both."),
        "5 and 20",
    ])
    result = ReActAgent(model, math_tools, checkpointer=None, summary_every=0).run("2+3 and 4*5?")
    first, final = result.trace.steps
    assert (first.action, first.observation) == ("add[a=2, b=3]; multiply[a=4, b=5]", "5\n20")
    assert (first.actions[0].tool, first.actions[0].args, first.observations[0].status) == ("add", {"a": 2, "b": 3}, "ok")
    assert (final.action, final.observation) == ("", "")
    with pytest.raises(AttributeError):
        first.action = None  # a view, not a field
    assert "action" not in first.model_dump() and "observation" not in first.model_dump()


def test_the_requirements_trace_printout_runs_as_written(math_tools, capsys):
    """Section 5.1 of the requirements, with reactgraph's import and class names."""
    model = ScriptedChatModel(responses=[tool_call("multiply", {"a": 12, "b": 8}, thought="Multiply them."), "96"])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    result = agent.run("What is 12 times 8?")
    print(f"Answer: {result.final_answer}")
    for step in result.trace.steps:
        print(f"Thought: {step.thought}")
        print(f"Action: {step.action}")
        print(f"Observation: {step.observation[:200]}...")
    assert capsys.readouterr().out.splitlines() == [
        "Answer: 96", "Thought: Multiply them.", "Action: multiply[a=12, b=8]", "Observation: 96...",
        "Thought: ", "Action: ", "Observation: ...",
    ]


def test_the_requirements_custom_termination_runs_as_written_and_ends_custom_with_what_it_found():
    """Section 5.2 of the requirements: a callback that stops once a tool's result says FOUND:."""
    lookups = {"alpha": "nothing here", "beta": "FOUND: the key is 42"}

    def search(query: str) -> str:
        """Look a term up."""
        return lookups.get(query, "nothing here")

    def custom_termination(step):
        return "FOUND:" in step.observation

    model = ScriptedChatModel(responses=[
        tool_call("search", {"query": "alpha"}), tool_call("search", {"query": "beta"}), "It is 42.",
    ])
    agent = ReActAgent(model=model, tools=[search], checkpointer=None, termination_callback=custom_termination)
    result = agent.run("What is the key? Try alpha, then beta.")
    assert result.termination_reason == "custom" and len(model.calls) == 2
    assert result.final_answer == "FOUND: the key is 42"  # what the matching step found
    assert [s.observation for s in result.trace.steps] == ["nothing here", "FOUND: the key is 42"]


def test_enable_scratchpad_is_taken_as_what_reactgraph_always_does_and_refused_off():
    agent = ReActAgent(ScriptedChatModel(responses=["hi"]), [], checkpointer=None, enable_scratchpad=True)
    assert agent.run("hello").final_answer == "hi" and agent.get_current_scratchpad() == "Final Answer: hi"
    with pytest.raises(ConfigError, match=r"enable_scratchpad=False: the scratchpad cannot be turned off: .*get_current_scratchpad"):
        ReActAgent(ScriptedChatModel(responses=["hi"]), [], checkpointer=None, enable_scratchpad=False)


def test_the_demo_tools_give_fixed_data_and_clear_errors():
    assert get_weather(" new  York") == "New York: 16 °C, windy"
    flights = search_flights("Paris", "Rome", "2026-05-01")
    assert flights == search_flights("paris", "ROME", "2026-05-01")  # the same every time
    lines = flights.splitlines()
    assert lines[0] == "Paris -> Rome on 2026-05-01:" and len(lines) == 3 and all(line.endswith(" EUR") for line in lines[1:])
    assert search_flights("Paris", "Rome", "2026-05-02") != flights
    with pytest.raises(ValueError, match=r"no city 'Berlin'; it knows Paris, Rome, London, Tokyo, New York"):
        get_weather("Berlin")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        search_flights("Paris", "Rome", "tomorrow")
    assert not {t.__name__ for t in DEMO_TOOLS} & set(BUILTINS)


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_travel_example_runs_its_tools_and_shows_each_call(capsys, monkeypatch):
    example = load_example("travel_agent")
    model = ScriptedChatModel(responses=[
        tool_calls([("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Paris"})], thought="Compare."),
        tool_call("search_flights", {"origin": "Paris", "destination": "Rome", "date": "2026-05-01"}),
        "Rome is warmer (24 °C against 18 °C); RG666 leaves at 08:30.",
    ])
    monkeypatch.setattr(example, "make_agent", lambda spec=None, make=example.make_agent: make(model))
    example.main(["Is it warmer in Rome than in Paris? Which flights go from Paris to Rome on 2026-05-01?"])
    flights = search_flights("Paris", "Rome", "2026-05-01")
    assert capsys.readouterr().out == "\n".join([
        "get_weather(city='Rome') -> Rome: 24 °C, sunny",  # each step's first call (the turn called two)
        f"search_flights(origin='Paris', destination='Rome', date='2026-05-01') -> {flights}",
        "Answer: Rome is warmer (24 °C against 18 °C); RG666 leaves at 08:30.",
    ]) + "\n"


def test_every_example_is_tested():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == {"travel_agent"}, "a new example needs its test here"
