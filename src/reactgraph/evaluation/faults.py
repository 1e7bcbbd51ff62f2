"""Fault injection: replace a registered tool by one that fails, transiently or for good."""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.tools import StructuredTool

from reactgraph.evaluation.suite import Fault
from reactgraph.tools.registry import ToolRegistry


class InjectedFault(RuntimeError):
    """A permanent failure injected by the evaluation (not retryable)."""


def inject_fault(registry: ToolRegistry, fault: Fault) -> dict[str, int]:
    """Wrap ``fault.tool`` in ``registry``; returns a live counter of its calls and failures.

    Transient faults raise ``ConnectionError("connection refused ...")`` (a retryable error) on
    the first ``fault.failures`` calls; permanent faults raise InjectedFault on every call.
    """
    entry = registry.get(fault.tool)
    if entry is None:
        raise ValueError(f"fault names tool {fault.tool!r}, which the task does not offer")
    counter = {"calls": 0, "failures": 0}
    lock = threading.Lock()
    inner = entry.tool

    def faulty(**kwargs: Any) -> Any:
        with lock:
            counter["calls"] += 1
            fail = fault.mode == "permanent" or counter["failures"] < fault.failures
            if fail:
                counter["failures"] += 1
        if fail and fault.mode == "permanent":
            raise InjectedFault(f"{fault.tool} backend is down (injected permanent fault)")
        if fail:
            raise ConnectionError(f"connection refused (injected transient fault {counter['failures']}/{fault.failures})")
        return inner.invoke(kwargs)

    wrapped = StructuredTool.from_function(
        func=faulty, name=inner.name, description=inner.description, args_schema=inner.args_schema
    )
    registry.register(fault.tool, wrapped, entry.metadata, policy=entry.policy, replace=True)
    return counter
