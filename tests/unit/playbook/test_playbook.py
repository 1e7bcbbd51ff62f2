"""The playbook (issue 16): runs become bullets, duplicates merge, bullets survive the process and
come back in the prompt of a similar question, pitfalls are shown as such, the block has a cap.
Through the real graph on a scripted model and LangGraph's real stores."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from langgraph.store.memory import InMemoryStore

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import ConfigError
from reactgraph.models.tokens import count_tokens
from reactgraph.playbook import Bullet, Playbook, PlaybookError
from reactgraph.playbook._retrieval import block
from reactgraph.testing import ScriptedChatModel, tool_call

ADD = tool_call("add", {"a": 2, "b": 3}, thought="Add them.")
LOOK = tool_call("lookup", {"key": "paris"}, thought="Look it up.")


def agent_on(store, responses, tools, **config):
    model = ScriptedChatModel(responses=responses)
    return ReActAgent(model=model, tools=tools, playbook=store, checkpointer=None, **config), model


def system_prompt(model: ScriptedChatModel, call: int = 0) -> str:
    return model.calls[call]["messages"][0].content


def test_a_finished_run_becomes_a_strategy_with_its_tool_sequence(math_tools):
    store = InMemoryStore()
    agent, _ = agent_on(store, [ADD, tool_call("multiply", {"a": 5, "b": 4}), "The sum times four is 20."], math_tools)
    result = agent.run("What is 2 plus 3, times 4?", thread_id="t1")
    assert result.termination_reason is TerminationReason.SUCCESS
    [bullet] = agent.playbook.list()
    assert bullet.section == "strategies"
    assert bullet.tool_sequence == ["add", "multiply"]
    assert (bullet.helpful_count, bullet.harmful_count, bullet.runs) == (1, 0, 1)
    assert bullet.avg_iterations == 3 and bullet.tool_success_rate == 1.0
    assert 'add(a=…, b=…), then multiply(a=…, b=…), then answered' in bullet.content
    assert bullet.sources[0].startswith("t1@") and "plus" in bullet.tags


def test_a_stalled_run_becomes_a_pitfall(math_tools):
    agent, _ = agent_on(InMemoryStore(), [LOOK] * 4, math_tools, stall_threshold=3, early_stopping="force")
    result = agent.run("Where is Paris?")
    assert result.termination_reason is TerminationReason.STALLED
    [bullet] = agent.playbook.list()
    assert bullet.section == "pitfalls" and bullet.tool_sequence == ["lookup"]
    assert (bullet.helpful_count, bullet.harmful_count) == (0, 1)
    assert "stalled" in bullet.content


def test_a_failed_call_and_what_worked_instead_become_an_observation(math_tools):
    bad = tool_call("add", {"a": "two", "b": 3}, thought="Add them.")
    agent, _ = agent_on(InMemoryStore(), [bad, ADD, "2 + 3 = 5"], math_tools)
    agent.run("What is 2 + 3?")
    [note] = agent.playbook.list("observations")
    assert note.tool_sequence == ["add"]
    assert note.content == "add(a=…, b=…) failed (invalid_parameters); the same call with other a worked."  # no values


def test_the_same_lesson_twice_is_merged_and_its_count_raised(math_tools):
    store = InMemoryStore()
    for thread in ("a", "b"):
        agent, _ = agent_on(store, [ADD, "2 + 3 = 5"], math_tools)
        agent.run("What is 2 + 3?", thread_id=thread)
    [bullet] = Playbook(store).list()
    assert (bullet.helpful_count, bullet.runs) == (2, 2)
    assert [s.split("@")[0] for s in bullet.sources] == ["a", "b"]


def test_learning_the_same_run_again_counts_it_once(math_tools):
    """terminate run again on resume learns from the same run: nothing changes."""
    agent, _ = agent_on(InMemoryStore(), [ADD, "2 + 3 = 5"], math_tools)
    agent.run("What is 2 + 3?", thread_id="once")
    state = agent.graph.get_state({"configurable": {"thread_id": "once"}}).values
    [bullet] = agent.playbook.list()
    [again] = agent.playbook.learn(state, bullet.sources[0])
    assert again == bullet == agent.playbook.list()[0]
    [other] = agent.playbook.learn(state, "another-run@1.0")
    assert (other.id, other.helpful_count, other.runs) == (bullet.id, 2, 2)


SURVIVOR = textwrap.dedent(
    """
    import sys
    from reactgraph import ReActAgent
    from reactgraph.testing import ScriptedChatModel, tool_call

    def add(a: int, b: int) -> int:
        "Add two integers."
        return a + b

    model = ScriptedChatModel(responses=[tool_call("add", {"a": 347, "b": 29}), "347 + 29 = 376"])
    agent = ReActAgent(model=model, tools=[add], playbook=True, checkpointer=sys.argv[1])
    print(agent.run("What is the sum of 347 and 29?").termination_reason.value)
    """
)


def test_a_bullet_learnt_in_another_process_is_shown_for_a_similar_question(run_db, math_tools):
    """playbook=True keeps the playbook beside the runs: playbook.sqlite beside a SQLite file, the
    PostgresStore of a Postgres database. A new agent in this process finds what the other learnt."""
    done = subprocess.run([sys.executable, "-c", SURVIVOR, run_db], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "success", done.stderr
    model = ScriptedChatModel(responses=[ADD, "2 + 3 = 5"])
    agent = ReActAgent(model=model, tools=math_tools, playbook=True, checkpointer=run_db)
    assert type(agent.playbook.store).__name__ == ("PostgresStore" if run_db.startswith("postgresql") else "SqliteStore")
    result = agent.run("What is the sum of 2 and 3?")
    system = system_prompt(model)
    assert "Notes from earlier runs" in system
    assert '- Worked: "add(a=…, b=…), then answered (2 turns)." [tools: add; helped 1, hurt 0]' in system
    assert "347" not in system  # the other run's question is not shown
    state = agent.graph.get_state({"configurable": {"thread_id": result.thread_id}}).values
    [bullet] = agent.playbook.list()  # this run taught the same: merged into it
    assert state["playbook"]["bullets"] == [bullet.id]
    assert bullet.helpful_count == 2 and bullet.runs == 2  # its run, and this one that it was shown in
    agent.close()


def test_an_unrelated_question_or_a_tool_not_offered_gets_no_block(math_tools):
    store = InMemoryStore()
    agent, _ = agent_on(store, [ADD, "2 + 3 = 5"], math_tools)
    agent.run("What is the sum of 2 and 3?")
    unrelated, model = agent_on(store, ["Paris is in France."], math_tools)
    unrelated.run("Which country is Paris in?")
    assert "Notes from earlier runs" not in system_prompt(model)
    no_add, model = agent_on(store, ["5"], [t for t in math_tools if t.__name__ != "add"])
    no_add.run("What is the sum of 4 and 9?")
    assert "Notes from earlier runs" not in system_prompt(model)


def test_a_harmful_bullet_is_shown_as_a_pitfall(math_tools):
    store = InMemoryStore()
    stalled, _ = agent_on(store, [LOOK] * 4, math_tools, stall_threshold=3, early_stopping="force")
    stalled.run("Where is the city of Paris?")
    agent, model = agent_on(store, ["Paris is in France."], math_tools)
    agent.run("Where is Paris, the city?")
    system = system_prompt(model)
    assert '- Avoid: "lookup(key=…) led to no answer (stalled: the same action 3 times in a row)."' in system
    assert "hurt 1]" in system


def test_a_strategy_that_keeps_hurting_is_shown_as_a_pitfall_then_retired():
    book = Playbook(InMemoryStore())
    strategy = book.add("For sums: call add with both numbers.", tool_sequence=["add"], tags=["sum"])
    for n in range(2):
        book.merge([], shown=[strategy.id], source=f"run{n}", good=False)
    assert book.show(strategy.id).shown_as_pitfall
    book.merge([], shown=[strategy.id], source="run2", good=False)
    assert book.list() == []


def test_the_block_respects_its_token_cap():
    bullets = [
        Bullet(content=f"For question {n}: call calculator with the whole expression, then answer.", section="strategies",
               tool_sequence=["calculator"], helpful_count=1)
        for n in range(20)
    ]
    text, ids = block(bullets, max_tokens=80)
    assert count_tokens(text) <= 80 and 0 < len(ids) < 20
    assert text.count("\n- Worked:") == len(ids)
    assert block(bullets, max_tokens=20) == ("", [])


def test_the_prompt_block_is_capped_in_a_run(math_tools):
    store = InMemoryStore()
    book = Playbook(store)
    for word in ("apples", "pears", "plums", "grapes", "melons", "lemons"):
        book.add(f"For a sum of {word}: add the {word} counted, then answer.", tool_sequence=["add"], tags=["sum"])
    assert len(book.list()) == 6
    agent, model = agent_on(store, ["5"], math_tools, playbook_max_tokens=120, playbook_top_k=6)
    agent.run("What is the sum of 2 and 3?")
    shown = system_prompt(model).split("Notes from earlier runs")[1]
    assert 0 < shown.count("- Worked:") < 6
    assert count_tokens("Notes from earlier runs" + shown) <= 120


def test_a_change_to_the_playbook_drops_the_cached_block(math_tools):
    store = InMemoryStore()
    agent, model = agent_on(store, ["5", "8", "5"], math_tools, answer_checks=0)  # one call per run: its prompt is read
    agent.run("What is the sum of 2 and 3?")
    agent.run("What is the sum of 4 and 4?")  # answers without a tool teach nothing: the playbook is unchanged
    assert "Notes from earlier runs" not in system_prompt(model, 0)
    assert len(agent._deps.playbook_cache) == 2
    agent.playbook.add("For a sum: call add(a, b), then answer.", tool_sequence=["add"], tags=["sum"])
    agent.run("What is the sum of 2 and 3?")
    assert "For a sum: call add(a, b), then answer." in system_prompt(model, 2)
    assert len(agent._deps.playbook_cache) == 1  # the blocks read before the change are gone


def test_export_import_round_trip_and_a_bad_import(math_tools):
    book = Playbook(InMemoryStore())
    book.add("Use add for sums.", tool_sequence=["add"])
    book.add("Do not guess capitals.", "pitfalls", tool_sequence=["lookup"])
    other = Playbook(InMemoryStore(), "other")
    assert other.import_json(book.export_json()) == 2
    assert [(b.content, b.section) for b in other.list()] == [(b.content, b.section) for b in book.list()]
    with pytest.raises(PlaybookError, match="not a playbook export"):
        other.import_json(json.dumps({"bullets": [{"content": "x", "section": "wisdom"}]}))
    with pytest.raises(PlaybookError, match="no bullet 'nope'"):
        other.show("nope")
    other.remove(other.list()[0].id)
    assert len(other.list()) == 1


def test_a_playbook_without_a_store_is_a_clear_error(math_tools):
    agent = ReActAgent(model=ScriptedChatModel(responses=["5"]), tools=math_tools, checkpointer=None)
    with pytest.raises(ConfigError, match="playbook=True needs the agent's store"):
        agent.run("What is 2 + 3?", playbook=True)


class BrokenStore(InMemoryStore):
    def batch(self, ops):
        raise OSError("disk I/O error")


def test_a_broken_store_costs_the_run_its_playbook_not_the_run(math_tools, caplog):
    agent, _ = agent_on(BrokenStore(), [ADD, "2 + 3 = 5"], math_tools)
    result = agent.run("What is 2 + 3?")
    assert result.termination_reason is TerminationReason.SUCCESS and result.final_answer == "2 + 3 = 5"
    assert "playbook 'default' not read" in caplog.text and "not updated from run" in caplog.text


def test_a_lesson_in_words_is_written_in_the_background(math_tools):
    lesson = "For sums, call add once with both numbers and answer with its result."
    agent, model = agent_on(InMemoryStore(), [ADD, "2 + 3 = 5", lesson], math_tools, playbook_lessons=True)
    agent.run("What is 2 + 3?")
    assert agent.playbook.wait(timeout=30)
    lessons = [b for b in agent.playbook.list() if b.lesson]
    assert [(b.content, b.section, b.tool_sequence) for b in lessons] == [(lesson, "strategies", ["add"])]
    assert "add(a=…, b=…) -> ok" in model.calls[2]["messages"][1].content  # the run's shape, no values


def test_playbooks_are_namespaced(math_tools):
    store = InMemoryStore()
    agent, _ = agent_on(store, [ADD, "2 + 3 = 5"], math_tools, playbook_name="maths")
    agent.run("What is 2 + 3?")
    assert len(Playbook(store, "maths").list()) == 1 and Playbook(store).list() == []


def test_a_give_up_becomes_an_observation_without_counts(math_tools):
    agent, _ = agent_on(InMemoryStore(), [LOOK, "I cannot complete this task: the table has no weather."], math_tools)
    result = agent.run("What is the weather in Paris?")
    assert result.termination_reason is TerminationReason.FAILURE
    [note] = agent.playbook.list()
    assert note.section == "observations" and (note.helpful_count, note.harmful_count) == (0, 0)
    assert note.content == "lookup(key=…) did not give the answer; the run said it cannot answer."


def test_a_store_with_embeddings_retrieves_by_meaning(math_tools):
    """A store with a semantic index (here a two-dimensional toy embedding) is searched by its index:
    a question sharing no word with the bullet finds it, an unrelated bullet stays out."""

    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if ("sum" in t or "plus" in t) else [0.0, 1.0] for t in texts]

    store = InMemoryStore(index={"embed": embed, "dims": 2, "fields": ["content"]})
    book = Playbook(store)
    book.add("For a sum: call add with both numbers, then answer.", tool_sequence=["add"])
    book.add("For a country: call lookup with the city.", tool_sequence=["lookup"])
    agent, model = agent_on(store, ["5"], math_tools)
    agent.run("How much is two plus three?")
    system = system_prompt(model)
    assert "For a sum: call add with both numbers" in system and "For a country" not in system


def test_an_answer_without_a_tool_or_that_no_result_supports_teaches_no_strategy(math_tools):
    """Either may be wrong (the run cannot tell): neither becomes a strategy shown to later runs."""
    store = InMemoryStore()
    agent, _ = agent_on(store, ["2 + 3 = 5"], math_tools, answer_checks=0)  # accepted as given, not checked
    assert agent.run("What is 2 + 3?").termination_reason is TerminationReason.SUCCESS
    unsupported, _ = agent_on(store, [ADD, "2 + 3 = 6"], math_tools, answer_checks=0)
    result = unsupported.run("What is 2 + 3?")
    assert result.termination_reason is TerminationReason.SUCCESS and result.confidence_signals["support"].effect < 0
    assert Playbook(store).list() == []
    supported, _ = agent_on(store, [ADD, "2 + 3 = 5"], math_tools)
    supported.run("What is 2 + 3?")
    assert [b.section for b in Playbook(store).list()] == ["strategies"]
