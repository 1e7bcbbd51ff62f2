"""reactgraph: a ReAct agent as a LangGraph state machine."""

from reactgraph.agent import ReActAgent
from reactgraph.config import AgentConfig, ConfigError
from reactgraph.errors import ErrorKind
from reactgraph.graph import build_graph
from reactgraph.inputs import InvalidInputError
from reactgraph.models import ModelUnavailableError
from reactgraph.result import (
    ReActResult,
    ReActStep,
    ReActTrace,
    TerminationReason,
    Token,
    TokenUsage,
)
from reactgraph.tools.registry import ToolRegistrationError, ToolRegistry

__all__ = [
    "AgentConfig",
    "ConfigError",
    "InvalidInputError",
    "ErrorKind",
    "ModelUnavailableError",
    "ReActAgent",
    "ReActResult",
    "ReActStep",
    "ReActTrace",
    "TerminationReason",
    "Token",
    "TokenUsage",
    "ToolRegistrationError",
    "ToolRegistry",
    "build_graph",
]
