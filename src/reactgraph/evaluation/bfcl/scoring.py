"""A run's calls judged as BFCL judges them: with BFCL's own AST checker (imported, not rewritten) on the
functions and ground truth of the entry; in the irrelevance categories the right behaviour is no call at all."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.package import MODEL_NAME, ast_checker, python_language


@dataclass(frozen=True)
class Verdict:
    """Whether the calls are right, and BFCL's error type and message when they are not."""

    valid: bool
    error_type: str = ""
    error: str = ""


def score(entry: Entry, calls: list[dict[str, Any]]) -> Verdict:
    """``calls`` (``{"name": BFCL's function name, "args": {...}}``, the arguments as the model wrote them) judged
    for ``entry``."""
    if entry.irrelevance:
        if not calls:
            return Verdict(True)
        return Verdict(False, "irrelevance_error:called", f"called {', '.join(c['name'] for c in calls)} where no function fits")
    if not calls:
        return Verdict(False, "no_call", "no function was called")
    output = [{call["name"]: copy.deepcopy(call["args"])} for call in calls]
    try:
        result = ast_checker()(
            copy.deepcopy(list(entry.functions)), output, copy.deepcopy(entry.ground_truth), python_language(), entry.category, MODEL_NAME
        )
    except Exception as exc:  # noqa: BLE001 — an output the checker cannot take (a value of no JSON type) is wrong, said why
        return Verdict(False, "checker_error", f"{type(exc).__name__}: {exc}")
    if result["valid"]:
        return Verdict(True)
    return Verdict(False, str(result.get("error_type", "")), _text(result.get("error")))


def _text(error: Any) -> str:
    if isinstance(error, list):
        return "; ".join(map(str, error))[:500]
    return str(error)[:500]
