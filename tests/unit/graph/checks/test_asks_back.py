"""A request for details before any tool was tried is sent back (``asks_back``): the walkthrough's researcher
sub-agent, asked to count the architecture's layers with the docs' files on offer, answered "Could you please provide
more details ...?" without a call, and the lead multiplied a guessed 5. Sent back once, told to look first."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason, ToolRegistry
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, tool_call

ASKED = ("To count the number of layers in the architecture and multiply by 3, I'll need to know the specific "
         "architecture. Could you please provide more details or clarify what kind of architecture you're referring to?")


def lookup(key: str) -> str:
    """Look a key up in the project's notes."""
    return {"layers": "13 layers"}.get(key, "nothing")


def agent(*replies, **options) -> ReActAgent:
    return ReActAgent(model=ScriptedChatModel(responses=list(replies)), tools=[lookup], checkpointer=None, summary_every=0,
                      allow_clarification=False, **options)


def test_a_request_for_details_before_any_tool_is_sent_back_to_look_first():
    result = agent(ASKED, tool_call("lookup", {"key": "layers"}), "13").run("Count the layers of the architecture.")
    check = result.trace.steps[0]
    assert check.kind == "check" and check.checks[0].check == "asks_back"
    assert "no tool has been tried. Look for them with the tools that find things (lookup) first" in check.observations[0].content
    assert (result.termination_reason, result.final_answer, result.tool_usage) == (TerminationReason.SUCCESS, "13", {"lookup": 1})


def test_once_a_turn_after_a_tool_ran_or_left_out_the_request_stands():
    again = agent(ASKED, ASKED).run("Count the layers of the architecture.")
    assert (again.termination_reason, again.final_answer) == (TerminationReason.SUCCESS, ASKED)  # answer_checks=1
    after = agent(tool_call("lookup", {"key": "size"}), ASKED, ASKED).run("Count the layers of the architecture.")
    assert after.final_answer == ASKED and "asks_back" not in {c.check for s in after.trace.steps for c in s.checks}
    off = agent(ASKED, reply_checks=[c for c in DEFAULT_REPLY_CHECKS if c != "asks_back"]).run("Count the layers.")
    assert off.final_answer == ASKED


def test_a_sub_agent_that_asks_back_looks_and_the_lead_gets_its_answer():
    researcher = agent(ASKED, tool_call("lookup", {"key": "layers"}), "13")
    registry = ToolRegistry()
    registry.register_agent(researcher, "researcher", "Finds facts in the project's documents.")
    lead = ReActAgent(model=ScriptedChatModel(responses=[tool_call("researcher", {"task": "Count the layers."}), "39"]),
                      tools=registry, checkpointer=None, summary_every=0, allow_clarification=False)
    result = lead.run("How many layers does the architecture have, times 3?")
    assert result.trace.steps[0].observations[0].content == "13"
    assert [a.tool for s in result.trace.steps[0].observations[0].trace.steps for a in s.actions if a.tool] == ["lookup"]


def test_only_the_tools_that_find_things_are_named():
    from reactgraph.tools import ToolRegistry as Registry

    tools = Registry.with_builtins(["calculator", "percent_of"], tools=[lookup])
    bot = ReActAgent(model=ScriptedChatModel(responses=[ASKED, "13"]), tools=tools, checkpointer=None, summary_every=0,
                     allow_clarification=True)
    sent = bot.run("Count the layers of the architecture.").trace.steps[0].observations[0].content
    assert "the tools that find things (lookup) first" in sent
