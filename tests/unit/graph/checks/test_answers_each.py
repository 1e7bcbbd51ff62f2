"""An answer covers the question: a bare yes or no to a question that also asks which (what, when, ...) is sent back
once, each question named; the local model answered the travel example's two questions with "Yes"."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.graph.checks._grounded import questions_in
from reactgraph.testing import DEMO_TOOLS, ScriptedChatModel, tool_calls

QUESTION = "Is it warmer in Rome than in Paris? Which flights go from Paris to Rome on 2026-05-01?"
LOOKUPS = tool_calls([("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Paris"}),
                      ("search_flights", {"origin": "Paris", "destination": "Rome", "date": "2026-05-01"})])
WHOLE = "Yes: Rome is 24 °C, Paris 18 °C. Flights: RG666 at 08:30 and RG251 at 13:15."


def agent(model: ScriptedChatModel, **options) -> ReActAgent:
    return ReActAgent(model=model, tools=DEMO_TOOLS, checkpointer=None, summary_every=0, **options)


def test_a_short_answer_to_two_questions_is_sent_back_once_with_each_question():
    result = agent(ScriptedChatModel(responses=[LOOKUPS, "Yes", WHOLE])).run(QUESTION)
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, WHOLE)
    check = result.trace.steps[1]
    assert check.kind == "check" and [c.check for c in check.checks] == ["answers_each"]
    said = check.observations[0].content
    assert "(1) Is it warmer in Rome than in Paris? (2) Which flights go from Paris to Rome on 2026-05-01?" in said
    assert "Your answer (Yes)" in said


def test_sent_back_once_the_same_answer_stands():
    result = agent(ScriptedChatModel(responses=[LOOKUPS, "Yes", "Yes"])).run(QUESTION)
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "Yes")
    assert [c.check for s in result.trace.steps for c in s.checks] == ["answers_each"]
    assert result.trace.steps[-1].kind == "final"


def test_one_question_a_long_answer_or_the_check_left_out_lets_the_answer_through():
    one = agent(ScriptedChatModel(responses=[LOOKUPS, "Yes"])).run("Is it warmer in Rome than in Paris?")
    assert one.final_answer == "Yes" and not [c for s in one.trace.steps for c in s.checks]
    whole = agent(ScriptedChatModel(responses=[LOOKUPS, WHOLE])).run(QUESTION)
    assert whole.final_answer == WHOLE and len(whole.trace.steps) == 2
    checks = [c for c in DEFAULT_REPLY_CHECKS if c != "answers_each"]
    off = agent(ScriptedChatModel(responses=[LOOKUPS, "Yes"]), reply_checks=checks).run(QUESTION)
    assert off.final_answer == "Yes"


def test_questions_are_the_sentences_of_three_words_or_more_that_end_with_a_question_mark_outside_quotes():
    assert questions_in(QUESTION) == ["Is it warmer in Rome than in Paris?", "Which flights go from Paris to Rome on 2026-05-01?"]
    assert questions_in("Take 2.5 kg. What is 10% of it?") == ["What is 10% of it?"]
    assert questions_in("What is 17% of 2,340? Then double it.") == ["What is 17% of 2,340?"]
    assert questions_in("Really?? Why? Is it warm in Rome?") == ["Is it warm in Rome?"]
    assert questions_in('He asked: "Why? Who?". Is that rude?') == ["Is that rude?"]


def test_other_answers_and_questions_are_not_sent_back():
    cases = [
        ("What is 2+2? And what is 3+3?", "4 and 6"),  # not a yes or no
        ("Can you help me? What is 17% of 2,340?", "397.8"),
        ("Is it warm in Rome? Is it warm in Paris?", "Yes"),  # two yes-or-no questions: a yes may be meant for both
        ("Is it warmer in Rome than in Paris? Which flights go there?", "Yes: RG666 and RG251 at 08:30"),
    ]
    for question, answer in cases:
        result = agent(ScriptedChatModel(responses=[LOOKUPS, answer, answer])).run(question)  # other checks may ask again
        assert result.final_answer == answer and "answers_each" not in [c.check for s in result.trace.steps for c in s.checks], question


def test_with_an_output_schema_the_answer_is_the_schemas():
    from pydantic import BaseModel

    class Trip(BaseModel):
        warmer: bool
        flights: list[str]

    typed = '{"warmer": true, "flights": []}'
    result = agent(ScriptedChatModel(responses=[LOOKUPS, typed]), output_schema=Trip).run(QUESTION)
    assert "answers_each" not in [c.check for s in result.trace.steps for c in s.checks]
