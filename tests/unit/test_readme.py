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


def test_typed_answers_example_gives_the_same_output_for_its_model_and_its_signature():
    from reactgraph import ReActAgent
    from reactgraph.testing import ScriptedChatModel

    block = next(b for b in python_blocks() if "output_schema=Distance" in b)
    namespace: dict = {}
    exec(block.split("agent = ")[0], namespace)  # the answer's model, without the Ollama run
    signature = re.search(r'output_schema="([^"]+)"', block).group(1)
    outputs = []
    for schema in (namespace["Distance"], signature):
        model = ScriptedChatModel(responses=['{"value": 100, "unit": "m"}'])
        outputs.append(ReActAgent(model=model, output_schema=schema, checkpointer=None).run("How far?").output)
    assert isinstance(outputs[0], namespace["Distance"])
    assert outputs[0].model_dump() == outputs[1].model_dump() == {"value": 100.0, "unit": "m"}
