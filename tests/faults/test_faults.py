"""Runs every fault-injection case (see ``tests/faults/__init__.py``)."""

from __future__ import annotations

import pytest

from tests.faults import Case, all_cases


@pytest.mark.parametrize("case", all_cases(), ids=lambda case: case.id)
def test_fault_is_survived_without_loss(case: Case, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    case.run()
