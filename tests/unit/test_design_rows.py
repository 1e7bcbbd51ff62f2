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


def test_a_step_shows_its_first_action_and_observation(math_tools):
    model = ScriptedChatModel(responses=[
        tool_calls([("add", {"a": 2, "b": 3}), ("multiply", {"a": 4, "b": 5})], thought="Both."),
        "5 and 20",
    ])
    result = ReActAgent(model, math_tools, checkpointer=None, summary_every=0).run("2+3 and 4*5?")
    first, final = result.trace.steps
    assert (first.action.tool, first.action.args) == ("add", {"a": 2, "b": 3})
    assert str(first.observation) == "5" and first.observation.status == "ok"
    assert first.action is first.actions[0] and first.observation is first.observations[0]
    assert final.action is None and final.observation is None
    with pytest.raises(AttributeError):
        first.action = None  # a view, not a field
    assert "action" not in first.model_dump() and "observation" not in first.model_dump()


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
    example.main(["Is it warmer in Rome than in Paris? Which flights go there on 2026-05-01?"])
    flights = search_flights("Paris", "Rome", "2026-05-01")
    assert capsys.readouterr().out == "\n".join([
        "get_weather(city='Rome') -> Rome: 24 °C, sunny",  # each step's first call (the turn called two)
        f"search_flights(origin='Paris', destination='Rome', date='2026-05-01') -> {flights}",
        "Answer: Rome is warmer (24 °C against 18 °C); RG666 leaves at 08:30.",
    ]) + "\n"


def test_every_example_is_tested():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == {"travel_agent"}, "a new example needs its test here"
