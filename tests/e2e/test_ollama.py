"""A real Ollama model, end to end: native tool calls and the text format.

Runs when Ollama answers at OLLAMA_HOST (default http://localhost:11434) and has the model
(REACTGRAPH_E2E_MODEL, default qwen2.5:7b) pulled; skips with the reason otherwise.
"""

from __future__ import annotations

import os

import pytest

from reactgraph import ReActAgent
from reactgraph.models import ModelUnavailableError, check_ollama

MODEL = os.environ.get("REACTGRAPH_E2E_MODEL", "qwen2.5:7b")

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


@pytest.fixture(scope="module", autouse=True)
def ollama_model():
    try:
        check_ollama(MODEL)
    except ModelUnavailableError as exc:
        pytest.skip(f"no real model: {exc}")


calls: list[tuple[int, int]] = []


def multiply(a: int, b: int) -> int:
    """Multiply two integers exactly."""
    calls.append((a, b))
    return a * b


@pytest.mark.parametrize("tool_calling", ["native", "text"])
def test_real_model_uses_a_tool_and_answers(tool_calling):
    calls.clear()
    agent = ReActAgent(f"ollama:{MODEL}", [multiply], checkpointer=None, allow_clarification=False, max_iterations=5)
    result = agent.run("What is 1234 times 5678? Use the multiply tool, then give the number.", tool_calling=tool_calling)
    assert result.termination_reason.value == "success", result.termination_detail
    assert (1234, 5678) in calls
    assert "7006652" in result.final_answer.replace(",", "").replace(" ", "")
