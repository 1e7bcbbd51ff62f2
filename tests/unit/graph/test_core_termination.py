"""Every termination reason, each through the real graph on a scripted model."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import ToolMessage

from reactgraph import ReActAgent, TerminationReason
from reactgraph.testing import ScriptedChatModel, tool_call


def looping(reply, partial: str):
    """A reply for every turn, and ``partial`` when the agent asks for its partial answer."""
    return lambda messages: partial if "You must stop now" in messages[-1].content else reply


def agent_with(responses, tools, **config):
    model = ScriptedChatModel(responses=responses)
    return ReActAgent(model=model, tools=tools, **config), model


def test_success_on_final_answer(math_tools, log):
    agent, _ = agent_with([tool_call("add", {"a": 2, "b": 3}, thought="Add them."), "2 + 3 = 5"], math_tools)
    result = agent.run("What is 2 + 3?")
    assert result.termination_reason is TerminationReason.SUCCESS
    assert result.success and result.final_answer == "2 + 3 = 5"
    assert log.calls == [("add", {"a": 2, "b": 3})]
    assert [s.observations[0].content for s in result.trace.steps if s.kind == "tools"] == ["5"]
    assert not result.partial


def test_native_tool_calls_win_over_a_success_phrase_beside_them(math_tools, log):
    reply = tool_call("add", {"a": 1, "b": 1}, thought="Final Answer: 2")
    agent, _ = agent_with([reply, "1 + 1 = 2"], math_tools)
    result = agent.run("1+1?")
    assert log.calls == [("add", {"a": 1, "b": 1})]  # the call the model made ran
    assert result.termination_reason is TerminationReason.SUCCESS and result.final_answer == "1 + 1 = 2"


def test_a_success_phrase_in_markdown_still_ends_the_run(math_tools, log):
    for reply in ("Thought: known.\n**Final Answer:** 42", "### Final Answer: 42", "**Final Answer**: 42", "- Final Answer: 42"):
        agent, _ = agent_with([reply], math_tools, answer_checks=0)  # an answer with no tool call: not sent back here
        result = agent.run("6*7?")
        assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "42"), reply


def test_custom_success_phrase(math_tools):
    agent, _ = agent_with(["DONE>> forty-two"], math_tools, success_phrases=("DONE>>",))
    result = agent.run("?")
    assert result.final_answer == "forty-two"
    assert "DONE>>" in result.termination_detail


def test_failure_when_model_gives_up(math_tools):
    agent, _ = agent_with(["I cannot complete this task: no tool gives weather."], math_tools)
    result = agent.run("Weather in Paris tomorrow?")
    assert result.termination_reason is TerminationReason.FAILURE
    assert not result.success
    assert result.final_answer.startswith("I cannot complete this task")


def test_failure_phrases_are_configurable(math_tools):
    agent, _ = agent_with(["No way to know."], math_tools, failure_phrases=("no way to know",))
    assert agent.run("?").termination_reason is TerminationReason.FAILURE


def test_model_error_is_a_failure_stop_not_an_exception(math_tools):
    agent, model = agent_with([tool_call("add", {"a": 1, "b": 2})], math_tools)  # script runs out on turn 2
    result = agent.run("1+2?")
    assert result.termination_reason is TerminationReason.FAILURE
    assert "model call failed" in result.termination_detail and "ScriptExhausted" in result.termination_detail
    assert [s.kind for s in result.trace.steps] == ["tools", "final"]  # the work done is kept, and the failed turn
    assert result.trace.steps[1].calls == []  # the failed call used no tokens


def test_max_iterations_with_partial_answer(math_tools, log):
    responses = [tool_call("add", {"a": i, "b": 1}, thought=f"Step {i}.") for i in range(3)]
    responses.append("Partial: got 1, 2 and 3 so far.")
    agent, model = agent_with(responses, math_tools, max_iterations=3)
    result = agent.run("Keep adding")
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    assert result.partial and result.final_answer == "Partial: got 1, 2 and 3 so far."
    assert len(log.calls) == 3 and result.trace.total_iterations == 3
    last_call = model.calls[-1]
    assert last_call["tools"] == []  # the partial-answer call is made without tools
    assert "reached max_iterations=3" in last_call["messages"][-1].content


def test_a_partial_answer_reply_that_calls_a_tool_gives_none_and_says_why(math_tools, log):
    responses = [tool_call("add", {"a": i, "b": 1}) for i in range(3)] + [tool_call("add", {"a": 9, "b": 1})]
    agent, model = agent_with(responses, math_tools, max_iterations=3)
    result = agent.run("Keep adding")
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    assert result.partial and result.final_answer is None and len(log.calls) == 3
    assert result.termination_detail.endswith("; no partial answer: the reply called add instead")


def test_a_partial_answer_that_repeats_the_request_for_it_gives_none(math_tools, log):
    responses = [tool_call("add", {"a": i, "b": 1}) for i in range(3)] + ["give the best answer you can to the question"]
    agent, model = agent_with(responses, math_tools, max_iterations=3)
    result = agent.run("Keep adding")
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS and result.final_answer is None
    assert result.termination_detail.endswith("; no partial answer: your reply repeats the request for it instead of answering the question")


def test_early_stopping_force_skips_the_last_call(math_tools):
    responses = [tool_call("add", {"a": i, "b": 1}) for i in range(2)]
    agent, model = agent_with(responses, math_tools, max_iterations=2, early_stopping="force")
    result = agent.run("Keep adding")
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    assert result.partial and result.final_answer is None
    assert len(model.calls) == 2


def test_stall_on_repeated_action(math_tools, log):
    responses = [tool_call("lookup", {"key": k}, thought="Look it up.") for k in ("Paris", " paris ", "PARIS")]
    responses.append("Paris is in France.")
    agent, _ = agent_with(responses, math_tools, stall_threshold=3, max_iterations=10)
    result = agent.run("Where is Paris?")
    assert result.termination_reason is TerminationReason.STALLED
    assert "same action 3 times" in result.termination_detail
    assert len(log.calls) == 3
    assert result.final_answer == "Paris is in France."  # partial answer from the last call


def test_stall_on_repeated_observation(math_tools):
    responses = [tool_call("lookup", {"key": k}) for k in ("mars", "venus")] + ["Unknown."]
    agent, _ = agent_with(responses, math_tools, stall_threshold=2)
    result = agent.run("Where are mars and venus?")
    assert result.termination_reason is TerminationReason.STALLED
    assert "same observation 2 times" in result.termination_detail


def test_varied_actions_do_not_stall(math_tools):
    responses = [tool_call("lookup", {"key": k}) for k in ("paris", "rome", "paris")] + ["Done."]
    agent, _ = agent_with(responses, math_tools, stall_threshold=2, summary_every=0)
    assert agent.run("?").termination_reason is TerminationReason.SUCCESS


PINNED = "You answer questions with tools."  # the token budget tests' prompt: their counts do not move with the default's


def test_token_budget(math_tools, log):
    responses = [looping(tool_call("add", {"a": 1, "b": 1}, thought="x" * 400), "partial")] * 11
    agent, model = agent_with(responses, math_tools, token_budget=700, max_iterations=10, system_prompt=PINNED)
    result = agent.run("Add forever")
    assert result.termination_reason is TerminationReason.TOKEN_BUDGET
    assert result.partial and result.final_answer == "partial"
    turns = [s.token_usage.total_tokens for s in result.trace.steps if s.kind == "tools"]
    assert sum(turns) <= 700 and len(log.calls) == len(turns) < 10
    foreseen = int(result.termination_detail.split("(~")[1].split(")")[0])
    # the next call foreseen as the last one plus its 400-character reply: one the size of the last would fit the
    # budget, and the call after it was bigger: the budget passed
    assert foreseen > turns[-1] + 100 and sum(turns) + turns[-1] <= 700 < sum(turns) + foreseen


def test_token_budget_foresees_the_tool_results_in_the_next_prompt(math_tools):
    def fetch(key: str) -> str:
        """Fetch a long page."""
        return "word " * 1200  # kept as ~2,000 characters (max_tool_output_tokens): ~500 tokens into the next prompt

    responses = [looping(tool_call("fetch", {"key": "a"}), "partial")] * 5
    agent, _ = agent_with(responses, [*math_tools, fetch], token_budget=400, max_iterations=5, system_prompt=PINNED)
    result = agent.run("Fetch it")
    assert result.termination_reason is TerminationReason.TOKEN_BUDGET
    turns = [s.token_usage.total_tokens for s in result.trace.steps if s.kind == "tools"]
    # one call: a second its size would fit the budget, but not with the page it brought (the second was 574 tokens)
    assert len(turns) == 1 and turns[0] * 2 < 400 < turns[0] + int(result.termination_detail.split("(~")[1].split(")")[0])


def test_timeout_checked_before_model_call(math_tools):
    def slow(seconds: float) -> str:
        """Sleep, then report."""
        time.sleep(seconds)
        return "slept"

    # the first model call must come before the budget runs out: 1 s leaves room for a loaded machine's start-up
    # (0.2 s did not, once, in CI on 5c16058)
    responses = [looping(tool_call("slow", {"seconds": 1.5}), "partial")] * 6
    agent, model = agent_with(responses, [*math_tools, slow], timeout_seconds=1.0)
    result = agent.run("Sleep for 1.5 seconds.")
    assert result.termination_reason is TerminationReason.TIMEOUT
    assert [s.kind for s in result.trace.steps] == ["tools", "partial_answer"]
    assert model.position == 2  # one turn, then the partial-answer call
    assert result.final_answer == "partial"


def test_timeout_bounds_a_hanging_tool(math_tools):
    def hang(x: int) -> str:
        """Never returns in time."""
        time.sleep(3)
        return "late"

    agent, _ = agent_with([tool_call("hang", {"x": 1}), "partial"], [hang], limits={"timeout_seconds": 0.3}, tool_execution={"timeout_seconds": 30})
    result = agent.run("Hang")
    assert result.termination_reason is TerminationReason.TIMEOUT
    obs = result.trace.steps[0].observations[0]
    assert obs.status == "error" and obs.error_kind == "timeout"


def test_cancel_stops_after_current_step(math_tools, log):
    holder = {}

    def cancel_me(x: int) -> str:
        """Asks the agent to cancel (as a user would from another thread)."""
        holder["agent"].cancel()
        return "ok"

    responses = [tool_call("cancel_me", {"x": 1})] + [tool_call("add", {"a": 1, "b": 1})] * 3
    agent, model = agent_with(responses, [*math_tools, cancel_me])
    holder["agent"] = agent
    result = agent.run("Go")
    assert result.termination_reason is TerminationReason.CANCELLED
    assert result.final_answer is None and model.position == 1 and log.calls == []
    # a new run on the same agent is not cancelled
    agent2_result = agent.run("Again", max_iterations=1, early_stopping="force")
    assert agent2_result.termination_reason is TerminationReason.MAX_ITERATIONS


def test_cancel_one_thread_leaves_others(math_tools):
    agent, _ = agent_with(["done"], math_tools)
    agent.cancel("some-other-thread")
    assert agent.run("?", thread_id="mine").termination_reason is TerminationReason.SUCCESS


def test_custom_callback(math_tools, log):
    seen = []

    def stop_when_five(step) -> bool:
        seen.append(step.iteration)
        return any(o.content == "5" for o in step.observations)

    responses = [tool_call("add", {"a": 1, "b": 1}), tool_call("add", {"a": 2, "b": 3}), tool_call("add", {"a": 9, "b": 9})]
    agent, _ = agent_with(responses, math_tools, termination_callback=stop_when_five)
    result = agent.run("?")
    assert result.termination_reason is TerminationReason.CUSTOM
    assert seen == [1, 2] and len(log.calls) == 2
    assert not result.partial and result.final_answer == "5"  # what the step the callback stopped at found


def test_callback_that_raises_stops_with_detail(math_tools):
    def broken(step) -> bool:
        raise RuntimeError("boom")

    agent, _ = agent_with([tool_call("add", {"a": 1, "b": 1})], math_tools, termination_callback=broken)
    result = agent.run("?")
    assert result.termination_reason is TerminationReason.CUSTOM
    assert "RuntimeError: boom" in result.termination_detail


def test_clarification_pauses_and_resumes(math_tools, log):
    responses = [
        tool_call("ask_user", {"question": "Which city, Paris or Rome?"}, thought="Ambiguous."),
        tool_call("lookup", {"key": "rome"}),
        "Rome is in Italy.",
    ]
    agent, model = agent_with(responses, math_tools)
    paused = agent.run("Where is the city?")
    assert model.calls[0]["tools"] == ["add", "multiply", "lookup", "ask_user"]  # the name the model must call
    assert paused.termination_reason is TerminationReason.CLARIFICATION
    assert paused.termination_detail == "Which city, Paris or Rome?"
    assert paused.final_answer is None and model.position == 1
    done = agent.resume(paused.thread_id, "Rome")
    assert done.termination_reason is TerminationReason.SUCCESS and done.final_answer == "Rome is in Italy."
    assert done.trace.steps[0].observations[0].content == "The user answered: Rome"
    assert log.calls == [("lookup", {"key": "rome"})]


def test_clarification_handler_answers_inline(math_tools):
    responses = [tool_call("ask_user", {"question": "Which one?"}), "Thanks: Rome."]
    agent, _ = agent_with(responses, math_tools)
    asked = []
    result = agent.run("?", on_clarification=lambda q: asked.append(q) or "Rome")
    assert asked == ["Which one?"] and result.final_answer == "Thanks: Rome."


def test_clarification_off_means_ask_user_is_unknown(math_tools):
    agent, model = agent_with([tool_call("ask_user", {"question": "?"}), "ok"], math_tools, allow_clarification=False)
    result = agent.run("?")
    assert "ask_user" not in model.calls[0]["tools"]
    assert result.trace.steps[0].observations[0].error_kind == "tool_not_found"


def test_stop_rule_order_callback_before_cancel_before_stall_before_max():
    from reactgraph.config import AgentConfig
    from reactgraph.graph.stops import stop_reason

    cfg = AgentConfig(max_iterations=3, stall_threshold=2, timeout_seconds=1, token_budget=100)
    state = {
        "current_turn": {"iteration": 3},
        "started_at": 0.0,
        "token_usage": {"total_tokens": 500},
        "steps": [{"iteration": 3, "stats": {"stall": {"action_repeats": 2, "action_text": "x"}}}],
        "callback_stop": "cb",
        "cancel_requested": True,
    }
    order = []
    for key in ("callback_stop", "cancel_requested", "started_at", "token_usage", "steps", "current_turn"):
        reason = stop_reason(state, cfg, now=100.0)
        order.append(reason["reason"])
        state[key] = {"callback_stop": None, "cancel_requested": False, "started_at": 100.0,
                      "token_usage": {}, "steps": [], "current_turn": {"iteration": 1}}[key]
    order.append(stop_reason(state, cfg, now=100.0))
    assert order == ["custom", "cancelled", "timeout", "token_budget", "stalled", "max_iterations", None]


@pytest.mark.parametrize(
    "reply",
    [
        "I cannot complete the task: there is no weather tool.",
        "Sorry, I'm unable to complete this task without a search tool.",
        # how Qwen2.5-Coder-1.5B ended impossible tasks in the eval
        "The question cannot be answered from the given observations.",
        "The observation does not provide any information about the mayor of the town.",
    ],
)
def test_default_failure_phrases_match_how_models_give_up(math_tools, reply):
    agent, _ = agent_with([reply], math_tools)
    assert agent.run("Weather?").termination_reason is TerminationReason.FAILURE


def test_an_answer_that_mentions_a_missing_tool_is_still_an_answer(math_tools):
    agent, _ = agent_with(["percent_of is not available, so I used the calculator: 12% of 250 is 30."], math_tools, answer_checks=0)
    assert agent.run("12% of 250?").termination_reason is TerminationReason.SUCCESS


def test_system_prompt_gives_no_quoted_phrase_to_parrot():
    from reactgraph.prompts import SYSTEM_PROMPT

    assert '"' not in SYSTEM_PROMPT  # small models repeat quoted phrases verbatim instead of working


def test_a_repeated_action_is_pointed_out_before_the_stall_stops_it(math_tools):
    """The repeat is shown once (small models copy their last turn), followed by a request to answer."""
    responses = [tool_call("lookup", {"key": "paris"})] * 2 + ["France"]
    agent, model = agent_with(responses, math_tools, stall_threshold=3)
    result = agent.run("Where is Paris?")
    first, second, _ = result.trace.steps
    assert first.observations[0].content == second.observations[0].content == "France"  # the trace is what ran
    assert "made exactly this call again" not in model.calls[1]["messages"][-1].content
    third = model.calls[2]["messages"]
    assert sum(isinstance(m, ToolMessage) for m in third) == 1  # the repeated step is shown once
    assert third[-1].content.startswith("You made exactly this call again and got the same result.")
    assert result.termination_reason is TerminationReason.SUCCESS


def test_alternating_between_two_calls_is_pointed_out_too(math_tools):
    """A model that alternates two calls (recorded: text 'count' then an unknown operation, over and over) never
    repeats its last step, so no stall stops it: a call made before with the same result gets the same request."""
    a, b = tool_call("lookup", {"key": "paris"}), tool_call("add", {"a": 1, "b": 2})
    agent, model = agent_with([a, b, a, "France"], math_tools, stall_threshold=3, summary_every=0)
    result = agent.run("Where is Paris?")
    assert [s.actions[0].tool for s in result.trace.steps[:3]] == ["lookup", "add", "lookup"]
    turns = [call["messages"][-1].content for call in model.calls]
    assert not any("made exactly this call again" in text for text in turns[:3])
    assert turns[3].startswith("You made exactly this call again and got the same result.")
    assert result.final_answer == "France"
