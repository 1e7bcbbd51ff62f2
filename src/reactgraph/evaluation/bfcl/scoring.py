"""A run's calls judged as BFCL judges them: with BFCL's own AST checker (imported, not rewritten) on the
functions and ground truth of the entry; in the irrelevance categories the right behaviour is no call at all. A
multi-turn run's call strings, per turn, are judged by BFCL's multi-turn checker, which runs them again on fresh
instances beside the ground truth's and compares the states and results after each turn; a run with fewer turns
than the entry (the step limit ended it) is wrong, as BFCL's runner has it (``multi_turn:force_terminated``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.multi_turn import forget, fresh_name
from reactgraph.evaluation.bfcl.package import MODEL_NAME, ast_checker, multi_turn_checker, python_language


@dataclass(frozen=True)
class Verdict:
    """Whether the calls are right, and BFCL's error type and message when they are not."""

    valid: bool
    error_type: str = ""
    error: str = ""


def score(entry: Entry, calls: list[Any]) -> Verdict:
    """``calls`` (``{"name": BFCL's function name, "args": {...}}``, the arguments as the model wrote them; for a
    multi-turn entry the call strings executed in each turn) judged for ``entry``."""
    if entry.multi_turn:
        return _multi_turn(entry, calls)
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


def _multi_turn(entry: Entry, turns: list[list[str]]) -> Verdict:
    truth = entry.ground_truth or []
    if len(turns) != len(truth):
        return Verdict(False, "multi_turn:force_terminated", f"{len(turns)} of the entry's {len(truth)} turns ran")
    name = fresh_name("score")  # BFCL caches instances by model name and entry id: a name of its own each time
    test_entry = {"id": entry.id, "initial_config": copy.deepcopy(entry.initial_config), "involved_classes": list(entry.involved_classes)}
    try:
        result = multi_turn_checker()(
            [[list(calls)] if calls else [] for calls in turns], copy.deepcopy(truth), test_entry, entry.category, name
        )
    except Exception as exc:  # noqa: BLE001 — the checker's own assertions: said why, scored wrong
        return Verdict(False, "checker_error", f"{type(exc).__name__}: {exc}")
    finally:
        forget(name)
    if result["valid"]:
        return Verdict(True)
    return Verdict(False, str(result.get("error_type", "")), _text(result.get("error_message")))


def _text(error: Any) -> str:
    if isinstance(error, list):
        return "; ".join(map(str, error))[:500]
    return str(error)[:500]
