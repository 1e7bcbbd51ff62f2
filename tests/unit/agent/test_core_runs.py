"""Runs on one thread, one question at a time, cancel-all, counts, and stops in the text format."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from reactgraph import ConfigError, ReActAgent, RunWaitingError, build_graph
from reactgraph import TerminationReason as R
from reactgraph.config import AgentConfig
from reactgraph.graph.deps import NodeDeps
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools.registry import ToolRegistry
from tests.unit.tool_calling.parsing_corpus import TextOnlyModel


def test_a_new_question_on_a_paused_thread_is_refused_and_changes_nothing(math_tools):
    model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which city?"}), "Rome is in Italy."])
    agent = ReActAgent(model=model, tools=math_tools)
    paused = agent.run("Where is the city?", thread_id="t")
    assert paused.termination_reason is R.CLARIFICATION
    before = [(e.checkpoint_id, e.next) for e in agent.history("t")]
    with pytest.raises(RunWaitingError, match=r"thread 't' waits for an answer to its question 'Which city\?'.*resume\('t', answer\)"):
        agent.run("Where is Rome?", thread_id="t")  # instead of answering the question
    assert [(e.checkpoint_id, e.next) for e in agent.history("t")] == before and len(model.calls) == 1
    done = agent.resume("t", "Rome")
    assert done.question == "Where is the city?" and done.final_answer == "Rome is in Italy."


def test_query_then_chat_message_on_one_thread_answers_the_message(math_tools):
    model = ScriptedChatModel(responses=["first answer", "second answer"])
    graph = build_graph(model, math_tools, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"query": "first question"}, config)["final_answer"] == "first answer"
    out = graph.invoke({"messages": [{"role": "user", "content": "second question"}]}, config)
    assert out["final_answer"] == "second answer"
    assert graph.get_state(config).values["question"] == "second question"  # not the old query again


def test_one_question_at_a_time(math_tools):
    two = tool_calls([("ask_user", {"question": "City?"}), ("ask_user", {"question": "Year?"})])
    model = ScriptedChatModel(responses=[two, "Rome, 2020."])
    agent = ReActAgent(model=model, tools=math_tools, answer_checks=0)
    paused = agent.run("?")
    assert paused.termination_detail == "City?"
    done = agent.resume(paused.thread_id, "Rome")  # one pause, one answer: resumable
    first, second = done.trace.steps[0].observations
    assert first.content == "The user answered: Rome"
    assert second.status == "error" and "one question at a time" in second.content
    assert done.final_answer == "Rome, 2020."


def test_cancel_all_stops_older_runs_and_survives_new_ones():
    deps = NodeDeps(config=AgentConfig(), registry=ToolRegistry())
    deps.request_cancel()  # every run started before now
    deps.clear_cancel("new")  # a new run starting elsewhere does not undo it
    assert deps.is_cancelled("old", started_at=0.0)
    assert not deps.is_cancelled("new", started_at=float("inf"))
    deps.request_cancel("new")
    assert deps.is_cancelled("new", started_at=float("inf"))


def test_tool_usage_counts_only_calls_that_ran(math_tools):
    calls = tool_calls([("lookup", {"key": "paris"}), ("nope", {}), ("add", {"a": "x", "b": 1})])
    model = ScriptedChatModel(responses=[calls, tool_call("lookup", {"key": "rome"}), "done"])
    result = ReActAgent(model=model, tools=math_tools).run("Look up paris and rome.")
    assert result.tool_usage == {"lookup": 2}  # the unknown tool and the invalid call never ran


def test_partial_answer_in_text_format_sees_text_steps_and_reads_the_final_answer(math_tools):
    def reply(messages):
        if "You must stop now" in messages[-1].content:
            return "Thought: I have one sum.\nFinal Answer: 2 so far"
        return "Thought: add\nAction: add[{\"a\": 1, \"b\": 1}]"

    model = TextOnlyModel(responses=[reply] * 3)
    result = ReActAgent(model=model, tools=math_tools, tool_calling="text", max_iterations=1).run("sum?")
    assert result.termination_reason is R.MAX_ITERATIONS and result.final_answer == "2 so far"
    last_prompt = model.calls[-1]["messages"]
    assert not any(isinstance(m, ToolMessage) for m in last_prompt)  # rendered as text, as think showed it
    assert "Action:" in last_prompt[0].content  # the text format's instructions are there
    assert last_prompt[-1].content.endswith('Reply with "Final Answer:" and the answer in your own words, no Action.')


def test_failed_summary_keeps_the_prompt_bounded(math_tools):
    def reply(messages):
        if "running notes" in messages[-1].content:
            raise RuntimeError("summary model down")
        return tool_call("lookup", {"key": str(len(model.calls))})

    model = ScriptedChatModel(responses=[reply] * 40)
    agent = ReActAgent(model=model, tools=math_tools, summary_every=1, max_iterations=12, model_settings={"max_retries": 0},
                       max_observation_tokens=50, early_stopping="force", stall_threshold=20)
    result = agent.run("?")
    assert "summary call failed" in result.summary
    assert len(result.summary) < 2 * 50 * 4 + 200  # cut head-and-tail, not every step appended


def test_resume_keeps_the_options_the_run_started_with(math_tools, log):
    turns = iter(range(100))
    model = ScriptedChatModel(
        responses=[tool_call("ask_user", {"question": "Go on?"})] + [lambda m: tool_call("add", {"a": next(turns), "b": 1})] * 10
    )
    agent = ReActAgent(model=model, tools=math_tools, summary_every=0)
    paused = agent.run("?", max_iterations=3, early_stopping="force")
    done = agent.resume(paused.thread_id, "yes")
    assert done.termination_reason is R.MAX_ITERATIONS and done.termination_detail == "reached max_iterations=3"
    assert len(log.calls) == 2  # iterations 2 and 3, not the agent's default of 10
    forked = agent.fork(paused.thread_id, iteration=1, max_iterations=4)  # a new option wins over the stored one
    assert forked.trace.total_iterations == 4


def test_close_leaves_a_saver_the_caller_owns(tmp_path):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(tmp_path / "mine.sqlite", check_same_thread=False)
    with ReActAgent(model=ScriptedChatModel(responses=["ok"]), checkpointer=SqliteSaver(conn)) as agent:
        agent.run("?")
    conn.execute("select 1")  # still open: the agent did not own it


def test_the_async_twins_take_the_parameters_of_the_sync_methods_and_aresume_answers_a_question(math_tools, log):
    """arun / aresume / astream take run / resume / stream's parameters (said once): aresume answers a
    pending question as resume does, and a misspelt option is the same error."""
    for sync, twin in (("run", "arun"), ("resume", "aresume"), ("stream", "astream")):
        ours, theirs = inspect.signature(getattr(ReActAgent, sync)), inspect.signature(getattr(ReActAgent, twin))
        assert list(ours.parameters) == list(theirs.parameters), twin
    model = ScriptedChatModel(responses=[tool_call("ask_user", {"question": "Which city?"}), tool_call("lookup", {"key": "Rome"}),
                                         "Rome is in Italy."])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    paused = asyncio.run(agent.arun("Where is the city?", thread_id="t"))
    assert paused.termination_reason is R.CLARIFICATION
    done = asyncio.run(agent.aresume("t", "Rome"))
    assert done.final_answer == "Rome is in Italy." and log.calls == [("lookup", {"key": "Rome"})]
    assert done.trace.steps[0].observations[0].content == "The user answered: Rome"
    with pytest.raises(ConfigError, match="max_iteratons"):
        asyncio.run(agent.arun("?", max_iteratons=2))
