"""A real model, end to end, through any Ollama-compatible endpoint at OLLAMA_HOST (Ollama itself,
or ``../shared/tools/ollama-shim.py`` in front of a local llama.cpp server). Run only when asked:
``REACTGRAPH_E2E=1 OLLAMA_HOST=http://127.0.0.1:11434 python -m pytest tests/e2e -q``.

The model is REACTGRAPH_E2E_MODEL, else the one a run given no model uses (the ``model_name`` fixture of
conftest.py). Skips with the reason when nothing answers at OLLAMA_HOST or it has no such model.
"""

from __future__ import annotations

import pytest

from reactgraph import ReActAgent

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


calls: list[tuple[int, int]] = []


def multiply(a: int, b: int) -> int:
    """Multiply two integers exactly."""
    calls.append((a, b))
    return a * b


@pytest.mark.parametrize("tool_calling", ["auto", "native", "text"])
def test_real_model_uses_a_tool_and_answers(model_name, tool_calling):
    calls.clear()
    agent = ReActAgent(f"ollama:{model_name}", [multiply], checkpointer=None, allow_clarification=False, max_iterations=5)
    result = agent.run("What is 1234 times 5678? Use the multiply tool, then give the number.", tool_calling=tool_calling)
    assert result.termination_reason.value == "success", result.termination_detail
    assert (1234, 5678) in calls
    assert "7006652" in result.final_answer.replace(",", "").replace(" ", "")
    formats = [step.format for step in result.trace.steps]
    if tool_calling != "auto":
        assert set(formats) == {tool_calling}
    elif result.trace.steps[0].written:  # the first call was written as text: text from then on
        assert formats == ["native"] + ["text"] * (len(formats) - 1)
    else:
        assert set(formats) == {"native"}
