"""The real model the e2e tests run on."""

from __future__ import annotations

import os

import pytest

from reactgraph.models.resolve import ModelUnavailableError, check_ollama, default_model


@pytest.fixture(scope="session")
def model_name() -> str:
    """REACTGRAPH_E2E_MODEL, else the one a run given no model uses (``models.resolve.default_model``: the default
    when the endpoint has it, else a pulled model that calls tools); the test skips, saying why, without one."""
    try:
        if wanted := os.environ.get("REACTGRAPH_E2E_MODEL"):
            check_ollama(wanted)
            return wanted
        return default_model().removeprefix("ollama:")
    except ModelUnavailableError as exc:
        pytest.skip(f"no real model: {exc}")
