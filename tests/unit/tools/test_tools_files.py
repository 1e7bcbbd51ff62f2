"""files: read_file, list_directory and grep_search stay inside their root, whatever the path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactgraph import AgentConfig, ReActAgent
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import InvalidArguments, ToolRegistry
from reactgraph.tools.builtin.files import make_file_tools
from reactgraph.tools.execution import execute

SECRET = "TOP-SECRET-CONTENT"


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """base/secret.txt and base/private/ outside; base/root/ with files, a sub-directory and links out."""
    base = tmp_path_factory.mktemp("files")
    (base / "secret.txt").write_text(SECRET)
    (base / "private").mkdir()
    (base / "private" / "key.txt").write_text(SECRET)
    root = base / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("alpha line\nbeta line\nGamma Line\n")
    (root / "docs" / "guide.md").write_text("# Guide\nInstall with pip.\nThen run it.\n")
    (root / "data.bin").write_bytes(b"\x00\x01binary alpha")
    os.symlink(base / "secret.txt", root / "leak.txt")
    os.symlink(base / "private", root / "escape")
    os.symlink(root / "notes.txt", root / "docs" / "notes-link.txt")  # a link that stays inside
    return root


@pytest.fixture(scope="module")
def tools(tree):
    read_file, list_directory, grep_search = make_file_tools(tree)
    return read_file, list_directory, grep_search


def test_read_file_returns_lines_with_a_header(tools):
    read_file = tools[0]
    assert read_file("notes.txt") == "notes.txt (lines 1-3 of 3)\nalpha line\nbeta line\nGamma Line"
    assert read_file("docs/guide.md", start_line=2, max_lines=1) == "docs/guide.md (lines 2-2 of 3)\nInstall with pip."
    assert read_file("docs\\guide.md").startswith("docs/guide.md (lines 1-3")  # backslashes read as a Windows path
    assert read_file("notes.txt", max_lines=10**6).startswith("notes.txt (lines 1-3 of 3)")  # over the cap: the cap
    assert read_file("docs/../notes.txt").startswith("notes.txt (lines 1-3")  # '..' that stays inside is fine
    assert read_file("docs/notes-link.txt").startswith("notes.txt")  # a link inside the root is followed


def test_list_directory_shows_dirs_sizes_and_links_out(tools):
    listing = tools[1](".")
    assert listing.splitlines() == [
        "./",
        "data.bin (14 bytes)",
        "docs/",
        "escape (link outside the root or in a loop, not accessible)",
        "leak.txt (link outside the root or in a loop, not accessible)",
        "notes.txt (32 bytes)",
    ]
    assert tools[1]("docs").splitlines() == ["docs/", "guide.md (39 bytes)", "notes-link.txt (32 bytes)"]
    assert tools[1]("/") == listing  # "/" alone is the root, as a model may call it


def test_grep_search_finds_literal_text_in_text_files_only(tools):
    grep = tools[2]
    assert grep("alpha").splitlines() == ["notes.txt:1: alpha line", "docs/notes-link.txt:1: alpha line"]
    assert grep("gamma", ignore_case=False) == "No line contains 'gamma' under .."
    assert grep("Gamma", path="notes.txt", ignore_case=False) == "notes.txt:3: Gamma Line"
    assert grep("line", path="notes.txt", max_results=2).splitlines() == [
        "notes.txt:1: alpha line",
        "notes.txt:2: beta line",
        "(stopped at 2 results)",
    ]
    assert grep("a", max_results=10_000) == grep("a", max_results=500)  # more than the cap asked for: the cap, no error
    assert SECRET not in grep("SECRET")  # the links out are not followed
    assert grep("a.*line") == "No line contains 'a.*line' under .."  # literal, not a regex


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../secret.txt", "outside the root directory"),
        ("docs/../../secret.txt", "outside the root directory"),
        ("/etc/passwd", "absolute path"),
        ("leak.txt", "outside the root directory"),
        ("escape/key.txt", "outside the root directory"),
        ("escape", "outside the root directory"),
        ("nul\x00byte", "without NUL"),
        ("missing.txt", "is not a file"),
        ("docs", "is not a file"),
        ("data.bin", "is binary"),
    ],
)
def test_read_file_refusals(tools, path, message):
    with pytest.raises(InvalidArguments, match=message):
        tools[0](path)


def test_a_missing_file_error_shows_what_the_closest_folder_holds(tools):
    with pytest.raises(InvalidArguments) as missing:
        tools[0]("docs/gide.md")
    assert str(missing.value) == "'docs/gide.md' is not a file; docs/ holds: guide.md, notes-link.txt"
    with pytest.raises(InvalidArguments) as deep:
        tools[0]("nowhere/at/all.txt")
    listing = str(deep.value).split("; ", 1)[1]
    assert listing.startswith("./ holds: ") and "docs/" in listing and "notes.txt" in listing
    assert "leak.txt" not in listing and "escape" not in listing  # links out of the root are not shown


def test_a_symlink_loop_is_listed_as_inaccessible_and_breaks_no_tool(tmp_path):
    (tmp_path / "a.txt").write_text("needle\n")
    os.symlink(tmp_path / "loop", tmp_path / "loop")  # a link to itself
    read_file, list_directory, grep_search = make_file_tools(tmp_path)
    with pytest.raises(InvalidArguments, match=r"'missing.txt' is not a file; ./ holds: a.txt$"):
        read_file("missing.txt")
    assert "loop (link outside the root or in a loop, not accessible)" in list_directory(".")
    assert grep_search("needle") == "a.txt:1: needle"


@pytest.mark.parametrize("path", ["..", "../private", "/etc", "escape", "leak.txt"])
def test_listing_and_grep_outside_are_refused(tools, path):
    with pytest.raises(InvalidArguments):
        tools[1](path)
    with pytest.raises(InvalidArguments):
        tools[2]("SECRET", path=path)


def test_a_root_that_is_not_a_directory_is_a_clear_error(tmp_path):
    with pytest.raises(NotADirectoryError, match="is not a directory"):
        make_file_tools(tmp_path / "nowhere")


SEGMENTS = st.sampled_from(
    ["..", ".", "", "docs", "notes.txt", "leak.txt", "escape", "key.txt", "secret.txt", "private", "root",
     "~", "%2e%2e", "..\\..", "\x00", " ", "data.bin", "guide.md", "notes-link.txt", "...", "//"]
)
HOSTILE_PATHS = st.one_of(
    st.lists(SEGMENTS, max_size=8).map("/".join),
    st.lists(SEGMENTS, max_size=8).map(lambda parts: "/" + "/".join(parts)),
    st.text(max_size=60),
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=HOSTILE_PATHS)
def test_no_path_escapes_the_root(tools, path):
    read_file, list_directory, grep_search = tools
    for call in (lambda: read_file(path), lambda: list_directory(path), lambda: grep_search("SECRET", path=path)):
        try:
            out = call()
        except InvalidArguments as exc:
            assert str(exc)
            continue
        assert SECRET not in out


INVALID_PATHS = [
    "n" * 300,  # one name longer than the file system allows
    "a/" * 3000,  # a path longer than the file system allows
    "docs/" + "g" * 256 + ".md",
    "bad\udc80name.txt",  # not encodable as a file name
]


@pytest.mark.parametrize("path", INVALID_PATHS, ids=["long-name", "long-path", "long-name-in-dir", "surrogate"])
def test_an_invalid_path_is_invalid_parameters_without_the_root(tree, path):
    registry = ToolRegistry.with_builtins(["read_file", "list_directory", "grep_search"], root=tree)
    for tool, args in (("read_file", {"path": path}), ("list_directory", {"path": path}), ("grep_search", {"text": "a", "path": path})):
        outcome = execute({"id": "c", "index": 0, "tool": tool, "args": args}, registry, AgentConfig())
        assert outcome["error_kind"] == "invalid_parameters", outcome["content"]
        assert str(tree) not in outcome["content"] and str(tree.parent) not in outcome["content"]
        assert len(outcome["content"]) < 600  # the path is shown shortened, not 6,000 characters of it


def test_invalid_paths_do_not_trip_the_breaker(tree):
    # each made again: a path nothing gave is held back once (unfounded_call), then runs
    bad = [tool_call("read_file", {"path": "n" * (300 + i)}, thought="Read it.") for i in range(3) for _ in range(2)]
    good = tool_call("read_file", {"path": "notes.txt"}, thought="Read the notes.")
    model = ScriptedChatModel(responses=[*bad, good, "alpha, beta, Gamma"])
    registry = ToolRegistry.with_builtins(["read_file"], root=tree)
    agent = ReActAgent(model, registry, checkpointer=None, allow_clarification=False, summary_every=0)
    result = agent.run("What do the notes say?")
    kinds = [s.observations[0].error_kind for s in result.trace.steps if s.observations]
    assert kinds == ["unfounded_call", "invalid_parameters"] * 3 + [None]
    assert result.trace.steps[6].observations[0].content.startswith("notes.txt (lines 1-3 of 3)")
