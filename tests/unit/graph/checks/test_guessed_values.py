"""Asked when only the user can answer (``guessed_values``): calls on numbers neither the user nor a tool result gave,
for a question about the user's own things, are not run and the agent asks the user for them (the local model
multiplied 7 by 13 for "Multiply my two lucky numbers." and answered 91). Once a turn; numbers the user gave run."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, add, multiply, tool_call, tool_calls

LUCKY = "Multiply my two lucky numbers."


def agent(*replies, **options) -> ReActAgent:
    model = ScriptedChatModel(responses=list(replies))
    return ReActAgent(model=model, tools=[multiply, add], checkpointer=None, summary_every=0, allow_clarification=True, **options)


def test_a_call_on_made_up_numbers_for_the_users_own_becomes_the_agents_question():
    bot = agent(tool_call("multiply", {"a": 7, "b": 13}), tool_call("multiply", {"a": 6, "b": 7}), "42")
    paused = bot.run(LUCKY, thread_id="lucky")
    assert (paused.termination_reason, paused.termination_detail) == (TerminationReason.CLARIFICATION, "What are your two lucky numbers?")
    done = bot.resume("lucky", "6 and 7")
    step = done.trace.steps[0]
    assert [(a.tool, a.args) for a in step.actions] == [("ask_user", {"question": "What are your two lucky numbers?"})]
    assert (step.checks[0].check, step.checks[0].calls) == ("guessed_values", [{"tool": "multiply", "args": {"a": 7, "b": 13}}])
    assert (done.termination_reason, done.final_answer) == (TerminationReason.SUCCESS, "42")
    assert [(a.tool, a.args) for s in done.trace.steps for a in s.actions][-1] == ("multiply", {"a": 6, "b": 7})
    assert done.tool_usage == {"multiply": 1}  # 7 x 13 never ran


def test_one_question_for_all_the_guessed_calls_and_once_a_turn():
    both = tool_calls([("multiply", {"a": 7, "b": 13}), ("add", {"a": 7, "b": 13})])
    bot = agent(both, both, "91 and 20")
    paused = bot.run("Multiply and add my lucky numbers.", thread_id="t")
    assert paused.termination_detail == "What are your lucky numbers?"
    done = bot.resume("t", "I do not know them, pick any.")  # no numbers in the answer: the same guesses run now
    assert [a.tool for a in done.trace.steps[0].actions] == ["ask_user"]
    assert done.tool_usage == {"multiply": 1, "add": 1} and done.final_answer == "91 and 20"


def test_numbers_the_question_the_earlier_turns_or_a_result_gave_run():
    bot = agent(tool_call("multiply", {"a": 6, "b": 7}), "42", tool_call("multiply", {"a": 42, "b": 2}), "84")
    assert bot.run("Multiply my numbers 6 and 7.", thread_id="t").tool_usage == {"multiply": 1}
    assert bot.run("Now double my result.", thread_id="t").final_answer == "84"  # 42 is the last turn's answer; 2 is new
    chosen = tool_call("multiply", {"a": 7, "b": 13})
    plain = agent(chosen, chosen, "91")  # made again: unfounded_call holds a call on values nobody gave back once
    assert plain.run("Multiply two lucky numbers.").tool_usage == {"multiply": 1}  # nothing of the user's: a choice
    salary = agent(tool_call("multiply", {"a": 5000, "b": 12}), "60000")
    assert salary.run("What is my salary times 12?").tool_usage == {"multiply": 1}  # 12 is the user's: not all guessed


def test_without_ask_user_or_left_out_of_the_reply_checks_the_call_runs():
    guess = tool_call("multiply", {"a": 7, "b": 13})
    again = tool_call("multiply", {"a": 7, "b": 13})  # made again: unfounded_call holds the guess back once
    no_ask = ReActAgent(model=ScriptedChatModel(responses=[guess, again, "91"]), tools=[multiply], checkpointer=None,
                        allow_clarification=False)
    assert no_ask.run(LUCKY).tool_usage == {"multiply": 1}
    off = agent(guess, again, "91", reply_checks=[c for c in DEFAULT_REPLY_CHECKS if c != "guessed_values"])
    assert off.run(LUCKY).tool_usage == {"multiply": 1}
