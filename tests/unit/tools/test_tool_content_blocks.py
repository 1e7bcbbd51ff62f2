"""A tool result made of LangChain / MCP content blocks becomes the text the model observes."""

from __future__ import annotations

import base64

import pytest
from langchain_core.messages import ToolMessage

from reactgraph.config import AgentConfig
from reactgraph.tools import ToolRegistry
from reactgraph.tools.content import to_text
from reactgraph.tools.execution import execute

PNG = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()  # 100 bytes


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ([{"type": "text", "text": "first"}, {"type": "text", "text": "second", "id": "lc_1"}], "first\nsecond"),
        (["plain", {"type": "text", "text": "block"}], "plain\nblock"),
        ([{"type": "text", "text": "chart:"}, {"type": "image", "base64": PNG, "mime_type": "image/png"}], "chart:\n[image: image/png, 100 bytes]"),
        ([{"type": "file", "url": "https://example.com/r.pdf", "mime_type": "application/pdf"}], "[file: application/pdf, https://example.com/r.pdf]"),
        ([{"type": "file", "file_id": "file-123"}], "[file: id file-123]"),
        ([{"type": "image", "url": "data:image/png;base64," + PNG}], "[image: image/png, 100 bytes]"),
        ([{"type": "audio", "source_type": "base64", "data": PNG, "mime_type": "audio/wav"}], "[audio: audio/wav, 100 bytes]"),
        ([{"type": "text-plain", "text": "notes.txt says hi", "mime_type": "text/plain"}], "notes.txt says hi"),
        (ToolMessage(content=[{"type": "text", "text": "wrapped"}], tool_call_id="c1"), "wrapped"),
    ],
)
def test_blocks_become_text(value, text):
    assert to_text(value) == text


@pytest.mark.parametrize(
    "value",
    [
        [{"type": "file", "path": "a.txt"}],  # a record that happens to have a "type", not a content block
        [{"type": "text", "text": "a"}, 3],
        [],
    ],
)
def test_other_lists_stay_json(value):
    assert to_text(value).startswith("[")


def test_a_tool_returning_blocks_is_observed_as_text():
    def report(topic: str) -> list:
        """A report with a figure."""
        return [{"type": "text", "text": f"{topic}: up 3%"}, {"type": "image", "base64": PNG, "mime_type": "image/png"}]

    outcome = execute({"id": "c", "index": 0, "tool": "report", "args": {"topic": "sales"}}, ToolRegistry([report]), AgentConfig())
    assert (outcome["status"], outcome["content"]) == ("ok", "sales: up 3%\n[image: image/png, 100 bytes]")
