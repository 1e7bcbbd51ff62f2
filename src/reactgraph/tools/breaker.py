"""The circuit breaker: a tool that failed ``max_tool_failures`` times in a run is taken out of it.

observe counts failures per tool (``count_failure``); think offers only tools that are not
``disabled_tools`` and refuses calls to disabled ones (``refused``). The counts
live in the state (``state.tool_stats``: on observe's steps), so the breaker survives a crash and resume.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.state import Action, Outcome, runs

BREAKER_KINDS = frozenset({ErrorKind.EXECUTION_FAILED, ErrorKind.NETWORK_ERROR, ErrorKind.TIMEOUT, ErrorKind.RESOURCE_LIMIT})
"""Error kinds that are the tool's fault (bad arguments or unknown names are the model's)."""


def count_failure(failures: dict[str, int], outcome: Outcome, cfg: AgentConfig) -> str | None:
    """Count a failed outcome in ``failures`` (in place); the note for the model when this trips the breaker."""
    if outcome.get("error_kind") not in BREAKER_KINDS:
        return None
    tool = outcome["tool"]
    failures[tool] = failures.get(tool, 0) + 1
    if failures[tool] != cfg.tool_execution.max_tool_failures:
        return None
    return (
        f"{tool} has now failed {cfg.tool_execution.max_tool_failures} times and is disabled for the rest of this run: "
        "do not call it again. Use another tool or answer from what you have."
    )


def disabled_tools(failures: Mapping[str, int] | None, cfg: AgentConfig) -> set[str]:
    """Tools whose failures in this run reached ``max_tool_failures``."""
    return {tool for tool, n in (failures or {}).items() if n >= cfg.tool_execution.max_tool_failures}


def disabled_message(tool: str, cfg: AgentConfig) -> str:
    """The observation for a call to a disabled tool."""
    return error_text(ErrorKind.DISABLED, tool=tool, failures=cfg.tool_execution.max_tool_failures)


def refused(actions: Sequence[Action], disabled: set[str], cfg: AgentConfig) -> list[Action]:
    """``actions``, each call of a disabled tool refused with ``disabled_message`` (a model may still name one)."""
    return [
        {**a, "rejection_kind": ErrorKind.DISABLED.value, "rejection": disabled_message(a["tool"], cfg)}
        if runs(a) and a.get("tool") in disabled
        else a
        for a in actions
    ]
