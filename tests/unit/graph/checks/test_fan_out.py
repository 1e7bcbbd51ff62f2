"""One call per item: a list given where the tool takes one value runs the tool once for each item."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.graph.checks._fan_out import fanned_out
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolRegistry
from reactgraph.tools.specs import ToolSpec

ran: list[dict] = []


def present_value(payment: float, rate: float, years: int) -> str:
    """The present value of a yearly payment."""
    ran.append({"payment": payment, "rate": rate, "years": years})
    return f"{payment * (1 - (1 + rate) ** -years) / rate:.2f}"


def test_a_list_for_a_single_value_runs_the_tool_once_per_item():
    ran.clear()
    tools = ToolRegistry()
    tools.register("present_value", present_value)
    model = ScriptedChatModel(responses=[tool_call("present_value", {"payment": 1000, "rate": 0.05, "years": [10, 20, 30]}), "done"])
    result = ReActAgent(model=model, tools=tools, checkpointer=None).run("Present value of 1000 a year at 5% for 10, 20 and 30 years?")
    assert result.termination_reason is TerminationReason.SUCCESS
    assert sorted(ran, key=lambda r: r["years"]) == [{"payment": 1000, "rate": 0.05, "years": y} for y in (10, 20, 30)]  # concurrent
    step = result.trace.steps[0]
    assert [a.args["years"] for a in step.actions] == [10, 20, 30]
    assert [o.content for o in step.observations] == ["7721.73", "12462.21", "15372.45"]
    assert len({a.id for a in step.actions}) == 3


SPEC = ToolSpec(name="play", params=("artist", "minutes", "tags"), types=("string", "integer", "array"))


def test_lists_of_the_same_length_are_taken_together_and_others_left_alone():
    together = fanned_out([{"id": "c", "tool": "play", "args": {"artist": ["A", "B"], "minutes": [20, 15]}, "index": 0}], [SPEC])
    assert [a["args"] for a in together] == [{"artist": "A", "minutes": 20}, {"artist": "B", "minutes": 15}]
    assert [(a["id"], a["index"]) for a in together] == [("c_1", 0), ("c_2", 1)]
    kept = [
        {"id": "d", "tool": "play", "args": {"artist": ["A", "B"], "minutes": [20]}, "index": 0},  # lengths differ
        {"id": "e", "tool": "play", "args": {"artist": "A", "tags": ["x", "y"]}, "index": 1},  # the tool takes a list
        {"id": "f", "tool": "play", "args": {"artist": [["A"], ["B"]]}, "index": 2},  # lists of lists
        {"id": "g", "tool": "play", "args": {"artist": ["A"]}, "index": 3},  # one item
        {"id": "h", "tool": "other", "args": {"artist": ["A", "B"]}, "index": 4},  # no such tool
        {"id": "i", "tool": "play", "args": {"artist": ["A", "B"]}, "index": 5, "rejection": "x", "rejection_kind": "malformed_output"},
    ]
    assert fanned_out(kept, [SPEC]) == kept
