"""reactgraph: a ReAct agent as a LangGraph state machine.

The public names are imported on first use (PEP 562), so that ``import reactgraph`` and the
``reactgraph`` command's help do not wait for LangGraph and LangChain to load. The packages, and how a
question flows through them, are drawn in docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

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


# Modules that moved when the package was laid out by idea: importable by their old names for one more
# release, with a DeprecationWarning; an old module's names are read from its new homes, in order.
MOVED = {
    "reactgraph.checkpoints": ("reactgraph.persistence.base", "reactgraph.persistence.reading", "reactgraph.persistence.sqlite"),
    "reactgraph.confidence": ("reactgraph.answers.confidence",),
    "reactgraph.formats": ("reactgraph.tool_calling",),
    "reactgraph.inputs": ("reactgraph.state",),
    "reactgraph.model_calls": ("reactgraph.models.calls",),
    "reactgraph.nodes": ("reactgraph.graph.nodes",),
    "reactgraph.result": ("reactgraph.answers.result",),
    "reactgraph.stores": ("reactgraph.persistence", "reactgraph.persistence.sqlite"),
    "reactgraph.subagents": ("reactgraph.graph.subagents",),
    "reactgraph.tokens": ("reactgraph.models.tokens",),
    "reactgraph.typed_output": ("reactgraph.answers.typed",),
    "reactgraph.waiting": ("reactgraph.answers.waiting",),
    "reactgraph.workers": ("reactgraph.queue",),
}


class _MovedModules:
    """The finder and loader of the old names of MOVED modules (after every other finder): a module that reads its
    attributes from the new homes. (Not importlib.abc's classes: importing those costs ``import reactgraph`` 20 ms.)"""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        return ModuleSpec(name, self) if name in MOVED else None

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        homes = MOVED[module.__name__]
        warnings.warn(
            f"{module.__name__} is now {' and '.join(homes)}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )

        def moved_attribute(name: str) -> Any:
            for home in homes:
                found = importlib.import_module(home)
                if hasattr(found, name):
                    return getattr(found, name)
            raise AttributeError(f"module {module.__name__!r} (now {' and '.join(homes)}) has no attribute {name!r}")

        module.__getattr__ = moved_attribute  # type: ignore[method-assign]


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())
