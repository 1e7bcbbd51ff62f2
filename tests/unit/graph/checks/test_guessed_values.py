"""Asked when only the user can answer (``guessed_values``): a call on numbers neither the user nor a tool result gave,
for a question about the user's own things, is not run and the model is told to ask (the local model multiplied
7 by 13 for "Multiply my two lucky numbers." and answered 91). Made again, it runs; numbers the user gave run."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, multiply, tool_call

LUCKY = "Multiply my two lucky numbers."


def agent(*replies, **options) -> tuple[ReActAgent, ScriptedChatModel]:
    model = ScriptedChatModel(responses=list(replies))
    return ReActAgent(model=model, tools=[multiply], checkpointer=None, summary_every=0, allow_clarification=True, **options), model


def test_a_call_on_made_up_numbers_for_the_users_own_is_held_and_the_user_asked():
    guess = tool_call("multiply", {"a": 7, "b": 13})
    ask = tool_call("ask_user", {"question": "What are your two lucky numbers?"})
    bot, _ = agent(guess, ask, tool_call("multiply", {"a": 6, "b": 7}), "42")
    paused = bot.run(LUCKY, thread_id="lucky")
    assert (paused.termination_reason, paused.termination_detail) == (TerminationReason.CLARIFICATION, "What are your two lucky numbers?")
    held = paused.trace.steps[0].observations[0]
    assert (held.status, held.error_kind) == ("error", "guessed_values")
    assert "7 and 13" in held.content and "my two lucky numbers" in held.content and "ask_user" in held.content
    done = bot.resume("lucky", "6 and 7")
    assert (done.termination_reason, done.final_answer) == (TerminationReason.SUCCESS, "42")
    assert [(a.tool, a.args) for s in done.trace.steps for a in s.actions][-1] == ("multiply", {"a": 6, "b": 7})
    assert done.tool_usage == {"multiply": 1}  # 7 x 13 never ran


def test_made_again_the_call_runs():
    guess = tool_call("multiply", {"a": 7, "b": 13})
    bot, _ = agent(guess, guess, "91")
    result = bot.run(LUCKY)
    assert [o.status for s in result.trace.steps for o in s.observations] == ["error", "ok"]
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "91")


def test_numbers_the_question_the_earlier_turns_or_a_result_gave_run():
    bot, _ = agent(tool_call("multiply", {"a": 6, "b": 7}), "42", tool_call("multiply", {"a": 42, "b": 2}), "84")
    assert bot.run("Multiply my numbers 6 and 7.", thread_id="t").tool_usage == {"multiply": 1}
    assert bot.run("Now double my result.", thread_id="t").final_answer == "84"  # 42 is the last turn's answer; 2 is new
    plain, _ = agent(tool_call("multiply", {"a": 7, "b": 13}), "91")
    assert plain.run("Multiply two lucky numbers.").tool_usage == {"multiply": 1}  # nothing of the user's: a choice


def test_without_ask_user_or_left_out_of_the_reply_checks_the_call_runs():
    guess = tool_call("multiply", {"a": 7, "b": 13})
    no_ask = ReActAgent(model=ScriptedChatModel(responses=[guess, "91"]), tools=[multiply], checkpointer=None, allow_clarification=False)
    assert no_ask.run(LUCKY).tool_usage == {"multiply": 1}
    off, _ = agent(guess, "91", reply_checks=[c for c in DEFAULT_REPLY_CHECKS if c != "guessed_values"])
    assert off.run(LUCKY).tool_usage == {"multiply": 1}
