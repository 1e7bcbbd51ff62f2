"""reactgraph: a ReAct agent as a LangGraph state machine."""

from reactgraph.agent import ReActAgent
from reactgraph.config import AgentConfig, ConfigError
from reactgraph.graph import build_graph
from reactgraph.models import ModelUnavailableError
from reactgraph.result import (
    ReActResult,
    ReActStep,
    ReActTrace,
    TerminationReason,
    TokenUsage,
)
from reactgraph.tools.registry import ToolRegistrationError, ToolRegistry

__all__ = [
    "AgentConfig",
    "ConfigError",
    "ModelUnavailableError",
    "ReActAgent",
    "ReActResult",
    "ReActStep",
    "ReActTrace",
    "TerminationReason",
    "TokenUsage",
    "ToolRegistrationError",
    "ToolRegistry",
    "build_graph",
]
