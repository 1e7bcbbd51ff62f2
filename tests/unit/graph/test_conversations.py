"""A thread is a conversation: each question on it is a turn that sees the earlier ones, in a bounded form."""

from __future__ import annotations

import re
import sqlite3

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from reactgraph import AgentConfig, ReActAgent, RunWaitingError, TerminationReason
from reactgraph.graph.conversation import conversation_text, turn_text
from reactgraph.models.tokens import message_text
from reactgraph.testing import ScriptedChatModel, tool_call

FOLD_MARK = "You keep the notes of a conversation"


def lookup_file(topic: str) -> str:
    """The file that holds a topic's figures."""
    return {"sales": "the sales figures are in q3-report.txt (total 41,200)"}.get(topic.lower(), "no such topic")


def prompt_text(messages: list[BaseMessage]) -> str:
    return "\n".join(message_text(m) for m in messages)


def asked(messages: list[BaseMessage]) -> str:
    """The question of the turn a prompt is for (after the earlier turns, in the same message)."""
    last = next(m for m in reversed(messages) if isinstance(m, HumanMessage) and "Question: " in m.content)
    return last.content.rpartition("Question: ")[2].strip()


def test_a_follow_up_sees_the_first_question_and_its_answer(math_tools):
    model = ScriptedChatModel(responses=["Nice to meet you, Ada.", "Your name is Ada.", "I do not know your name."])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    first = agent.run("My name is Ada.", thread_id="t1")
    second = agent.run("What is my name?", thread_id="t1")
    assert (first.turn, second.turn) == (1, 2)
    prompt = model.calls[1]["messages"]
    assert [type(m) for m in prompt] == [SystemMessage, HumanMessage]  # the turn reads as a first turn does ...
    assert prompt[0].content.endswith(  # ... with the earlier turns as context at the end of the system prompt
        "Earlier in this conversation (context for the question; answer only the question):\n"
        'User: "My name is Ada."\nYou answered: "Nice to meet you, Ada."'
    )
    assert prompt[-1].content == "Question: What is my name?"
    assert second.thread_token_usage.total_tokens == first.token_usage.total_tokens + second.token_usage.total_tokens
    assert [(t.turn, t.question, t.answer) for t in agent.conversation("t1")] == [
        (1, "My name is Ada.", "Nice to meet you, Ada."), (2, "What is my name?", "Your name is Ada.")
    ]
    other = agent.run("What is my name?", thread_id="t2")  # a new thread is a new conversation
    assert other.turn == 1 and "My name is Ada." not in prompt_text(model.calls[-1]["messages"])


def answers_from_the_prompt(messages: list[BaseMessage]) -> str | AIMessage:
    """Folds keep the tool results they are given; turn 1 looks the file up; later turns answer from the prompt."""
    text = prompt_text(messages)
    if FOLD_MARK in text:
        return "Notes: " + "; ".join(re.findall(r"returned: ([^\n]+)", text)) + "; the user asked about sales."
    question = asked(messages)
    if messages[-1].type == "tool":
        return "It is in " + re.search(r"[\w-]+\.txt", messages[-1].content).group(0) + "."
    if "Which file holds the sales figures?" in question:
        return tool_call("lookup_file", {"topic": "sales"}, thought="Look it up.")
    if "Which file did you name at the start?" in question:
        found = re.search(r"\b[\w-]+\.txt\b", text)
        return f"The file was {found.group(0)}." if found else "I do not know."
    return f"Answered: {question}"


def test_a_fact_from_the_first_turns_tool_result_survives_the_folding_into_turn_five():
    model = ScriptedChatModel(responses=[answers_from_the_prompt], repeat_last=True)
    agent = ReActAgent(model=model, tools=[lookup_file], checkpointer=None, keep_recent_turns=2)
    agent.run("Which file holds the sales figures?", thread_id="t")
    for n in (2, 3, 4):
        agent.run(f"Tell me fact number {n}.", thread_id="t")
    fifth = agent.run("Which file did you name at the start?", thread_id="t")
    folds = [c["messages"] for c in model.calls if FOLD_MARK in prompt_text(c["messages"])]
    assert len(folds) == 1  # at turn 4: turns 1 and 2 folded, turn 3 kept verbatim
    assert "lookup_file returned: the sales figures are in q3-report.txt" in prompt_text(folds[0])
    fifth_prompt = prompt_text(model.calls[-1]["messages"])
    assert "Which file holds the sales figures?" not in fifth_prompt  # turn 1 is not shown verbatim ...
    assert "Notes on the earlier conversation:" in fifth_prompt and "q3-report.txt" in fifth_prompt  # ... its tool's fact is in the notes
    assert fifth.final_answer == "The file was q3-report.txt." and fifth.turn == 5
    calls = [c.purpose for s in agent.conversation("t")[3].trace.steps for c in s.calls]
    assert calls[0] == "conversation"  # the fold is a model call of the turn it was made for, counted in its tokens


def stored_bytes(db) -> int:
    """Bytes of the checkpoints and their writes in a SQLite file."""
    with sqlite3.connect(db) as conn:
        checkpoints = conn.execute("SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints").fetchone()[0]
        return checkpoints + conn.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes").fetchone()[0]


def test_fifty_turns_keep_the_prompt_flat_and_the_checkpoints_linear(tmp_path, math_tools):
    def reply(messages: list[BaseMessage]) -> str:
        if FOLD_MARK in prompt_text(messages):
            return "Notes: the user asked numbered questions; each was answered with its number."
        return f"Answer to {asked(messages)}"

    model = ScriptedChatModel(responses=[reply], repeat_last=True)
    db = tmp_path / "chat.sqlite"
    sizes, prompts = {}, {}
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as agent:
        for n in range(1, 51):
            agent.run(f"What is the number {n}?", thread_id="long")
            prompts[n] = sum(len(message_text(m)) for m in model.calls[-1]["messages"])
            if n in (25, 50):
                sizes[n] = stored_bytes(db)
        assert len(agent.conversation("long")) == 50
    assert prompts[50] / prompts[5] <= 1.2 and max(prompts[n] for n in range(5, 51)) / prompts[5] <= 1.2, prompts
    assert sizes[50] / sizes[25] <= 2.2, sizes  # linear in the turns (2.0 for exactly linear)


def test_new_conversation_starts_the_models_context_anew_and_keeps_the_history(math_tools):
    model = ScriptedChatModel(responses=["Hello Ada.", "I do not know your name."])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    agent.run("My name is Ada.", thread_id="t")
    second = agent.run("What is my name?", thread_id="t", new_conversation=True)
    assert "My name is Ada." not in prompt_text(model.calls[1]["messages"])
    assert second.turn == 2 and [t.turn for t in agent.conversation("t")] == [1, 2]


def test_limits_apply_per_turn(math_tools):
    """Each turn has its own max_iterations; the thread's tokens add up."""
    calls = [tool_call("multiply", {"a": 2, "b": 3}), tool_call("multiply", {"a": 3, "b": 4}), "done"]
    model = ScriptedChatModel(responses=[*calls, *calls])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None, max_iterations=3, summary_every=0)
    first = agent.run("Two products, please.", thread_id="t")
    second = agent.run("Two more, please.", thread_id="t")
    assert first.termination_reason is second.termination_reason is TerminationReason.SUCCESS
    assert second.trace.total_iterations == 3 and second.token_usage.total_tokens < second.thread_token_usage.total_tokens


def test_a_new_question_while_a_turn_waits_names_resume_and_changes_nothing(math_tools):
    model = ScriptedChatModel(responses=["Noted, Ada.", tool_call("ask_user", {"question": "Which city?"}), "Rome."])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    agent.run("My name is Ada.", thread_id="t")
    assert agent.run("Where do I live?", thread_id="t").termination_reason is TerminationReason.CLARIFICATION
    before = agent.graph.get_state({"configurable": {"thread_id": "t"}})
    with pytest.raises(RunWaitingError, match=r"resume\('t', answer\)"):
        agent.run("Something else?", thread_id="t")
    after = agent.graph.get_state({"configurable": {"thread_id": "t"}})
    assert after.config == before.config and len(model.calls) == 2
    assert agent.resume("t", "Rome").turn == 2


def test_fork_a_turn_again_with_other_settings_or_another_question(math_tools):
    model = ScriptedChatModel(responses=[lambda messages: f"A: {asked(messages)}"], repeat_last=True)
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None)
    for n in range(1, 5):
        agent.run(f"Question {n}?", thread_id="t")
    again = agent.fork("t", turn=3, iteration=0, max_iterations=5)
    assert (again.turn, again.question, again.final_answer) == (3, "Question 3?", "A: Question 3?")
    assert [t.question for t in agent.conversation("t")] == ["Question 1?", "Question 2?", "Question 3?"]
    anew = agent.fork("t", turn=3, query="Question three, asked anew?")
    assert (anew.turn, anew.final_answer) == (3, "A: Question three, asked anew?")
    assert [t.question for t in agent.conversation("t")] == ["Question 1?", "Question 2?", "Question three, asked anew?"]
    assert "Question 2?" in prompt_text(model.calls[-1]["messages"])  # the turns before it are still seen
    with pytest.raises(ValueError, match="turn 1 has no turn before it"):
        agent.fork("t", turn=1, query="?")
    assert {e.turn for e in agent.history("t")} == {1, 2, 3}


class Crash(BaseException):
    """Stops a run the way a killed process would: nothing catches it."""


def test_a_crash_in_turn_two_resumes_without_running_turn_ones_calls_again(tmp_path, log, math_tools):
    state = {"crash": True}

    def reply(messages: list[BaseMessage]) -> str | AIMessage:
        question = asked(messages)
        if messages[-1].type == "tool":
            if "second" in question and state.pop("crash", False):
                raise Crash("killed after turn 2's tool call")
            return f"result {messages[-1].content}"
        return tool_call("multiply", {"a": 6, "b": 7} if "first" in question else {"a": 2, "b": 3})

    db = tmp_path / "runs.sqlite"
    model = ScriptedChatModel(responses=[reply], repeat_last=True)
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as agent:
        agent.run("The first product?", thread_id="t")
        with pytest.raises(Crash):
            agent.run("The second product?", thread_id="t")
    with ReActAgent(model=model, tools=math_tools, checkpointer=db) as again:  # another process
        done = again.resume("t")
        assert (done.turn, done.final_answer) == (2, "result 6")
        assert [t.answer for t in again.conversation("t")] == ["result 42", "result 6"]
    assert log.calls == [("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 3})]  # each call ran once


def test_the_prompt_shows_the_recent_turns_verbatim_and_cuts_long_answers(math_tools):
    model = ScriptedChatModel(responses=["x" * 5000, "ok"])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None, max_observation_tokens=50)
    agent.run("Say a lot.", thread_id="t")
    agent.run("And now?", thread_id="t")
    system = model.calls[1]["messages"][0].content
    shown = system[system.index("Earlier in this conversation"):]
    assert shown.startswith('Earlier in this conversation (context for the question; answer only the question):\nUser: "Say a lot."')
    assert len(shown) < 500 and "characters truncated" in shown and model.calls[1]["messages"][1].content == "Question: And now?"



def test_an_earlier_turn_without_an_answer_is_said_in_a_sentence_not_a_placeholder():
    """A '(none: failure)' placeholder for an unanswered turn was copied by the local model as its next answer."""
    turns = [{"turn": 1, "question": "Move the report.", "answer": None, "reason": "failure", "steps": []},
             {"turn": 2, "question": "And the notes?", "answer": "Moved.", "reason": "success", "steps": []}]
    state = {"turn": 3, "turns": turns, "folded_turns": 0}
    shown = conversation_text(state, AgentConfig())
    assert "(none" not in shown and 'User: "Move the report."\nYou gave no answer to that (the turn ended: failure).' in shown
    assert 'User: "And the notes?"\nYou answered: "Moved."' in shown
    assert "(none" not in turn_text(turns[0], AgentConfig()) and "No answer (the turn ended: failure)" in turn_text(turns[0], AgentConfig())
