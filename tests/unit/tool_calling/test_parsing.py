"""Reading replies in the native and text formats on a corpus of malformed and unusual outputs,
plus what think makes of them."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from reactgraph.config import AgentConfig
from reactgraph.graph.checks import judged, read_reply, resolved_checks, update_of
from reactgraph.testing import tool_call
from reactgraph.tool_calling import FORMATS, PARSE_FAILURE_KINDS, Tags, parse_failed
from reactgraph.tools import ToolRegistry
from reactgraph.tools.specs import tool_specs

from .parsing_corpus import CASES, TOOLS

SPECS = tool_specs(TOOLS)


def parse_reply(message, text_mode=False, tags=Tags(), specs=SPECS):
    """The reply read in the text format (``text_mode``) or the native one."""
    fmt = FORMATS["text" if text_mode else "native"]
    return fmt.read(message, fmt.context(specs, tags))


def test_corpus_is_large_enough():
    malformed = [c for c in CASES if c[3][0] == "error"]
    print(f"\nparsing corpus: {len(CASES)} outputs, {len(malformed)} malformed")
    assert len(CASES) >= 40 and len(malformed) >= 10


@pytest.mark.parametrize(("name", "reply", "text_mode", "expected"), CASES, ids=[c[0] for c in CASES])
def test_corpus_output(name, reply, text_mode, expected):
    message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
    parsed = parse_reply(message, text_mode)
    kind, value = expected
    if kind == "call":
        assert parsed.answer is None
        assert [(a["tool"], a["args"]) for a in parsed.actions] == value
        assert not any("rejection" in a for a in parsed.actions)
        assert [a["index"] for a in parsed.actions] == list(range(len(value)))
    elif kind == "answer":
        assert parsed.actions == [] and parsed.answer == value
    else:
        assert parsed.answer is None and len(parsed.actions) == 1
        rejected = parsed.actions[0]
        assert rejected["rejection_kind"] == value
        if value == "tool_not_found":  # a tool that is not offered keeps the name the model gave, as its error says
            assert rejected["tool"] and f"there is no tool {rejected['tool']!r}" in rejected["rejection"]
        else:
            assert rejected["tool"] == ("search" if isinstance(reply, AIMessage) else "")
        assert parse_failed(parsed.actions)
        # the error observation names its kind (the prompt adds the expected format after it)
        assert rejected["rejection"].startswith(f"Error ({value}): ")


def test_every_output_becomes_a_state_update_never_an_exception():
    """decide() turns each parsed output into a stop or actions; an empty reply is an error observation."""
    cfg = AgentConfig()
    for name, reply, text_mode, expected in CASES:
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        update = decide(parse_reply(message, text_mode), cfg)
        if expected[0] == "answer" and expected[1]:
            assert update["termination"]["reason"] == "success" and update["final_answer"] == expected[1], name
        elif expected[0] in ("error",) or expected == ("answer", ""):
            assert parse_failed(update["pending_actions"]), name


def test_tags_are_configurable():
    tags = Tags(thought="Reasoning", action="Tool", observation="Result", final_answer="Answer")
    parsed = parse_reply(AIMessage(content="Reasoning: look it up\nTool: search[Paris]\nResult: invented"), True, tags)
    assert [(a["tool"], a["args"]) for a in parsed.actions] == [("search", {"query": "Paris"})]
    assert parsed.thought == "look it up"
    assert parse_reply(AIMessage(content="Reasoning: known\nAnswer: 42"), True, tags).answer == "42"
    # the default tags are plain text under other tags
    assert parse_reply(AIMessage(content="Action: search[Paris]"), True, tags).answer == "Action: search[Paris]"


def test_without_known_tools_any_name_is_accepted():
    parsed = parse_reply(AIMessage(content='{"name": "anything", "arguments": {"x": 1}}'), specs=())
    assert [(a["tool"], a["args"]) for a in parsed.actions] == [("anything", {"x": 1})]


def test_parse_failure_kinds_exclude_policy_rejections():
    assert "missing_thought" not in PARSE_FAILURE_KINDS and "disabled" not in PARSE_FAILURE_KINDS
    assert not parse_failed([{"id": "1", "tool": "x", "args": {}, "rejection_kind": "disabled", "rejection": "off"}])
    assert not parse_failed([])


def test_an_unknown_tool_among_calls_on_one_line_is_rejected_and_the_others_run():
    parsed = parse_reply(AIMessage(content="Thought: t\nAction: search[x], nosuch[y]"), True)
    first, second = parsed.actions
    assert (first["tool"], first["args"]) == ("search", {"query": "x"})
    assert (second["tool"], second["args"]) == ("nosuch", {"input": "y"}) and second["rejection_kind"] == "tool_not_found"
    assert not parse_failed(parsed.actions)


def test_a_call_that_names_a_tools_option_as_the_tool_is_that_tools_call():
    """Qwen2.5-Coder-1.5B wrote count(operation="count", ...) for the built-in text tool, then, told so, measured the
    word's length instead: the suite's text-count answered 11 for the s in 'mississippi'."""
    registry = ToolRegistry.with_builtins(["text", "calculator"])
    specs = tool_specs(registry[name].tool for name in ("text", "calculator"))
    args = {"operation": "count", "text": "mississippi", "substring": "s"}
    written = AIMessage(content='{"name": "count", "arguments": {"text": "mississippi", "substring": "s"}}')
    for message, text_mode in ((written, True), (tool_call("count", args), False)):
        (action,) = parse_reply(message, text_mode, specs=specs).actions
        assert (action["tool"], action["args"]) == ("text", args) and "rejection" not in action
    for other in ({"operation": "length", "text": "mississippi"}, {"text": "mississippi", "letter": "s"}):
        (action,) = parse_reply(tool_call("count", other), specs=specs).actions
        assert action["tool"] == "count" and action["args"] == other  # another reading is possible: act says no such tool


def decide(parsed, cfg, tools=()):
    """The turn's update for a parsed reply at the first iteration of a run: read, checked by the default checks."""
    reply = read_reply(parsed, cfg, iteration=1, tools=tools)
    return update_of(judged(reply, {}, cfg, resolved_checks(cfg.reply_checks)), {}, cfg)
