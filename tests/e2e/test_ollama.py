"""A real model, end to end, through any Ollama-compatible endpoint at OLLAMA_HOST (Ollama itself,
or ``../shared/tools/ollama-shim.py`` in front of a local llama.cpp server). Run only when asked:
``REACTGRAPH_E2E=1 OLLAMA_HOST=http://127.0.0.1:11434 python -m pytest tests/e2e -q``.

The model is REACTGRAPH_E2E_MODEL, else the one a run given no model uses (``models.resolve.default_model``:
the default when the endpoint has it, else a pulled model that calls tools). Skips with the reason when
nothing answers at OLLAMA_HOST or it has no such model.
"""

from __future__ import annotations

import os

import pytest

from reactgraph import ReActAgent
from reactgraph.models.resolve import ModelUnavailableError, check_ollama, default_model

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def model_name() -> str:
    try:
        if wanted := os.environ.get("REACTGRAPH_E2E_MODEL"):
            check_ollama(wanted)
            return wanted
        return default_model().removeprefix("ollama:")
    except ModelUnavailableError as exc:
        pytest.skip(f"no real model: {exc}")


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
