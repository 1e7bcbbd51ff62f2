"""A tool's output is cut where the tool runs (max_tool_output_bytes, the cut marked): the state, the
trace, the cache and the checkpoint database keep only what the run needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from reactgraph import AgentConfig, ConfigError, ReActAgent
from reactgraph.config import make_config
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolPolicy, ToolRegistry
from reactgraph.tools.execution import execute

FIFTY_MB = 50 * 1024 * 1024


def database_bytes(db: Path) -> int:
    """The checkpoint file with its WAL and shared-memory files."""
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def dump_registry(*, cacheable: bool) -> ToolRegistry:
    def dump(part: int) -> str:
        """Dump one part of the archive."""
        return f"part {part}: " + "x" * (FIFTY_MB - 8)

    registry = ToolRegistry()
    registry.register(dump, policy=ToolPolicy(cacheable=cacheable))
    return registry


@pytest.mark.parametrize("cacheable", [False, True], ids=["plain", "cacheable"])
def test_two_50_mb_results_leave_a_small_database_and_the_model_sees_the_marked_cut(tmp_path, cacheable):
    db = tmp_path / "runs.sqlite"
    turns = [tool_call("dump", {"part": n}, thought="Dump the next part.") for n in (1, 2)]
    model = ScriptedChatModel(responses=[*turns, "Both parts are mostly x."])
    agent = ReActAgent(model, dump_registry(cacheable=cacheable), checkpointer=db, allow_clarification=False)
    result = agent.run("What is in parts 1 and 2 of the archive?")
    agent.close()
    assert [s.observations[0].status for s in result.trace.steps if s.observations] == ["ok", "ok"]
    size = database_bytes(db)
    print(f"\ncheckpoint database after two 50 MB tool results (cacheable={cacheable}): {size:,} bytes")
    assert size < 5_000_000
    seen = "\n".join(m.text for m in model.calls[-1]["messages"])
    assert "part 2: xxx" in seen and f"[cut: {FIFTY_MB:,} bytes, showing the first 24,576 and the last 8,192]" in seen


def test_the_cut_is_configurable_and_keeps_the_first_and_the_last_bytes():
    def build_log() -> str:
        """A long build log that ends with the error."""
        return "compiling...\n" * 5000 + "BUILD FAILED: missing symbol foo"

    registry = ToolRegistry([build_log])
    outcome = execute({"id": "c", "index": 0, "tool": "build_log", "args": {}}, registry, AgentConfig(max_tool_output_bytes=2048))
    head, tail = outcome["content"].split("\n…\n")
    tail, marker = tail.rsplit("\n", 1)
    assert head.startswith("compiling...") and len(head.encode()) == 1536
    assert tail.endswith("BUILD FAILED: missing symbol foo") and len(tail.encode()) == 512
    assert marker == "[cut: 65,032 bytes, showing the first 1,536 and the last 512]"


def test_a_cut_never_splits_a_character():
    def letters() -> str:
        """Many non-ASCII letters."""
        return "ä" * 10_000  # two bytes each

    registry = ToolRegistry([letters])
    outcome = execute({"id": "c", "index": 0, "tool": "letters", "args": {}}, registry, AgentConfig(max_tool_output_bytes=1025))
    head, gap, tail, marker = outcome["content"].split("\n")
    assert head == "ä" * 384 and tail == "ä" * 128 and gap == "…"  # 1025 * 3 // 4 = 768 and 1025 // 4 = 256 bytes
    assert marker == "[cut: 20,000 bytes, showing the first 768 and the last 256]"


def test_a_huge_error_message_is_cut_too():
    def explode() -> str:
        """Fails loudly."""
        raise ValueError("y" * FIFTY_MB)

    outcome = execute({"id": "c", "index": 0, "tool": "explode", "args": {}}, ToolRegistry([explode]), AgentConfig())
    assert outcome["error_kind"] == "execution_failed"
    assert len(outcome["content"]) < 33_000 and "[cut: " in outcome["content"]
    assert all(len(f) < 33_000 for f in outcome["failures"])


def test_max_tool_output_bytes_is_validated():
    assert AgentConfig().max_tool_output_bytes == 32_768
    with pytest.raises(ConfigError, match="max_tool_output_bytes"):
        make_config(max_tool_output_bytes=100)
