"""The reply checks as one declared pipeline (reactgraph.graph.checks): every built-in can be switched off by leaving
its name out of ``reply_checks``, your own checks (sync or async, a function or ``@agent.reply_check``) join the list,
and each check that acts is kept on the trace step."""

from __future__ import annotations

import asyncio

import pytest

from reactgraph import ConfigError, ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS, AgentConfig
from reactgraph.graph.checks import BUILTIN_CHECKS, Accept, Reply, Rewrite, SendBack, Stop
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolRegistry


def calculator_agent(model: ScriptedChatModel, **options) -> ReActAgent:
    return ReActAgent(model=model, tools=ToolRegistry.with_builtins(["calculator"]), checkpointer=None, summary_every=0, **options)


def without(name: str) -> list[str]:
    return [c for c in DEFAULT_REPLY_CHECKS if c != name]


def test_the_table_and_the_default_list_name_the_same_checks_in_the_same_order():
    assert tuple(BUILTIN_CHECKS) == DEFAULT_REPLY_CHECKS == AgentConfig().reply_checks


# Each built-in check: a script it acts on, and what the run does with it on and with it off.
CASES = {
    "no_answer": (["", "I am a calculator assistant."], "Who are you?", "I am a calculator assistant.", ""),
    "null_answer": ([tool_call("calculator", {"expression": "6*7"}), "None", "42"], "What is 6*7?", "42", "None"),
    "announced_call": (["I will use the calculator tool to find it.", "I am a calculator assistant."], "Who are you?",
                       "I am a calculator assistant.", "I will use the calculator tool to find it."),
    "made_up_output": (["```python\nprint(6*7)\n```\n```output\n42\n```", "Hi."], "Say hi.", "Hi.",
                       "```python\nprint(6*7)\n```\n```output\n42\n```"),
    "unsupported_number": (["6*7 is 41.", tool_call("calculator", {"expression": "6*7"}), "6*7 is 42."], "What is 6*7?",
                           "6*7 is 42.", "6*7 is 41."),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_answer_check_acts_when_on_and_not_when_switched_off(name):
    script, question, on_answer, off_answer = CASES[name]
    on = calculator_agent(ScriptedChatModel(responses=script)).run(question)
    assert on.final_answer == on_answer, name
    assert name in [c.check for s in on.trace.steps for c in s.checks]
    off = calculator_agent(ScriptedChatModel(responses=script), reply_checks=without(name)).run(question)
    assert name not in [c.check for s in off.trace.steps for c in s.checks]
    if off_answer is not None:
        assert off.final_answer == off_answer, name


def test_each_call_check_rewrites_when_on_and_not_when_switched_off():
    def years(count: int) -> str:
        """How many years."""
        return f"{count} years"

    fan = [tool_call("years", {"count": [1, 2]}), "done"]
    on = ReActAgent(ScriptedChatModel(responses=fan), [years], checkpointer=None).run("1 and 2?")
    assert [a.args for a in on.trace.steps[0].actions] == [{"count": 1}, {"count": 2}]
    assert on.trace.steps[0].checks[0].check == "fan_out" and on.trace.steps[0].checks[0].calls == [{"tool": "years", "args": {"count": [1, 2]}}]
    off = ReActAgent(ScriptedChatModel(responses=fan), [years], checkpointer=None, reply_checks=without("fan_out")).run("1 and 2?")
    assert [a.args for a in off.trace.steps[0].actions] == [{"count": [1, 2]}]
    two = [tool_calls([("ask_user", {"question": "Which city?"}), ("ask_user", {"question": "Which day?"})])]
    asked = ReActAgent(ScriptedChatModel(responses=two), [years], checkpointer=None, allow_clarification=True).run("Weather?")
    assert asked.termination_reason is TerminationReason.CLARIFICATION and asked.termination_detail == "Which city?"


def test_a_users_check_sends_an_answer_back_and_the_run_recovers():
    seen: list[Reply] = []

    def cites_a_source(reply, state, config):
        seen.append(reply)
        if reply.answer is not None and "source:" not in reply.answer.lower():
            return SendBack("Say where the number comes from (Source: ...).")
        return None

    model = ScriptedChatModel(responses=[tool_call("calculator", {"expression": "6*7"}), "42", "42. Source: the calculator."])
    result = calculator_agent(model, reply_checks=[*DEFAULT_REPLY_CHECKS, cites_a_source]).run("What is 6*7?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "42. Source: the calculator.")
    check = result.trace.steps[1]
    assert check.kind == "check" and check.answer == "42" and check.checks[0].check == "cites_a_source"
    assert "Say where the number comes from" in model.calls[2]["messages"][-1].content
    assert [r.kind for r in seen] == ["calls", "answer", "answer"]


def test_an_async_check_works_and_a_decorated_one_joins_the_list():
    agent = calculator_agent(ScriptedChatModel(responses=["42", "It is 42."]))

    @agent.reply_check
    async def whole_sentence(reply):
        await asyncio.sleep(0)
        if reply.answer is not None and not reply.answer.endswith("."):
            return SendBack("Answer in a whole sentence.")
        return Accept()

    assert agent.config.reply_checks[-1] == "whole_sentence"
    result = agent.run("What is the answer?")
    assert result.final_answer == "It is 42." and result.trace.steps[0].checks[0].check == "whole_sentence"


def test_a_check_may_stop_the_run_or_rewrite_its_calls():
    def no_division(reply, state, config):
        if any("/" in str(a["args"].get("expression", "")) for a in reply.actions):
            return Stop(TerminationReason.CUSTOM, "division is not allowed here", "refused")
        return None

    stopped = calculator_agent(ScriptedChatModel(responses=[tool_call("calculator", {"expression": "1/0"})]),
                               reply_checks=[no_division]).run("1/0?")
    assert (stopped.termination_reason, stopped.termination_detail, stopped.final_answer) == (
        TerminationReason.CUSTOM, "division is not allowed here", "refused")

    def doubled(reply, state, config):
        return Rewrite(tuple({**a, "args": {"expression": f"2*({a['args']['expression']})"}} for a in reply.actions)) if reply.actions else None

    rewritten = calculator_agent(ScriptedChatModel(responses=[tool_call("calculator", {"expression": "3"}), "6"]),
                                 reply_checks=[doubled]).run("double 3?")
    assert rewritten.trace.steps[0].observations[0].content == "6"


def test_a_check_that_raises_or_returns_nonsense_ends_the_run_saying_which():
    def broken(reply):
        raise ValueError("boom")

    result = calculator_agent(ScriptedChatModel(responses=["42"]), reply_checks=[broken]).run("?")
    assert (result.termination_reason, result.termination_detail) == (
        TerminationReason.FAILURE, "the reply check 'broken' raised ValueError: boom")
    odd = calculator_agent(ScriptedChatModel(responses=["42"]), reply_checks=[lambda reply: "yes"]).run("?")
    assert "returned 'yes', not a decision" in odd.termination_detail


def test_unknown_names_are_config_errors_naming_the_close_ones():
    with pytest.raises(ConfigError, match=r"unknown reply check 'no_answr' \(did you mean 'no_answer'\?\)"):
        calculator_agent(ScriptedChatModel(responses=["x"]), reply_checks=["no_answr"])
    agent = calculator_agent(ScriptedChatModel(responses=["x"]))
    with pytest.raises(ConfigError, match="unknown reply check 'fan_outt'"):
        agent.run("?", reply_checks=["fan_outt"])
    with pytest.raises(ConfigError, match="reply check 'tools_question' was removed in reactgraph 0.1"):
        agent.run("?", reply_checks=["no_answer", "tools_question"])  # a config written for an older reactgraph
    with pytest.raises(ConfigError, match="built-in check's name"):

        def fan_out(reply):
            return None

        calculator_agent(ScriptedChatModel(responses=["x"]), reply_checks=[fan_out])


def test_a_run_may_switch_checks_off_by_name():
    agent = calculator_agent(ScriptedChatModel(responses=["6*7 is 41."]))
    result = agent.run("What is 6*7?", reply_checks=without("unsupported_number"))
    assert result.final_answer == "6*7 is 41." and [s.kind for s in result.trace.steps] == ["final"]


def test_an_answer_sent_back_counts_against_answer_checks_then_stands():
    guess = "347 multiplied by 29 is 10000."

    def never_happy(reply):
        return SendBack("Check it again.") if reply.answer else None

    model = ScriptedChatModel(responses=[guess], repeat_last=True)
    result = calculator_agent(model, reply_checks=[never_happy], answer_checks=2).run("What is 347 multiplied by 29?")
    assert [s.kind for s in result.trace.steps] == ["check", "check", "final"] and result.final_answer == guess


def test_the_compiled_and_served_graphs_take_the_names_through_their_context():
    from reactgraph import build_graph
    from reactgraph.server import check_context, served_tools

    graph = build_graph(ScriptedChatModel(responses=["6*7 is 41."]), ToolRegistry.with_builtins(["calculator"]), AgentConfig())
    state = graph.invoke({"query": "What is 6*7?"}, context={"reply_checks": without("unsupported_number")})
    assert state["final_answer"] == "6*7 is 41." and state["termination"]["reason"] == "success"
    assert check_context({"reply_checks": ["no_answer", "fan_out"]}, served_tools()).reply_checks == ("no_answer", "fan_out")
    with pytest.raises(ConfigError, match="unknown reply check 'fanout' \\(did you mean 'fan_out'\\?\\)"):
        check_context({"reply_checks": ["fanout"]}, served_tools())


def ask(question: str):
    return tool_call("ask_user", {"question": question})


def clarifying_agent(model: ScriptedChatModel, **options) -> ReActAgent:
    return calculator_agent(model, allow_clarification=True, **options)


def test_a_question_the_users_own_words_answer_is_not_put_to_them():
    model = ScriptedChatModel(responses=[ask("What is your name?"), "Nice to meet you, Ada."])
    result = clarifying_agent(model).run("My name is Ada.")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "Nice to meet you, Ada.")
    seen = result.trace.steps[0].observations[0].content
    assert seen.startswith("(The user was not asked: they said it already.) They wrote: My name is Ada.")
    assert result.trace.steps[0].checks[0].check == "said_already"
    same = ScriptedChatModel(responses=[ask("How many layers does the architecture have?"), "I cannot answer that."])
    assert clarifying_agent(same).run("How many layers does the architecture have?").termination_reason is TerminationReason.FAILURE
    values = ScriptedChatModel(responses=[ask("What is the expression you want to evaluate?"),
                                          tool_call("calculator", {"expression": "48 / 6 * 7"}), "56"])
    assert clarifying_agent(values).run("What is 48 divided by 6, times 7?").final_answer == "56"


def test_a_question_for_the_result_of_the_users_own_numbers_is_not_put_to_them():
    """The walkthrough's python-middleware task: the model asked back "What is the result of 12.5 times 8?"."""
    model = ScriptedChatModel(responses=[ask("What is the result of 12.5 times 8?"),
                                         tool_call("calculator", {"expression": "12.5 * 8"}), "100"])
    result = clarifying_agent(model).run("What is 12.5 times 8? Mail it to ann@example.com")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "100")
    assert result.trace.steps[0].checks[0].check == "said_already"
    other = ScriptedChatModel(responses=[ask("What is the result of 12.5 times 9?")])
    assert clarifying_agent(other).run("What is 12.5 times 8?").termination_reason is TerminationReason.CLARIFICATION


def test_a_question_only_the_user_can_answer_still_pauses_the_run():
    for question in ("Which Springfield do you mean?", "Do you want it in Celsius or Fahrenheit?", "Which city?"):
        model = ScriptedChatModel(responses=[ask(question)])
        result = clarifying_agent(model).run("What is the weather in Springfield?")
        assert (result.termination_reason, result.termination_detail) == (TerminationReason.CLARIFICATION, question)
    off = ScriptedChatModel(responses=[ask("What is your name?")])
    assert clarifying_agent(off, reply_checks=without("said_already")).run("My name is Ada.").termination_reason is TerminationReason.CLARIFICATION


def test_an_answered_clarification_asked_again_goes_to_the_user_again():
    """asked_before went (it acted in no measured run; on the walkthrough's python-clarification task the model guessed
    the numbers instead of asking): the same question asked after its answer pauses the run again."""
    model = ScriptedChatModel(responses=[ask("How many boxes are there?"), ask("How many boxes are there?")])
    agent = clarifying_agent(model)
    assert agent.run("Each box holds 24 cans. How many cans in all?", thread_id="boxes").termination_reason is TerminationReason.CLARIFICATION
    again = agent.resume("boxes", "7")
    assert (again.termination_reason, again.termination_detail) == (TerminationReason.CLARIFICATION, "How many boxes are there?")


def test_an_answer_that_leaves_out_part_of_what_the_question_names_stands_with_less_confidence():
    """uncovered_parts went (it fired in no measured run): such an answer stands, and its confidence falls."""
    from reactgraph.testing import DEMO_TOOLS

    question = "Is it warmer in Rome than in Paris? Which flights go there on 2026-05-01?"
    once = ReActAgent(ScriptedChatModel(responses=[tool_call("get_weather", {"city": "Rome"}), "Yes."], repeat_last=True),
                      DEMO_TOOLS, checkpointer=None, summary_every=0).run(question)
    assert once.final_answer == "Yes." and once.confidence_signals["uncovered"].effect == -0.2
    assert once.confidence_signals["uncovered"].detail == "no tool call or result covers Paris, 2026-05-01"
    assert [c.check for s in once.trace.steps for c in s.checks] == ["answers_each"]  # sent back once, then it stood
