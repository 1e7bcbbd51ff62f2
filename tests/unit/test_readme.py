"""The README's examples run as written (those that need no real model)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_testing_example_runs():
    blocks = python_blocks()
    tool_block = next(b for b in blocks if "def multiply" in b)
    testing_block = next(b for b in blocks if "ScriptedChatModel" in b)
    namespace: dict = {}
    exec(tool_block.split("agent = ")[0], namespace)  # the tool definition, without the Ollama run
    exec(testing_block, namespace)  # its asserts are the test
    assert namespace["result"].final_answer == "12 and 30"
