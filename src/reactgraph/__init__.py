"""reactgraph: a ReAct agent as a LangGraph state machine.

The public names are imported on first use (PEP 562), so that ``import reactgraph`` and the
``reactgraph`` command's help do not wait for LangGraph and LangChain to load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ imports them
    from reactgraph.agent import ChildUpdate, ReActAgent
    from reactgraph.answers.confidence import ConfidenceSignal
    from reactgraph.answers.result import (
        PendingApproval,
        ReActResult,
        ReActStep,
        ReActTrace,
        TerminationReason,
        Token,
        TokenUsage,
    )
    from reactgraph.answers.waiting import AnswerError
    from reactgraph.config import AgentConfig, ConfigError
    from reactgraph.errors import ErrorKind
    from reactgraph.graph import build_graph
    from reactgraph.graph.subagents import AgentTool
    from reactgraph.inputs import InvalidInputError
    from reactgraph.models.resolve import ModelUnavailableError
    from reactgraph.tools.approval import Approve, Edit, Reject
    from reactgraph.tools.base import ToolRegistrationError
    from reactgraph.tools.registry import ToolRegistry

_HOMES = {  # public name -> the module that defines it
    "AgentTool": "reactgraph.graph.subagents",
    "ChildUpdate": "reactgraph.agent",
    "AnswerError": "reactgraph.answers.waiting",
    "Approve": "reactgraph.tools.approval",
    "Edit": "reactgraph.tools.approval",
    "PendingApproval": "reactgraph.answers.result",
    "Reject": "reactgraph.tools.approval",
    "Token": "reactgraph.answers.result",
    "AgentConfig": "reactgraph.config",
    "ConfigError": "reactgraph.config",
    "ConfidenceSignal": "reactgraph.answers.confidence",
    "ErrorKind": "reactgraph.errors",
    "InvalidInputError": "reactgraph.inputs",
    "ModelUnavailableError": "reactgraph.models.resolve",
    "ReActAgent": "reactgraph.agent",
    "ReActResult": "reactgraph.answers.result",
    "ReActStep": "reactgraph.answers.result",
    "ReActTrace": "reactgraph.answers.result",
    "TerminationReason": "reactgraph.answers.result",
    "TokenUsage": "reactgraph.answers.result",
    "ToolRegistrationError": "reactgraph.tools.base",
    "ToolRegistry": "reactgraph.tools.registry",
    "build_graph": "reactgraph.graph",
}

__all__ = [
    "AgentConfig",
    "AgentTool",
    "AnswerError",
    "Approve",
    "ChildUpdate",
    "ConfidenceSignal",
    "ConfigError",
    "Edit",
    "ErrorKind",
    "InvalidInputError",
    "ModelUnavailableError",
    "PendingApproval",
    "ReActAgent",
    "ReActResult",
    "ReActStep",
    "ReActTrace",
    "Reject",
    "TerminationReason",
    "Token",
    "TokenUsage",
    "ToolRegistrationError",
    "ToolRegistry",
    "build_graph",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'reactgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
