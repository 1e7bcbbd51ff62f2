"""ReActAgent, the Python API around the compiled graph: one class, its jobs in this package's private modules
(``_agent`` builds it; ``_running``, ``_resuming``, ``_inspecting``, ``_streaming`` on ``_driving`` and
``_preparing``). ``ChildUpdate`` is what ``stream_updates`` yields of a sub-agent's run; ``handoff_to`` makes another
agent a handoff tool."""

from reactgraph.agent._agent import ReActAgent, handoff_to
from reactgraph.agent._streaming import ChildUpdate

__all__ = ["ChildUpdate", "ReActAgent", "handoff_to"]
