"""text, search (SQLite FTS5), geometry and percentages, called as the agent calls them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reactgraph.config import AgentConfig
from reactgraph.tools import DocumentIndex, ToolRegistry
from reactgraph.tools.builtin.search import PASSAGE_WORDS, passages
from reactgraph.tools.builtin.text import MAX_TEXT_CHARS
from reactgraph.tools.execution import execute


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> ToolRegistry:
    docs = tmp_path_factory.mktemp("docs")
    (docs / "solar.md").write_text("Solar panels convert sunlight into electricity. Panel efficiency is about 20%.")
    (docs / "wind.txt").write_text("Wind turbines turn the kinetic energy of wind into electricity.")
    (docs / "sub").mkdir()
    (docs / "sub" / "bees.txt").write_text("Honey bees pollinate crops.")
    (docs / "image.png").write_bytes(b"\x89PNG\x00\x00binary solar")
    sources = [docs, "A plain string document about tidal power and electricity."]
    return ToolRegistry.with_builtins(documents=sources)


def run(registry: ToolRegistry, tool: str, **args) -> dict:
    return execute({"id": "c1", "index": 0, "tool": tool, "args": args}, registry, AgentConfig())


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"operation": "length", "text": "héllo"}, "5"),
        ({"operation": "upper", "text": "abc"}, "ABC"),
        ({"operation": "lower", "text": "ABC"}, "abc"),
        ({"operation": "trim", "text": "  a b \n"}, "a b"),
        ({"operation": "replace", "text": "a-b-c", "old": "-", "new": "+"}, "a+b+c"),
        ({"operation": "split", "text": "a, b,c", "separator": ","}, '["a", " b", "c"]'),
        ({"operation": "split", "text": " a  b "}, '["a", "b"]'),
        ({"operation": "count", "text": "strawberry", "substring": "r"}, "3"),
        ({"operation": "count", "text": "to be or not to be"}, "6"),
        ({"operation": "slice", "text": "abcdef", "start": 1, "end": -1}, "bcde"),
        ({"operation": "slice", "text": "abcdef", "start": -2}, "ef"),
    ],
)
def test_text_operations(registry, args, expected):
    outcome = run(registry, "text", **args)
    assert outcome["status"] == "ok" and outcome["content"] == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"operation": "reverse", "text": "abc"}, "operation: Input should be 'length', 'upper'"),
        ({"operation": "replace", "text": "abc", "new": "x"}, "`old` must not be empty"),
        ({"operation": "split", "text": "abc", "separator": ""}, "separator must not be empty"),
        ({"operation": "replace", "text": "a" * 1000, "old": "a", "new": "b" * 1000}, "the result would have 1000000 characters"),
        ({"operation": "length", "text": "a" * (MAX_TEXT_CHARS + 1)}, "text: String should have at most"),
    ],
)
def test_text_refusals(registry, args, message):
    outcome = run(registry, "text", **args)
    assert outcome["error_kind"] == "invalid_parameters" and message in outcome["content"]


def test_search_ranks_documents_with_snippets(registry):
    outcome = run(registry, "search_documents", query="solar panel efficiency")
    lines = outcome["content"].splitlines()
    assert lines[0].startswith("solar.md: [Solar] [panels] convert sunlight")  # porter stemming: panel ~ panels
    assert len(lines) == 1  # the binary file was not indexed
    hits = run(registry, "search_documents", query="electricity", limit=2)["content"].splitlines()
    assert len(hits) == 2 and all("[electricity]" in h for h in hits)
    everything = run(registry, "search_documents", query="electricity")["content"]
    assert {"solar.md", "wind.txt", "document 2"} <= {line.split(":")[0] for line in everything.splitlines()}
    assert "sub/bees.txt" in run(registry, "search_documents", query="bees")["content"]


def test_search_snippets_hold_the_sentence_around_the_match():
    """A 16-token snippet cut 'was opened in ...' before the year; the snippet now runs to 64 tokens."""
    text = "The Kessel footbridge crosses the river Aln. It is 148 metres long and was opened in 1998. It is green."
    index = ToolRegistry.with_builtins(["search_documents"], documents=[text])
    hit = run(index, "search_documents", query="Kessel footbridge opening")["content"]
    assert "was [opened] in 1998" in hit and hit.startswith("document 1: The [Kessel] [footbridge]")


def test_search_reads_a_question_by_its_subject_words():
    """A question as the query: 'how', 'the', 'have' left out, so the document about layers ranks first and its
    snippet is the sentence with the count (before, the page using 'the' and 'how' most won); a query of function
    words only still searches them."""
    layers = "Overview. The system is built in 13 layers, each importing only the ones below it."
    prose = "How the request flows: the client sends it, the server reads the body, the worker does the job and how."
    index = DocumentIndex.from_sources({"architecture": layers, "flow": prose})
    hits = index.search("How many layers does the architecture have?")
    assert [h.title for h in hits] == ["architecture"]
    assert "in 13 [layers]" in hits[0].snippet
    assert [h.title for h in index.search("how the")] == ["flow", "architecture"]


def test_a_long_document_is_searched_by_passages():
    """ARCHITECTURE.md as one document: FTS5's snippet for "architecture" was the sentence 'the same layers as the table
    below', not the one before it with the count, and a researcher asked the user for it. A hit is now the document's
    best passage, whole: the heading with its paragraph."""
    text = (Path(__file__).parents[3] / "src/reactgraph/evaluation/tasks/walkthrough/docs/ARCHITECTURE.md").read_text()
    index = DocumentIndex.from_sources({"ARCHITECTURE.md": text, "other.md": "Nothing about it."})
    assert len(index) == 2 and index.titles(5) == ["ARCHITECTURE.md", "other.md"]
    for query in ("architecture", "layers", "How many layers does the architecture have?"):
        [hit] = index.search(query)
        assert hit.title == "ARCHITECTURE.md" and hit.snippet.startswith("# ") and "in 13 " in hit.snippet
        assert hit.snippet.endswith("here and there.") and "|" not in hit.snippet  # the paragraph, not the table
    assert passages("One short paragraph.\n") == ["One short paragraph."]
    assert passages("# Title\n\nFirst.\n\n## Next\n\nSecond.") == ["# Title\nFirst.", "## Next\nSecond."]
    long = " ".join(f"Sentence {n} says a few more words here." for n in range(30))
    assert all(len(p.split()) <= PASSAGE_WORDS for p in passages(long)) and len(passages(long)) > 1


def test_the_search_names_the_documents_it_reads(registry):
    """A model sees which documents a search covers (it could not tell that "the architecture" of a question was
    ARCHITECTURE.md); a long list names the first ones and how many more."""
    described = registry.get("search_documents").tool.description
    assert described.endswith("The documents (4): solar.md, sub/bees.txt, wind.txt, document 2.")
    chapters = {f"chapter-{n:02}.md": "text" for n in range(30)}
    many = ToolRegistry.with_builtins(["search_documents"], documents=chapters).get("search_documents").tool.description
    assert many.endswith("The documents (30): chapter-00.md, chapter-01.md, chapter-02.md, chapter-03.md, "
                         "chapter-04.md, chapter-05.md, chapter-06.md, chapter-07.md, chapter-08.md, chapter-09.md, "
                         "chapter-10.md, chapter-11.md, and 18 more.")
    empty = ToolRegistry.with_builtins(["search_documents"], documents={}).get("search_documents").tool.description
    assert empty.endswith("The documents: none yet.")


def test_search_handles_fts_syntax_and_no_match(registry):
    for query in ('"unbalanced', "AND OR NOT", "wind* (turbine", "NEAR(a b)", "col:umn"):
        assert run(registry, "search_documents", query=query)["status"] == "ok"
    none = run(registry, "search_documents", query="volcano")
    assert none["content"] == "No document matches 'volcano' (4 documents searched). Try other words."
    assert run(registry, "search_documents", query="!!!")["content"].startswith("No document matches")


def test_document_index_from_mapping_and_errors(tmp_path):
    index = DocumentIndex.from_sources({"recipe": "Bake the bread for forty minutes.", "poem": "Roses are red."})
    assert len(index) == 2
    assert [h.title for h in index.search("bread")] == ["recipe"]
    with pytest.raises(FileNotFoundError, match="no file or directory"):
        DocumentIndex.from_sources([tmp_path / "missing"])


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("triangle_area", {"base": 6, "height": 4}, "12"),
        ("rectangle_area", {"width": 3, "height": 2.5}, "7.5"),
        ("circle_area", {"radius": 2}, "12.5663706144"),
        ("percent_of", {"percent": 15, "value": 80}, "12"),
        ("percentage_change", {"old": 80, "new": 100}, "25%"),
        ("percentage_change", {"old": 100, "new": 80}, "-20%"),
        ("percentage_change", {"old": -50, "new": -25}, "50%"),
        ("what_percent", {"part": 12, "whole": 80}, "15%"),
    ],
)
def test_geometry_and_percentages(registry, tool, args, expected):
    outcome = run(registry, tool, **args)
    assert outcome["status"] == "ok" and outcome["content"] == expected


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("circle_area", {"radius": -1}, "radius: Input should be greater than or equal to 0"),
        ("triangle_area", {"base": "wide", "height": 1}, "base: Input should be a valid number"),
        ("percentage_change", {"old": 0, "new": 5}, "percentage change from 0 is undefined"),
        ("what_percent", {"part": 1, "whole": 0}, "the whole must not be 0"),
        ("rectangle_area", {"width": 1e308, "height": 1e308}, "too large to represent"),
        ("percent_of", {"percent": "nan", "value": 1}, "percent: Input should be a finite number"),
    ],
)
def test_geometry_refusals(registry, tool, args, message):
    outcome = run(registry, tool, **args)
    assert outcome["error_kind"] == "invalid_parameters" and message in outcome["content"]


def test_builtin_schemas_are_what_the_model_sees(registry):
    text_schema = registry.get("text").parameters
    assert text_schema["operation"]["enum"] == ["length", "upper", "lower", "trim", "replace", "split", "count", "slice"]
    assert registry.get("circle_area").parameters["radius"]["minimum"] == 0
    assert json.loads(run(registry, "text", operation="split", text="x y")["content"]) == ["x", "y"]


def test_a_tool_that_fails_on_its_input_again_shows_how_to_write_it():
    from reactgraph import ReActAgent
    from reactgraph.testing import ScriptedChatModel, tool_call

    bad = tool_call("calculator", {"expression": "seventeen percent of 2340"})
    model = ScriptedChatModel(responses=[bad, bad, tool_call("calculator", {"expression": "17% of 2340"}), "397.8"])
    agent = ReActAgent(model=model, tools=ToolRegistry.with_builtins(["calculator"]), checkpointer=None, summary_every=0)
    result = agent.run("What is 17% of 2,340?")
    first, second, third = (step.observations[0].content for step in result.trace.steps[:3])
    assert "Write it like" not in first  # one failure: the error alone
    assert second.endswith('calculator failed on how its input was written again. Write it like this example: '
                           'calculator(expression="sqrt(16) + 2**3")')
    assert third == "397.8" and result.final_answer == "397.8"
