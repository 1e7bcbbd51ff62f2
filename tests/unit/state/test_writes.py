"""Fewer writes per iteration (issue 30): the nodes write only the keys they change, a turn's fields and the tool
statistics are one record each, and a tool turn's record and its calls' outcomes ride on the chat messages written
anyway, counted in a real SQLite file."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Overwrite

from reactgraph import AgentConfig, ReActAgent, TerminationReason
from reactgraph.models.tokens import truncate
from reactgraph.state import (
    ALWAYS_WRITTEN,
    OUTCOME,
    TURN_KEY,
    changes,
    current_turn,
    iteration_of,
    tokens_used,
    tool_stats,
    with_turn,
)
from reactgraph.testing import ScriptedChatModel, tool_call

ITERATIONS = 10
NODES = ("think", "observe", "summarize", "terminate")  # the nodes that run alone in their step


def lookup(n: int) -> str:
    """Look up entry n."""
    return f"entry {n}"


@pytest.fixture
def agent(conn) -> ReActAgent:
    replies = [tool_call("lookup", {"n": n}, thought="Look up the next entry.") for n in range(ITERATIONS)]
    model = ScriptedChatModel(responses=[*replies, "The entries are 0 to 9."], repeat_last=True)
    config = AgentConfig(max_iterations=ITERATIONS + 1, stall_threshold=100, allow_clarification=False)
    agent = ReActAgent(model, [lookup], config, checkpointer=SqliteSaver(conn))
    assert agent.run("Look up entries 0, 1, 2, 3, 4, 5, 6, 7, 8 and 9.", thread_id="t").termination_reason == TerminationReason.SUCCESS
    return agent


def test_rows_per_iteration(agent, conn):
    rows = conn.execute("SELECT COUNT(*) FROM writes WHERE thread_id = 't'").fetchone()[0]
    checkpoints = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 't'").fetchone()[0]
    # 27.4 when every node wrote every key it returns, 19.6 when each of a turn's fields had its own channel, 12.6
    # when the run's tokens, the summary's reach, the calls beside think and the tool statistics had theirs, 10.2
    # when a tool turn's record and its calls' outcomes had theirs (issue 30), 8.6 when a new run on a new thread
    # wrote its resets (None, 0, "", {}) to keys never written (issue 45)
    assert rows / ITERATIONS <= 7.4
    assert checkpoints / ITERATIONS <= 3.2  # think, act, observe; a summary every 3 iterations


def test_the_runs_counts_ride_on_records_written_anyway(agent, conn):
    """The run's tokens are written once (terminate's total); the tool statistics are on observe's steps."""
    written = dict(conn.execute("SELECT channel, COUNT(*) FROM writes WHERE thread_id = 't' GROUP BY channel").fetchall())
    assert written["token_usage"] == 1
    assert not {"tool_stats", "model_calls", "summarized_through"} & set(written)
    values = agent.graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert tool_stats(values)["usage"] == {"lookup": 8}  # 10 replies, two of them taken by the summaries
    assert values["token_usage"] == tokens_used(values) and values["token_usage"]["total_tokens"] > 0


def test_a_tool_turn_writes_its_record_and_outcomes_on_its_messages(agent, conn):
    """think writes a tool turn's record on the turn's AI message and act each outcome on its ToolMessage: the
    ``current_turn`` channel is written by the summaries and the turn without tool calls (the answer's) only."""
    written = dict(conn.execute("SELECT channel, COUNT(*) FROM writes WHERE thread_id = 't' GROUP BY channel").fetchall())
    assert "outcomes" not in written
    assert written["current_turn"] == written["branch:to:summarize"] + 1
    values = agent.graph.get_state({"configurable": {"thread_id": "t"}}).values
    turns = [m for m in values["messages"] if isinstance(m, AIMessage) and m.tool_calls]
    assert [m.response_metadata[TURN_KEY]["iteration"] for m in turns] == [1, 2, 3, 4, 5, 6, 7, 8]
    results = [m for m in values["messages"] if isinstance(m, ToolMessage)]
    assert [(m.artifact["index"], m.artifact["ran"]) for m in results] == [(0, True)] * 8
    steps = agent.get_trace("t").steps
    assert [s.thought for s in steps[:-1]] == [m.text for m in turns] and steps[0].observations[0].duration == results[0].artifact["duration"]


def test_a_tool_result_written_by_hand_is_read_as_the_calls_result(math_tools, log):
    """Time travel as with LangGraph's prebuilt agent: a ToolMessage written as act's (no artifact) stands for the
    call, which never runs."""
    model = ScriptedChatModel(responses=[tool_call("add", {"a": 2, "b": 3}, thought="Add."), "6"])
    agent = ReActAgent(model, math_tools, checkpointer=InMemorySaver(), summary_every=0)
    config = {"configurable": {"thread_id": "t"}}
    agent.graph.invoke({"query": "2 + 3?"}, config, interrupt_before=["act"])
    call = agent.graph.get_state(config).values["messages"][-1].tool_calls[0]
    agent.graph.update_state(config, {"messages": [ToolMessage("6", tool_call_id=call["id"])]}, as_node="act")
    agent.graph.invoke(None, config)
    observation = agent.get_trace("t").steps[0].observations[0]
    assert (observation.tool, observation.status, str(observation), observation.retries) == ("add", "ok", "6", 0)
    assert log.calls == [] and agent.get_result("t").final_answer == "6"


@pytest.mark.parametrize("condensed", [False, True])
def test_a_cut_result_is_kept_whole_only_for_the_model_to_shorten(condensed):
    """The chat (and so its snapshots) holds a tool's whole output only with summarize_observations, where observe
    gives it to the model; else the ToolMessage's cut text is the observation, as the trace had it before."""
    page = "word " * 2000

    def read_page() -> str:
        """Read the page."""
        return page

    model = ScriptedChatModel(responses=[tool_call("read_page", {}, thought="Read."), "short", "Done."])
    agent = ReActAgent(model, [read_page], checkpointer=InMemorySaver(), summary_every=0, max_observation_tokens=100,
                       summarize_observations=condensed)
    result = agent.run("What does it say?", thread_id="t")
    message = next(m for m in agent.graph.get_state({"configurable": {"thread_id": "t"}}).values["messages"] if isinstance(m, ToolMessage))
    observation = result.trace.steps[0].observations[0]
    assert message.text == truncate(page, 100)[0] and observation.truncated
    if condensed:
        assert message.artifact["content"] == page and "truncated" not in message.artifact
        assert str(observation).endswith("short")
    else:
        assert "content" not in message.artifact and message.artifact["truncated"]
        assert str(observation) == message.text


def test_the_current_turn_is_the_later_record():
    """The record on the chat's last AI message when it is of a later run or iteration than the channel's."""
    message = with_turn(AIMessage("Look.", tool_calls=[{"name": "lookup", "args": {}, "id": "c"}]), {"run": 2, "iteration": 3})
    chat = [HumanMessage("Which?", id="q"), message, ToolMessage("entry", tool_call_id="c")]
    assert current_turn({"messages": chat}) == {"run": 2, "iteration": 3, "thought": "Look."}
    assert current_turn({"messages": chat, "current_turn": {"run": 2, "iteration": 2}})["iteration"] == 3  # a tool turn since
    summarized = {"run": 2, "iteration": 3, "summarized_through": 3}
    assert current_turn({"messages": chat, "current_turn": summarized}) == summarized  # written since (a summary)
    assert current_turn({"messages": chat, "current_turn": {"run": 3, "iteration": 1}}) == {"run": 3, "iteration": 1}  # a new run
    answered = [*chat, AIMessage("The entry.")]  # an answer's message carries no record: terminate writes it first
    assert current_turn({"messages": answered, "current_turn": {"run": 2, "iteration": 2}})["iteration"] == 2


def test_a_run_cut_short_after_a_tool_turn_ends_with_its_record_in_the_channel(math_tools):
    """The partial answer's message comes after the last tool turn's: terminate writes that turn's record."""
    model = ScriptedChatModel(responses=[tool_call("add", {"a": n, "b": 1}, thought="Add.") for n in range(2)] + ["Partly 2."])
    agent = ReActAgent(model, math_tools, checkpointer=None, max_iterations=2, summary_every=0)
    result = agent.run("Add on.", thread_id="cut")
    assert (result.termination_reason, result.partial, result.final_answer) == (TerminationReason.MAX_ITERATIONS, True, "Partly 2.")
    values = agent.graph.get_state({"configurable": {"thread_id": "cut"}}).values
    assert values["current_turn"]["iteration"] == iteration_of(values) == result.trace.total_iterations == 2
    assert values["current_turn"]["thought"] == "Add." and values["turns"][-1]["iterations"] == 2


def test_a_threads_next_run_counts_its_own_turns_from_its_first_tool_turn(math_tools, tmp_path):
    """A later run's first turn calls a tool: its record (run 2, iteration 1) is the current one, though the channel
    holds the first run's last (a later iteration, of run 1)."""
    script = [tool_call("add", {"a": 1, "b": 1}, thought="Add."), tool_call("add", {"a": 2, "b": 2}, thought="Again."), "2"]
    model = ScriptedChatModel(responses=[*script, tool_call("add", {"a": 3, "b": 3}, thought="Now 3."), "6"])
    agent = ReActAgent(model, math_tools, checkpointer=tmp_path / "db.sqlite", summary_every=0)
    assert agent.run("1 + 1?", thread_id="t").trace.total_iterations == 3
    agent.graph.invoke({"query": "3 + 3?"}, {"configurable": {"thread_id": "t"}}, interrupt_after=["think"])
    values = agent.graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert (values["current_turn"]["run"], values["current_turn"]["iteration"]) == (1, 3)
    assert current_turn(values)["run"] == 2 and iteration_of(values) == 1 and current_turn(values)["thought"] == "Now 3."
    result = agent.resume("t")
    assert (result.final_answer, result.trace.total_iterations, result.turn) == ("6", 2, 2)


def test_no_node_rewrites_a_value_the_state_holds(agent):
    """Each write of a node that runs alone in its step changes the state (what the turn thought, and the
    outcome terminate reports, aside)."""
    tuples = {t.config["configurable"]["checkpoint_id"]: t for t in agent.checkpointer.list({"configurable": {"thread_id": "t"}})}
    idle = []
    for entry in agent.history("t"):
        ran = set(entry.next) & set(NODES)
        for _, key, value in tuples[entry.checkpoint_id].pending_writes or []:
            kept = ALWAYS_WRITTEN | OUTCOME if "terminate" in ran else ALWAYS_WRITTEN
            if ran and key in entry.values and key not in kept:
                new = value.value if isinstance(value, Overwrite) else value
                if new == entry.values[key] and not isinstance(new, list | dict):
                    idle.append((entry.step, key, new))
    assert idle == []


def test_changes_drops_what_leaves_the_state_as_it_is():
    turn = {"iteration": 3, "thought": "same"}
    state: dict[str, Any] = {"current_turn": turn, "steps": [{"n": 1}], "hooks": [], "termination": None, "turn": 1}
    update = {"turn": 1, "steps": [], "hooks": Overwrite([]), "termination": None, "summary": "", "current_turn": dict(turn)}
    assert changes(state, update) == {"current_turn": turn}  # an empty value for a key never written: it reads the same
    fresh = {"summary": "", "partial": False, "output": None, "answer_checks": 0, "confidence_signals": {}, "steps": Overwrite([])}
    assert changes({}, fresh | {"question": "q", "turn": 1, "tool_cache": Overwrite({"k": "v"})}) == {
        "question": "q", "turn": 1, "tool_cache": Overwrite({"k": "v"})}  # a value is written, an empty one is not
    assert changes({"summary": "old", "partial": True}, fresh) == {"summary": "", "partial": False}  # a reset is
    assert changes(state, {"turn": 2, "steps": [{"n": 2}]}) == {"turn": 2, "steps": [{"n": 2}]}
    assert changes(state, {"errors": []}) == {}  # nothing added to an accumulating key


def test_changes_keeps_a_value_changed_in_place():
    signals = {"steps": {"effect": 1}}
    state = {"confidence_signals": signals}
    signals["steps"]["effect"] += 1  # a node that changed the state's own object: its write is kept
    assert changes(state, {"confidence_signals": signals}) == {"confidence_signals": signals}
    assert changes(state, {"confidence_signals": {"steps": {"effect": 2}}}) == {}


def test_terminate_reports_the_outcome_though_think_set_it(agent):
    """A client streaming updates reads the answer from terminate's update, also when think set it first."""
    tuples = {t.config["configurable"]["checkpoint_id"]: t for t in agent.checkpointer.list({"configurable": {"thread_id": "t"}})}
    before = next(entry for entry in agent.history("t") if "terminate" in entry.next)
    written = {key: value for _, key, value in tuples[before.checkpoint_id].pending_writes}
    assert written["final_answer"] == before.values["final_answer"] == "The entries are 0 to 9."
    assert written["termination"]["reason"] == "success"


def test_the_iteration_of_a_run_recorded_before_turns_had_their_record_is_its_last_steps():
    assert iteration_of({"current_turn": {"iteration": 3}, "steps": [{"iteration": 2}]}) == 3
    assert iteration_of({"steps": [{"iteration": 1}, {"iteration": 2}]}) == 2  # no current_turn: an older version's
    assert iteration_of({}) == 0
