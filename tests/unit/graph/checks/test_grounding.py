"""Calculations made too early: a calculation (a built-in one, or a call on numbers only) on numbers that neither the question nor a tool result holds, made beside a lookup
in the same reply, is not run; the lookup runs, and the call made again with the numbers the lookup gave does."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.graph.checks._grounding import known_numbers, premature
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolRegistry

BAKERY = "Fennel Street bakery sells sourdough loaves for 4.80 each and bakes 60 of them every morning."
ran: list[tuple[str, dict]] = []


def search_documents(query: str) -> str:
    """Search the documents for the query."""
    ran.append(("search_documents", {"query": query}))
    return BAKERY


def agent(model: ScriptedChatModel) -> ReActAgent:
    tools = ToolRegistry.with_builtins(["calculator", "circle_area"])
    tools.register("search_documents", search_documents)
    return ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0)


def test_a_calculation_on_guessed_numbers_beside_a_lookup_waits_for_the_lookup():
    ran.clear()
    model = ScriptedChatModel(responses=[
        tool_calls([("search_documents", {"query": "Fennel Street bakery"}), ("calculator", {"expression": "10 * 50"})]),
        tool_call("calculator", {"expression": "60 * 4.80"}),
        "288",
    ])
    result = agent(model).run("What is the Fennel Street bakery's daily sourdough revenue?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "288")
    first = result.trace.steps[0]
    assert [o.status for o in first.observations] == ["ok", "error"]
    assert first.observations[1].error_kind == "premature_call"
    assert "search_documents" in first.observations[1].content and "10" not in first.observations[1].content
    assert ran == [("search_documents", {"query": "Fennel Street bakery"})]
    assert result.trace.steps[1].observations[0].content == "288"  # 60 and 4.80 were in the lookup's result
    assert result.tool_usage == {"search_documents": 1, "calculator": 1}


def test_numbers_from_the_question_or_without_a_lookup_beside_them_run_at_once():
    ran.clear()
    model = ScriptedChatModel(responses=[
        tool_calls([("search_documents", {"query": "boxes"}), ("calculator", {"expression": "24 * 17 + 9"})]), "417",
    ])
    assert [o.status for o in agent(model).run("17 boxes of 24 cans and 9 loose cans: how many?").trace.steps[0].observations] == ["ok", "ok"]
    areas = ScriptedChatModel(responses=[tool_calls([("circle_area", {"radius": r}) for r in range(1, 5)]), "94.2"])
    steps = agent(areas).run("Add up the areas of the circles of radius 1, 2, 3 and 4.").trace.steps
    assert [o.status for o in steps[0].observations] == ["ok"] * 4  # no lookup is beside them


def test_premature_reads_numbers_at_any_depth_and_holds_back_calculations_only():
    known = known_numbers({"question": "Costs were 64,100.", "steps": [
        {"observations": [{"status": "ok", "content": "Revenue: 92,400"}, {"status": "error", "content": "Error 7"}]}]})
    assert known == {64100, 92400}
    offered = {"read_file", "calculator", "percentage_change", "search_flights", "roll", "ask_user", "multiply"}
    actions = [
        {"id": "a", "tool": "read_file", "args": {"path": "reports/q2.txt"}},
        {"id": "b", "tool": "calculator", "args": {"expression": "92400 - 64100"}},
        {"id": "c", "tool": "percentage_change", "args": {"old": 7, "new": 92400}},
        {"id": "d", "tool": "calculator", "args": {"expression": "3 + 4"}, "rejection": "bad", "rejection_kind": "malformed_output"},
        {"id": "e", "tool": "search_flights", "args": {"origin": "Paris", "date": "2025-05-01"}},  # not a calculation
        {"id": "f", "tool": "multiply", "args": {"a": 5, "b": 3}},  # a user's tool on numbers only: a calculation
        {"id": "g", "tool": "multiply", "args": {"a": 92400, "b": "92400 - 64100"}},  # on known numbers: runs
        {"id": "h", "tool": "search_flights", "args": {"origin": "Oslo", "passengers": 3}},  # a name too: no calculation
        {"id": "i", "tool": "multiply", "args": {"a": "Revenue", "b": 2}},  # names: held back only in built-ins
    ]
    out = premature(actions, known, offered)
    assert [a.get("rejection_kind") for a in out] == [None, None, "premature_call", "malformed_output", None, "premature_call", None, None, None]
    assert "on numbers that neither the question nor a tool result holds" in out[2]["rejection"]
    unknown = [{"id": "n", "tool": "nope", "args": {}}, {"id": "m", "tool": "calculator", "args": {"expression": "6 * 7"}}]
    assert premature(unknown, set(), offered) == unknown  # a tool not offered looks nothing up
    asked = [{"id": "q", "tool": "ask_user", "args": {"question": "Which city?"}}, {"id": "m", "tool": "calculator", "args": {"expression": "6 * 7"}}]
    assert premature(asked, set(), offered) == asked  # a question to the user is no lookup


def read_file(path: str) -> str:
    """Read a file."""
    ran.append(("read_file", {"path": path}))
    return "Q2 report. Revenue: 92,400. Costs: 64,100. New customers: 52."


def test_a_calculation_on_names_waits_for_the_lookup():
    ran.clear()
    tools = ToolRegistry.with_builtins(["calculator"])
    tools.register("read_file", read_file)
    model = ScriptedChatModel(responses=[
        tool_calls([("read_file", {"path": "reports/q2.txt"}), ("calculator", {"expression": "Revenue - Costs"})]),
        tool_call("calculator", {"expression": "Revenue - Costs"}),
        tool_call("calculator", {"expression": "92400 - 64100"}),
        "28300",
    ])
    result = ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0).run("What was the Q2 profit? See reports/q2.txt.")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "28300")
    first, second, third = result.trace.steps[:3]
    assert [o.error_kind for o in first.observations] == [None, "premature_call"] and "on names" in first.observations[1].content
    assert second.observations[0].status == "error"  # the calculator's own error: it takes numbers, not names
    assert third.observations[0].content == "28300" and result.tool_usage == {"read_file": 1, "calculator": 2}


def test_a_users_calculation_on_a_made_up_number_beside_a_sub_agent_waits_for_its_result():
    """The walkthrough's python-subagent at 169d4ed: researcher(task=...) and multiply(a=5, b=3) in one reply, the 5 made
    up (the researcher found 13). multiply waits; made again on the researcher's 13, it runs."""
    from reactgraph.testing import multiply

    ran.clear()

    def researcher(task: str) -> str:
        """Finds facts in the project's documents."""
        ran.append(("researcher", {"task": task}))
        return "The architecture has 13 layers."

    model = ScriptedChatModel(responses=[
        tool_calls([("researcher", {"task": "Count the layers"}), ("multiply", {"a": 5, "b": 3})]),
        tool_call("multiply", {"a": 13, "b": 3}),
        "39",
    ])
    result = ReActAgent(model=model, tools=[researcher, multiply], checkpointer=None, summary_every=0).run(
        "How many layers does the architecture have, times 3?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "39")
    assert [o.error_kind for o in result.trace.steps[0].observations] == [None, "premature_call"]
    assert ran == [("researcher", {"task": "Count the layers"})]
    assert result.trace.steps[1].observations[0].content == "39.0" and result.tool_usage == {"researcher": 1, "multiply": 1}


def test_your_own_calculation_held_back_once_runs_when_made_again():
    """A number that is the model's own choice (a die's sides): roll(sides=20) beside a lookup waits once; the same
    call in the next reply runs, beside the lookup again or not."""
    ran.clear()

    def roll(sides: int) -> str:
        """Roll a die."""
        ran.append(("roll", {"sides": sides}))
        return "7"

    tools = ToolRegistry([roll])
    tools.register("search_documents", search_documents)
    model = ScriptedChatModel(responses=[
        tool_calls([("search_documents", {"query": "bakery"}), ("roll", {"sides": 20})]),
        tool_calls([("search_documents", {"query": "Fennel Street"}), ("roll", {"sides": 20})]),
        "7",
    ])
    result = ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0).run("Roll a die for the bakery.")
    assert [[o.error_kind for o in s.observations] for s in result.trace.steps[:2]] == [[None, "premature_call"], [None, None]]
    assert ran.count(("roll", {"sides": 20})) == 1
