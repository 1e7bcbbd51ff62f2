"""For the tools, not the user (``for_the_tools``): an ``ask_user`` question about what the user asked, not about
them, while a lookup is on offer, is answered by the agent (find it with the lookup, search again); the local model
asked the user "How many layers are there in the architecture?" with a researcher sub-agent on offer. Once a turn;
questions about the user, choices, and agents with nothing to look things up with still pause."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, multiply, tool_call
from reactgraph.tools import ToolRegistry

LAYERS = "How many layers are there in the architecture?"


def layers(question: str) -> str:
    """Finds facts in the project's documents."""
    return "The architecture has 13 layers."


def agent(*replies, tools=(multiply, layers), **options) -> ReActAgent:
    model = ScriptedChatModel(responses=list(replies))
    return ReActAgent(model=model, tools=list(tools), checkpointer=None, summary_every=0, allow_clarification=True, **options)


def ask(question: str):
    return tool_call("ask_user", {"question": question})


def test_a_question_about_the_world_goes_to_the_lookup_first():
    bot = agent(ask(LAYERS), tool_call("layers", {"question": LAYERS}), tool_call("multiply", {"a": 13, "b": 3}), "39")
    result = bot.run("How many layers does the architecture have, times 3?")
    assert (result.termination_reason, result.final_answer) == (TerminationReason.SUCCESS, "39")
    first = result.trace.steps[0]
    assert first.checks[0].check == "for_the_tools"
    assert first.observations[0].content.startswith("(The user was not asked: they asked you to find this out.)")
    assert "Find it with a tool (layers)" in first.observations[0].content  # multiply looks nothing up
    assert result.tool_usage == {"layers": 1, "multiply": 1}


def test_after_a_search_that_missed_it_searches_again_and_asked_again_it_goes_to_the_user():
    """The researcher sub-agent searched once, then asked the user the lead's question."""
    bot = agent(tool_call("layers", {"question": "architecture"}), ask(LAYERS), tool_call("layers", {"question": "layers"}), "13")
    again = bot.run("How many layers does the architecture have?")
    assert again.final_answer == "13" and again.tool_usage == {"layers": 2}
    told = again.trace.steps[1].observations[0].content
    assert "if a search missed it, search again with other words (words not tried yet: layers)." in told
    twice = agent(ask(LAYERS), ask(LAYERS)).run("How many layers does the architecture have, times 3?")
    assert (twice.termination_reason, twice.termination_detail) == (TerminationReason.CLARIFICATION, LAYERS)


def test_questions_about_the_user_choices_and_no_lookup_still_pause():
    for question in ("What are your two lucky numbers?", "Do you mean the old or the new architecture?"):
        assert agent(ask(question)).run("Multiply the layers.").termination_detail == question
    no_lookup = agent(ask(LAYERS), tools=[multiply]).run("How many layers, times 3?")
    assert no_lookup.termination_detail == LAYERS
    off = agent(ask(LAYERS), reply_checks=[c for c in DEFAULT_REPLY_CHECKS if c != "for_the_tools"])
    assert off.run("How many layers, times 3?").termination_detail == LAYERS


def test_a_sub_agent_is_a_lookup():
    researcher = ReActAgent(ScriptedChatModel(responses=["The architecture has 13 layers."]), tools=[], checkpointer=None)
    registry = ToolRegistry([multiply])
    registry.register_agent(researcher, "researcher", "Finds facts in the project's documents.")
    lead = ReActAgent(ScriptedChatModel(responses=[ask(LAYERS), tool_call("researcher", {"task": LAYERS}), "13"]),
                      tools=registry, checkpointer=None, summary_every=0, allow_clarification=True)
    result = lead.run("How many layers does the architecture have?")
    assert result.final_answer == "13" and result.tool_usage == {"researcher": 1}
