"""End to end: the agent on a scripted model works a multi-step task with several built-ins,
recovering a flaky tool (retries) and a calculation on a name made beside the lookup that gives it (held back
until the lookup's result is there; the model then writes the number)."""

from __future__ import annotations

import pytest

from reactgraph import ReActAgent
from reactgraph import TerminationReason as R
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistry


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "workspace"
    (root / "reports").mkdir(parents=True)
    (root / "reports" / "q1.txt").write_text("Quarter: Q1\nRevenue: 1200\nCosts: 900\n")
    (root / "reports" / "q2.txt").write_text("Quarter: Q2\nRevenue: 1500\nCosts: 1000\n")
    notes = {
        "targets": "The revenue target for Q2 was 1400 dollars.",
        "office": "The office moved to the second floor in March.",
    }
    return root, notes


def test_multi_step_task_with_builtins_and_a_recovered_failure(workspace):
    root, notes = workspace
    sleeps: list[float] = []
    rate_calls: list[str] = []

    def exchange_rate(currency: str) -> str:
        """Dollars per unit of a currency (a test double that fails twice, like a flaky service)."""
        rate_calls.append(currency)
        if len(rate_calls) <= 2:
            raise ConnectionRefusedError("connection refused")
        return "1.1"

    registry = ToolRegistry.with_builtins(root=root, documents=notes)
    registry.register(exchange_rate, {"category": "user"}, policy=ToolPolicy(sleep=sleeps.append))

    script = [
        tool_call("list_directory", {"path": "reports"}, thought="See which reports exist."),
        tool_calls(
            [("grep_search", {"text": "revenue", "path": "reports"}), ("search_documents", {"query": "revenue target"})],
            thought="Find the revenue lines and the target.",
        ),
        tool_calls(
            [
                ("percentage_change", {"old": 1200, "new": 1500}),
                ("exchange_rate", {"currency": "EUR"}),
                ("calculator", {"expression": "1500 / rate"}),
            ],
            thought="Growth, the rate, and revenue in euros.",
        ),
        tool_call("calculator", {"expression": "round(1500 / 1.1, 2)"}, thought="Use the rate as a number."),
        "Q2 revenue was 1500, up 25% from Q1 and above the 1400 target; that is 1363.64 euros.",
    ]
    model = ScriptedChatModel(responses=script)
    agent = ReActAgent(model=model, tools=registry, summary_every=0, allow_clarification=False)
    result = agent.run("How did Q2 revenue compare with Q1 and the target, and what is it in euros? See the reports.")

    assert result.termination_reason is R.SUCCESS
    assert result.final_answer.startswith("Q2 revenue was 1500, up 25%")

    assert result.trace.steps[-1].kind == "final"
    steps = result.trace.steps[:-1]
    assert [[(a.tool, a.args) for a in s.actions] for s in steps] == [
        [("list_directory", {"path": "reports"})],
        [("grep_search", {"text": "revenue", "path": "reports"}), ("search_documents", {"query": "revenue target"})],
        [
            ("percentage_change", {"old": 1200, "new": 1500}),
            ("exchange_rate", {"currency": "EUR"}),
            ("calculator", {"expression": "1500 / rate"}),
        ],
        [("calculator", {"expression": "round(1500 / 1.1, 2)"})],
    ]
    listing, (grep, search), (change, rate, bad), (good,) = (s.observations for s in steps)
    assert listing[0].content == "reports/\nq1.txt (37 bytes)\nq2.txt (38 bytes)"
    assert grep.content == "reports/q1.txt:2: Revenue: 1200\nreports/q2.txt:2: Revenue: 1500"
    assert search.content.startswith("targets: The [revenue] [target] for Q2 was 1400")
    assert change.content == "25%"
    assert (rate.status, rate.retries, rate.content) == ("ok", 2, "1.1")
    assert bad.error_kind == "premature_call" and "before its result was there (on names, not numbers)" in bad.content
    assert good.content == "1363.64"

    assert rate_calls == ["EUR"] * 3 and sleeps == [0.1, 0.2]
    assert [(e["tool"], e["error_kind"], e["retries"], e["recovered"]) for e in result.error_history] == [
        ("exchange_rate", None, 2, True),
        ("calculator", "premature_call", 0, False),
    ]
    assert result.error_history[0]["error"] == "ConnectionRefusedError: connection refused"
    assert result.error_history[0]["error_type"] == "ConnectionRefusedError"
    assert result.tool_usage == {
        "list_directory": 1,
        "grep_search": 1,
        "search_documents": 1,
        "percentage_change": 1,
        "exchange_rate": 1,
        "calculator": 1,  # the held-back call did not run
    }
    # the model saw each observation: the fix came after the error was in its prompt
    fourth_prompt = "\n".join(str(m.content) for m in model.calls[3]["messages"])
    assert "Read the result of exchange_rate, then call calculator again" in fourth_prompt and "1.1" in fourth_prompt
    # and the checkpointed trace is the same one
    assert agent.get_trace(result.thread_id).steps == result.trace.steps
