"""reactgraph: a ReAct agent as a LangGraph state machine.

The public names are imported on first use (PEP 562), so that ``import reactgraph`` and the
``reactgraph`` command's help do not wait for LangGraph and LangChain to load. The packages, and how a
question flows through them, are drawn in docs/ARCHITECTURE.md. Four modules the README once documented moved;
their old paths (``reactgraph.checkpoints``, ``confidence``, ``nodes``, ``workers``) are plain modules that re-export
the new ones with a DeprecationWarning, until reactgraph 0.2.0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reactgraph.lazy import lazy_exports

__version__ = "0.1.0"

if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ imports them
    from reactgraph.agent import ChildUpdate, ReActAgent, handoff_to
    from reactgraph.answers.confidence import ConfidenceSignal
    from reactgraph.answers.result import (
        ConversationTurn,
        PendingApproval,
        Progress,
        ReActResult,
        ReActStep,
        ReActTrace,
        Token,
        TokenUsage,
    )
    from reactgraph.answers.waiting import AnswerError, RunWaitingError
    from reactgraph.config import DEFAULT_REPLY_CHECKS, AgentConfig, ConfigError
    from reactgraph.errors import ErrorKind
    from reactgraph.graph import build_graph
    from reactgraph.graph.checks import Accept, Reply, Rewrite, SendBack, Stop
    from reactgraph.graph.middleware import MiddlewareError
    from reactgraph.graph.subagents import AgentTool, HandoffTool
    from reactgraph.models.resolve import ModelUnavailableError
    from reactgraph.persistence.base import CheckpointStoreError, RunNotFoundError, ThreadBusyError
    from reactgraph.persistence.reading import ForkError
    from reactgraph.state import InvalidInputError, TerminationReason
    from reactgraph.tools.approval import Approve, Edit, Reject
    from reactgraph.tools.base import ToolRegistrationError
    from reactgraph.tools.registry import ToolRegistry

_HOMES = {  # public name -> the module that defines it
    "Accept": "reactgraph.graph.checks",
    "DEFAULT_REPLY_CHECKS": "reactgraph.config",
    "Reply": "reactgraph.graph.checks",
    "Rewrite": "reactgraph.graph.checks",
    "SendBack": "reactgraph.graph.checks",
    "Stop": "reactgraph.graph.checks",
    "AgentConfig": "reactgraph.config",
    "AgentTool": "reactgraph.graph.subagents",
    "AnswerError": "reactgraph.answers.waiting",
    "Approve": "reactgraph.tools.approval",
    "CheckpointStoreError": "reactgraph.persistence.base",
    "ChildUpdate": "reactgraph.agent",
    "ConfidenceSignal": "reactgraph.answers.confidence",
    "ConfigError": "reactgraph.config",
    "ConversationTurn": "reactgraph.answers.result",
    "Edit": "reactgraph.tools.approval",
    "ErrorKind": "reactgraph.errors",
    "ForkError": "reactgraph.persistence.reading",
    "HandoffTool": "reactgraph.graph.subagents",
    "InvalidInputError": "reactgraph.state",
    "MiddlewareError": "reactgraph.graph.middleware",
    "ModelUnavailableError": "reactgraph.models.resolve",
    "PendingApproval": "reactgraph.answers.result",
    "Progress": "reactgraph.answers.result",
    "ReActAgent": "reactgraph.agent",
    "ReActResult": "reactgraph.answers.result",
    "ReActStep": "reactgraph.answers.result",
    "ReActTrace": "reactgraph.answers.result",
    "Reject": "reactgraph.tools.approval",
    "RunNotFoundError": "reactgraph.persistence.base",
    "RunWaitingError": "reactgraph.answers.waiting",
    "TerminationReason": "reactgraph.state",
    "ThreadBusyError": "reactgraph.persistence.base",
    "Token": "reactgraph.answers.result",
    "TokenUsage": "reactgraph.answers.result",
    "ToolRegistrationError": "reactgraph.tools.base",
    "ToolRegistry": "reactgraph.tools.registry",
    "build_graph": "reactgraph.graph",
    "handoff_to": "reactgraph.agent",
}

__all__ = [
    "DEFAULT_REPLY_CHECKS",
    "Accept",
    "AgentConfig",
    "AgentTool",
    "AnswerError",
    "Approve",
    "CheckpointStoreError",
    "ChildUpdate",
    "ConfidenceSignal",
    "ConfigError",
    "ConversationTurn",
    "Edit",
    "ErrorKind",
    "ForkError",
    "HandoffTool",
    "InvalidInputError",
    "MiddlewareError",
    "ModelUnavailableError",
    "PendingApproval",
    "Progress",
    "ReActAgent",
    "ReActResult",
    "ReActStep",
    "ReActTrace",
    "Reject",
    "Reply",
    "Rewrite",
    "RunNotFoundError",
    "RunWaitingError",
    "SendBack",
    "Stop",
    "TerminationReason",
    "ThreadBusyError",
    "Token",
    "TokenUsage",
    "ToolRegistrationError",
    "ToolRegistry",
    "build_graph",
    "handoff_to",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)

