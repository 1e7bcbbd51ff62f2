"""Grounded answers: a weakly supported final answer is sent back once to be checked with a tool, and a
question about the agent's own tools is answered by the agent, not put to the user."""

from __future__ import annotations

import pytest

from reactgraph import ReActAgent, TerminationReason
from reactgraph.graph._scratchpad import steps_text
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolRegistry


def calculator_agent(model: ScriptedChatModel, **options) -> ReActAgent:
    """An agent with the calculator that checks an answer once (the scripts leave no room for summaries)."""
    options = {"answer_checks": 1, "summary_every": 0} | options
    return ReActAgent(model=model, tools=ToolRegistry.with_builtins(["calculator"]), checkpointer=None, **options)


def test_an_answer_no_tool_result_supports_is_sent_back_once_and_the_corrected_one_accepted():
    model = ScriptedChatModel(responses=[
        tool_call("calculator", {"expression": "(1234 + 5678) * 3"}), "(1234 + 5678) * 3 = 18268",
        tool_call("calculator", {"expression": "(1234 + 5678) * 3"}), "(1234 + 5678) * 3 = 20736",
    ])
    result = calculator_agent(model).run("What is (1234 + 5678) * 3?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "(1234 + 5678) * 3 = 20736")
    kinds = [s.kind for s in result.trace.steps]
    assert kinds == ["tools", "check", "tools", "final"]
    check = result.trace.steps[1]
    assert check.thought == "(1234 + 5678) * 3 = 18268" and check.observations[0].error_kind == "unverified_answer"
    assert "no tool result has the number(s) 18268" in check.observations[0].content
    assert check.token_usage.total_tokens > 0 and result.error_history == []  # its call is counted; a check is no error
    assert "no tool result has the number(s) 18268" in model.calls[2]["messages"][-1].content  # what the model was told


def test_a_supported_answer_and_an_answer_no_tool_could_give_are_accepted_at_once():
    supported = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*7"}), "6*7 = 42"])
    assert [s.kind for s in calculator_agent(supported).run("What is 6*7?").trace.steps] == ["tools", "final"]
    known = ScriptedChatModel(responses=["Ada Lovelace was born in 1815."])  # no tool call; a calculator cannot tell a year of birth
    result = calculator_agent(known).run("When was Ada Lovelace born?")
    assert result.final_answer == "Ada Lovelace was born in 1815." and len(known.calls) == 1
    assert result.confidence_signals["unchecked"].detail == "no tool was called for the number(s) 1815"
    words = ScriptedChatModel(responses=["Paris is the capital of France."])  # no number: nothing to check
    assert calculator_agent(words).run("What is the capital of France?").trace.total_iterations == 1


def test_an_answer_given_without_a_tool_to_a_question_the_tools_are_for_is_checked_at_most_n_times():
    guess = "347 multiplied by 29 is 10000."
    model = ScriptedChatModel(responses=[guess], repeat_last=True)
    once = calculator_agent(model).run("What is 347 multiplied by 29?")
    assert [s.kind for s in once.trace.steps] == ["check", "final"] and once.final_answer == guess
    assert "not worked out with a tool: no tool was called for the number(s) 10000" in once.trace.steps[0].observations[0].content
    twice = calculator_agent(ScriptedChatModel(responses=[guess], repeat_last=True), answer_checks=2).run("What is 347 multiplied by 29?")
    assert [s.kind for s in twice.trace.steps] == ["check", "check", "final"]
    never = calculator_agent(ScriptedChatModel(responses=[guess]), answer_checks=0).run("What is 347 multiplied by 29?")
    assert [s.kind for s in never.trace.steps] == ["final"]


def test_no_check_at_the_last_iteration_nor_for_a_give_up():
    last = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*8"}), "6*8 = 46"])
    assert calculator_agent(last, max_iterations=2).run("What is 6*8?").final_answer == "6*8 = 46"
    gave_up = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*"}), "I cannot complete this task: 99 tools failed."])
    result = calculator_agent(gave_up).run("What is 6*8?")
    assert result.termination_reason is TerminationReason.FAILURE and len(gave_up.calls) == 2
    untried = ScriptedChatModel(responses=["I cannot complete this task."], repeat_last=True)  # never sent back
    assert calculator_agent(untried, max_iterations=1).run("What is 6*8?").termination_reason is TerminationReason.FAILURE
    assert len(untried.calls) == 1


def test_a_question_about_the_tools_goes_to_the_user():
    """tools_question went (it fired in no measured run): the question pauses the run like any other."""
    model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which functions are available?"})])
    result = calculator_agent(model).run("What is 2+2?")
    assert (result.termination_reason, result.termination_detail) == (TerminationReason.CLARIFICATION, "Which functions are available?")


def test_a_question_only_the_user_can_decide_still_pauses():
    model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which city do you mean, Paris or Rome?"})])
    result = calculator_agent(model).run("How far is the city?")
    assert result.termination_reason is TerminationReason.CLARIFICATION
    assert result.termination_detail == "Which city do you mean, Paris or Rome?"


def test_the_trace_keeps_the_name_of_a_tool_that_is_not_offered():
    model = ScriptedChatModel(responses=['{"name": "ruler", "arguments": {"object": "table"}}', "I cannot complete this task."])
    result = calculator_agent(model, tool_calling="text").run("How long is the table?")
    action, observation = result.trace.steps[0].actions[0], result.trace.steps[0].observations[0]
    assert (action.tool, action.args) == ("ruler", {"object": "table"})
    assert observation.error_kind == "tool_not_found" and "there is no tool 'ruler'" in observation.content


def test_a_give_up_before_any_tool_call_stands():
    """No check sends a give-up back to try the tools (untried_give_up went: no gain on the suite at 95488ab or
    ac07365, benchmarks/results/reply-checks.md "Each reply check, measured")."""
    model = ScriptedChatModel(responses=["I cannot complete this task: I have no way to multiply."], repeat_last=True)
    result = calculator_agent(model).run("What is 347 multiplied by 29?")
    assert result.termination_reason is TerminationReason.FAILURE and len(model.calls) == 1
    assert [c.check for s in result.trace.steps for c in s.checks] == []


def test_a_give_up_after_a_tool_call_or_to_a_question_no_tool_fits_ends_the_run():
    after = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6 *"}), "I cannot complete this task: the calculator failed."])
    result = calculator_agent(after).run("What is 6*8?")
    assert result.termination_reason is TerminationReason.FAILURE and len(after.calls) == 2
    unfit = ScriptedChatModel(responses=["I cannot complete this task: I do not know who rules Atlantis."])
    assert calculator_agent(unfit).run("Who rules Atlantis?").termination_reason is TerminationReason.FAILURE
    assert len(unfit.calls) == 1


def test_a_give_up_after_a_tool_itself_failed_is_not_sent_back():
    def report() -> str:
        """Read the quarter's report."""
        raise FileNotFoundError("reports/q2.txt does not exist")

    tools = ToolRegistry.with_builtins(["calculator"])
    tools.register(report)
    model = ScriptedChatModel(responses=[
        tool_calls([("report", {}), ("calculator", {"expression": "Revenue - Costs"})]),
        "I cannot complete this task: the report does not exist.",
    ])
    result = ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0, max_retries=0).run("What was the profit?")
    assert result.termination_reason is TerminationReason.FAILURE and len(model.calls) == 2


CODE_WITH_OUTPUT = (
    "Let's compute it in Python.\n```python\nprint(24 * 17 + 9)\n```\n```output\n435\n```\nThe total is 435 cans."
)


def test_an_answer_showing_the_output_of_code_nothing_ran_is_sent_back():
    model = ScriptedChatModel(responses=[CODE_WITH_OUTPUT, tool_call("calculator", {"expression": "24 * 17 + 9"}), "417 cans"])
    result = calculator_agent(model, answer_checks=0).run("17 boxes of 24 cans and 9 loose cans: how many cans?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "417 cans")
    first = result.trace.steps[0].observations[0]
    assert first.error_kind == "non_answer" and "output of code that nothing ran" in first.content



HIT = "Fennel Street bakery sells sourdough loaves for 4.80 each. It bakes 60 sourdough loaves every morning."


def search_documents(query: str) -> str:
    """Search the documents for the query."""
    return HIT


def test_an_answer_that_repeats_a_tool_result_stands():
    """copied_result went (no gain on the suite at 95488ab or ac07365): a copy of the search hit is the answer."""
    tools = ToolRegistry.with_builtins(["calculator"])
    tools.register("search_documents", search_documents)
    model = ScriptedChatModel(responses=[tool_call("search_documents", {"query": "Fennel Street bakery"}), HIT])
    result = ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0).run("What does the bakery's entry say?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, HIT)
    assert [s.kind for s in result.trace.steps] == ["tools", "final"]


def test_a_name_no_tool_result_holds_is_sent_back_once_and_a_give_up_then_ends_the_run():
    """impossible-doc on the local model: the search found the bridge but no mayor, and the model answered "John
    Doe". Sent back once, naming the name; a give-up after it ends the run as a failure."""
    tools = ToolRegistry.with_builtins(["calculator"])
    tools.register("search_documents", search_documents)
    question = "Who is the mayor of the town where the Fennel Street bakery is?"
    model = ScriptedChatModel(responses=[
        tool_call("search_documents", {"query": "Fennel Street bakery"}), "John Doe",
        "I cannot complete the task: the documents do not name the mayor.",
    ])
    result = ReActAgent(model=model, tools=tools, checkpointer=None, summary_every=0).run(question)
    assert result.termination_reason is TerminationReason.FAILURE
    assert [s.kind for s in result.trace.steps] == ["tools", "check", "final"]
    assert "Your answer names John Doe, which no tool result holds" in result.trace.steps[1].observations[0].content
    named = ScriptedChatModel(responses=[tool_call("search_documents", {"query": "Fennel Street bakery"}), "On Fennel Street"])
    result = ReActAgent(model=named, tools=tools, checkpointer=None, summary_every=0).run("Which street is the bakery on?")
    assert (result.final_answer, [s.kind for s in result.trace.steps]) == ("On Fennel Street", ["tools", "final"])
    twice = ScriptedChatModel(responses=[tool_call("search_documents", {"query": "Fennel Street bakery"}), "John Doe", "John Doe"])
    result = ReActAgent(model=twice, tools=tools, checkpointer=None, summary_every=0).run(question)
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "John Doe")  # the second stands


def test_unfounded_names_are_capitalised_runs_of_a_short_answer_the_sources_lack():
    from reactgraph.answers.non_answers import unfounded_names

    sources = ["Who designed the Kessel footbridge?", "The Kessel footbridge was designed by the engineer Marta Oyelaran."]
    assert unfounded_names("John Doe", sources) == ["John Doe"]
    assert unfounded_names("Designer: Jean-Luc Picard.", sources) == ["Jean-Luc Picard"]
    assert unfounded_names("It was designed by an engineer from Italy.", sources) == []  # a name is not the answer
    assert unfounded_names("Marta Oyelaran", sources) == unfounded_names("Oyelaran designed it.", sources) == []
    assert unfounded_names("Yes, it is. I think so.", sources) == []  # a sentence's first word and "I" are no names
    assert unfounded_names("It was designed by a famous engineer whose name was John Doe, I believe", sources) == []  # long
    assert unfounded_names("NOT ENOUGH INFO", sources) == []  # a label in capitals (FEVER's), not a name


def test_a_sent_back_answer_is_shown_to_the_model_as_it_gave_it_and_kept_in_the_trace():
    """files-growth on the local model (text format): shown its check turn as a Thought alone, the model copied that
    shape (a Thought, no Action, no answer) until the run stalled; shown with its Final Answer, it called the tool."""
    model = ScriptedChatModel(responses=[
        "Thought: the percentage change is about 17.\nFinal Answer: 17.0",
        "Thought: check it.\nAction: calculator[(92400 - 84000) / 84000 * 100]",
        "Thought: the tool says 10.\nFinal Answer: 10.0",
    ])
    result = calculator_agent(model, tool_calling="text").run("By what percent did revenue grow from 84,000 to 92,400?")
    assert [s.kind for s in result.trace.steps] == ["check", "tools", "final"] and result.final_answer == "10.0"
    assert result.trace.steps[0].answer == "17.0" and result.trace.steps[1].answer is None
    shown = [m.content for m in model.calls[1]["messages"][2:]]
    assert shown[0] == "Thought: the percentage change is about 17.\nFinal Answer: 17.0"
    assert shown[1].startswith("Observation: Not accepted yet (unverified_answer): Your answer was not worked out with a tool")
    summary = steps_text([s.model_dump() for s in result.trace.steps[:1]], 500)
    assert "    Final Answer: 17.0\n    Observation: Not accepted yet" in summary and "Action:" not in summary


def test_a_give_up_written_as_a_thought_alone_is_not_shown_twice():
    from reactgraph.tool_calling.text import sent_back_answer

    assert sent_back_answer({"thought": "I cannot complete the task: no tool fits.", "answer": "I cannot complete the task: no tool fits."}) is None
    assert sent_back_answer({"thought": "Adding them up.", "answer": "42"}) == "42"
    assert sent_back_answer({"thought": "Adding them up."}) is None


def test_after_an_answer_sent_back_its_request_is_the_prompts_last_word():
    """files-inventory on the local model: told "if the observations answer the question, reply with Thought and Final
    Answer" after the check's request, the model answered with the request itself; without it, it called the tool."""
    model = ScriptedChatModel(responses=[
        "Thought: the value is quantity times price.\nFinal Answer: 1800.0",
        "Thought: work it out.\nAction: calculator[75 * 2.40]",
        "Thought: the tool says 180.\nFinal Answer: 180",
    ])
    result = calculator_agent(model, tool_calling="text").run("What is 75 brackets at 2.40 each worth?")
    assert result.final_answer == "180" and [s.kind for s in result.trace.steps] == ["check", "tools", "final"]
    checked, worked = model.calls[1]["messages"][-1].content, model.calls[2]["messages"][-1].content
    assert checked.endswith("then reply with the final answer (the same one if it holds).")  # the request, no reminder after it
    assert "(not on your answer)" in checked and "If the observations answer the question" in worked


def test_with_no_tool_on_offer_an_answer_is_not_sent_back():
    model = ScriptedChatModel(responses=["6*7 = 42"])
    result = ReActAgent(model=model, tools=[], checkpointer=None, allow_clarification=True).run("What is 6*7?")
    assert [s.kind for s in result.trace.steps] == ["final"] and len(model.calls) == 1  # ask_user alone is no tool to check with


def test_a_give_up_that_copies_the_default_rules_is_no_answer():
    """geo-triangle on the local model: sent back, it replied with a line of the system prompt's rules."""
    copied = "I cannot complete the task only after the tools failed, or when no tool fits the question at all."
    model = ScriptedChatModel(responses=[copied, "The area is 52."])
    result = calculator_agent(model, answer_checks=0).run("What is the area of a triangle with base 13 and height 8?")
    assert result.final_answer == "The area is 52." and result.trace.steps[0].observations[0].error_kind == "non_answer"
    assert "repeats the instructions" in result.trace.steps[0].observations[0].content
    own = ScriptedChatModel(responses=["The refund window is 30 days."])  # a user's own prompt may hold the answer
    rules = "You answer for ACME. The refund window is 30 days."
    assert calculator_agent(own, answer_checks=0, system_prompt=rules).run("How long is the refund window?").final_answer == own.responses[0]


@pytest.mark.parametrize("reply", [
    "Thought: The answer is not backed.\nFinal Answer: Not accepted yet (unverified_answer): Your answer is not backed by a tool result",
    "Thought: I need to check the answer with a tool.",  # a Thought alone
    "",
])
def test_after_a_check_a_reply_that_says_nothing_new_lets_the_sent_back_answer_stand(reply):
    """pct-discount on the local model: sent back, it answered with the check's request until the run stalled."""
    model = ScriptedChatModel(responses=["Thought: 35% off 120.\nFinal Answer: 78", reply])
    result = calculator_agent(model, tool_calling="text").run("A jacket costs 120. What does it cost after a 35% discount?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "78")
    assert [s.kind for s in result.trace.steps] == ["check", "final"] and len(model.calls) == 2
    assert result.termination_detail == "the model gave a final answer; sent back to be checked, it said nothing new"


def test_an_answer_sent_back_stands_when_nothing_new_follows():
    model = ScriptedChatModel(responses=["Final Answer: 10063", "Thought: I should use a tool."])
    result = calculator_agent(model, tool_calling="text").run("What is 347 multiplied by 29?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "10063")
    assert len(model.calls) == 2 and result.termination_detail.endswith("; sent back to be checked, it said nothing new")
    assert [s.kind for s in result.trace.steps] == ["check", "final"]


def test_copied_rule_is_a_whole_rule_line_not_a_give_up_that_shares_its_words():
    from reactgraph import prompts
    from reactgraph.answers.non_answers import copied_rule

    assert copied_rule("I cannot complete the task only after the tools failed, or when no tool fits the question at all.", prompts.SYSTEM_PROMPT)
    assert not copied_rule("I cannot complete the task.", prompts.SYSTEM_PROMPT)
    assert not copied_rule("Cannot complete the task: the documents name no mayor.", prompts.SYSTEM_PROMPT)
