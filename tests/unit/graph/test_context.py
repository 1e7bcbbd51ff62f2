"""The prompt stays bounded: linear growth of prompt tokens over a run, the token-threshold
summary trigger, model-summarized observations, and estimated usage. Counted, never timed."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from reactgraph import ReActAgent
from reactgraph.models.tokens import estimate_messages
from reactgraph.testing import ScriptedChatModel, tool_call

SUMMARY_MARK = "running notes"  # in prompts.SUMMARIZE_PROMPT
OBSERVATION_MARK = "returned a long result"  # in nodes/_summarize.OBSERVATION_PROMPT


def fetch(n: int) -> str:
    """Fetch page n (2 KB of text, then the next page's number)."""
    return f"page {n}: " + ("lorem ipsum dolor sit amet " * 80)[:2040] + f" next: page {n + 1}"


def looping_model() -> ScriptedChatModel:
    """Calls fetch with a new page every turn (no stall); answers summary prompts with short notes."""
    turns = iter(range(1, 10_000))

    def reply(messages: list[BaseMessage]):
        if SUMMARY_MARK in messages[0].text:
            return "Notes: fetched pages, nothing found yet."
        return tool_call("fetch", {"n": next(turns)}, thought="Fetch the next page.")

    return ScriptedChatModel(responses=[reply], repeat_last=True)


def think_prompts(model: ScriptedChatModel) -> list[int]:
    """Estimated tokens of every think prompt the model received (summary calls left out)."""
    return [estimate_messages(c["messages"]) for c in model.calls if SUMMARY_MARK not in c["messages"][0].text]


def run_loop(iterations: int, **options) -> tuple[ScriptedChatModel, list[int]]:
    model = looping_model()
    options = {"allow_clarification": False, "early_stopping": "force", "stall_threshold": 50} | options
    result = ReActAgent(model, [fetch], checkpointer=None, max_iterations=iterations, **options).run("Find the page.")
    assert result.termination_reason.value == "max_iterations" and len(result.trace.steps) == iterations
    return model, think_prompts(model)


def test_prompt_tokens_grow_linearly_with_the_run():
    totals, peaks = {}, {}
    for n in (10, 20, 40):
        _, prompts = run_loop(n)
        assert len(prompts) == n
        totals[n], peaks[n] = sum(prompts), max(prompts)
    print(f"\nprompt tokens over the run: {totals}; largest prompt: {peaks}")
    assert 1.8 <= totals[40] / totals[20] <= 2.2 and 1.7 <= totals[20] / totals[10] <= 2.3
    assert peaks[40] <= peaks[20] * 1.05  # a single prompt does not grow with the run
    # an accumulated history of 40 steps of 2 KB would be ~20,000 tokens in the last prompt alone
    assert peaks[40] < 3 * 600 + 600


def test_prompt_shows_only_the_last_keep_recent_steps():
    model, _ = run_loop(6, keep_recent_steps=2, summary_every=0)
    last = model.calls[-1]["messages"]
    shown = [m.text for m in last if m.type == "tool"]
    assert [s.split(":")[0] for s in shown] == ["page 4", "page 5"]


def test_summary_token_threshold_triggers_summaries_and_keeps_prompts_under_it():
    _, unbounded = run_loop(12, summary_every=0, keep_recent_steps=4)
    assert max(unbounded) > 1600
    model, prompts = run_loop(12, summary_every=0, keep_recent_steps=4, summary_token_threshold=1600)
    summaries = [c for c in model.calls if SUMMARY_MARK in c["messages"][0].text]
    assert summaries, "the threshold never triggered a summary"
    assert max(prompts) <= 1600
    assert any("Notes: fetched pages" in m.text for m in model.calls[-1]["messages"])


def test_no_summary_from_the_threshold_when_the_prompt_is_small():
    model, _ = run_loop(8, summary_every=0, summary_token_threshold=50_000)
    assert not [c for c in model.calls if SUMMARY_MARK in c["messages"][0].text]


def long_page(n: int) -> str:
    """A long page whose only fact is the year."""
    return "padding " * 400 + "The bridge opened in 1932. " + "padding " * 400


def page_model(summary_reply) -> ScriptedChatModel:
    def reply(messages: list[BaseMessage]):
        text = messages[0].text
        if OBSERVATION_MARK in text:
            return summary_reply(messages) if callable(summary_reply) else summary_reply
        if len(messages) == 2:
            return tool_call("long_page", {"n": 1})
        return "1932"

    return ScriptedChatModel(responses=[reply], repeat_last=True)


def test_summarize_observations_asks_the_model_instead_of_truncating():
    model = page_model("The bridge opened in 1932.")
    agent = ReActAgent(model, [long_page], checkpointer=None, allow_clarification=False, max_observation_tokens=100)
    observation = agent.run("When did the bridge open?", summarize_observations=True).trace.steps[0].observations[0]
    assert observation.content.startswith("[model summary of a ") and "opened in 1932" in observation.content
    assert observation.truncated and "truncated" not in observation.content
    truncated = agent.run("When did the bridge open?").trace.steps[0].observations[0]
    assert "characters truncated" in truncated.content and "1932" not in truncated.content


def test_summarize_observations_falls_back_to_truncation_when_the_call_fails():
    def broken(messages):
        raise ValueError("summarizer down")

    agent = ReActAgent(page_model(broken), [long_page], checkpointer=None, allow_clarification=False, max_observation_tokens=100)
    observation = agent.run("When?", summarize_observations=True).trace.steps[0].observations[0]
    assert "characters truncated" in observation.content


def test_usage_is_estimated_and_marked_when_the_model_reports_none():
    def run(report: bool):
        model = ScriptedChatModel(responses=[tool_call("fetch", {"n": 1}), "done"], report_usage=report)
        return ReActAgent(model, [fetch], checkpointer=None, allow_clarification=False).run("go").token_usage

    estimated, reported = run(False), run(True)
    assert estimated.estimated and estimated.input_tokens > 500 and estimated.total_tokens > estimated.input_tokens
    assert not reported.estimated and reported.total_tokens > 0
