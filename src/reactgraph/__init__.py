"""reactgraph: a ReAct agent as a LangGraph state machine."""

from reactgraph.agent import ReActAgent
from reactgraph.config import AgentConfig, ConfigError
from reactgraph.errors import ErrorKind
from reactgraph.graph import build_graph
from reactgraph.inputs import InvalidInputError
from reactgraph.models import ModelUnavailableError
from reactgraph.result import (
    PendingApproval,
    ReActResult,
    ReActStep,
    ReActTrace,
    TerminationReason,
    Token,
    TokenUsage,
)
from reactgraph.tools.approval import Approve, Edit, Reject
from reactgraph.tools.registry import ToolRegistrationError, ToolRegistry
from reactgraph.waiting import AnswerError

__all__ = [
    "AgentConfig",
    "AnswerError",
    "Approve",
    "ConfigError",
    "InvalidInputError",
    "Edit",
    "ErrorKind",
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
