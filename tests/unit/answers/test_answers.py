"""Which final replies are answers: real non-answers of Qwen2.5-Coder-1.5B runs, and answers that
must pass."""

from __future__ import annotations

import pytest

from reactgraph.answers.non_answers import announced_call, non_answer

ERROR = "Error (tool_not_found): there is no tool 'times_three'; the tools are: calculator, percent_of."
STATUS = "Budget left: 9 of 10 tool turns."
SHOWN = [("an error message", ERROR), ("the budget line", STATUS)]
TOOLS = ["calculator", "percent_of", "search_documents"]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("Error (malformed_output): your tool call is not valid JSON (broken or cut off).", "repeats an error message"),
        ("Error (tool_not_found)", "repeats an error message"),
        ("Not run (unfounded_call)", "repeats an error message"),  # the suite's pct-discount, as its whole answer
        ("Not run yet (premature_call): multiply uses 5.", "repeats an error message"),
        ("There is no tool 'times_three'; the tools are: calculator, percent_of.", "repeats an error message"),
        ("The budget left is 9 of 10 tool turns.", "repeats the budget line"),
        ("To find the opening year, I will use the search_documents function with the query.", "says it will call a tool"),
        ("We can use the calculator function provided by the tools.", "says it will call a tool"),
        ("Let's use the tools provided to get the required information.", "says it will call a tool"),
        # the walkthrough's python-subagent (the lead, with a researcher sub-agent on offer)
        ('To answer this question, I\'ll need to use the "researcher" function from the tools. Here\'s how I can do it:',
         "says it will call a tool"),
        ('To double the number 397.8, you can use the calculator function with the expression "397.8 * 2".',
         "tells the user to call a tool"),
    ],
)
def test_non_answers(reply, problem):
    assert problem in (non_answer(reply, SHOWN) or announced_call(reply or "", TOOLS) or "")


@pytest.mark.parametrize(
    "reply",
    [
        "397.8",
        "Paris is in France.",
        "I used the calculator: 17 * 24 + 9 = 417.",
        "The search failed three times, so I cannot complete the task: the panel count is unknown.",
        "The tool times_three does not exist, so I tripled 14 myself: 42.",
        "You can use the calculator to check: 12% of 250 is 30.",
        "Doubled, it is 795.6; you could use the calculator to check it.",
    ],
)
def test_answers(reply):
    assert non_answer(reply, SHOWN) is None and announced_call(reply, TOOLS) is None
