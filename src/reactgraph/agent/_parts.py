"""What a ReActAgent is made of (its constructor builds them, ``reactgraph.agent._agent``), and the properties
that read them: the parts every one of its jobs (running, resuming, inspecting) works on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from pydantic import BaseModel

from reactgraph.config import AgentConfig
from reactgraph.graph import Graph, NodeFactory
from reactgraph.graph.deps import NodeDeps
from reactgraph.persistence.base import RunStore
from reactgraph.playbook import Playbook
from reactgraph.tools.registry import ToolRegistry


class AgentParts:
    """The agent's nodes' deps (its config, model, tools), the store its runs live in and its saver, the compiled
    graph, the playbook, and what it remembers between runs (the models checked, the last thread)."""

    _deps: NodeDeps
    store: RunStore
    checkpointer: Any
    nodes: dict[str, NodeFactory]
    playbook: Playbook | None
    graph: Graph
    _checked_models: set[str]
    _picked_model: str | None
    _last_thread: str | None

    @property
    def config(self) -> AgentConfig:
        return self._deps.config

    @property
    def registry(self) -> ToolRegistry:
        return self._deps.registry

    @property
    def middleware(self) -> tuple[AgentMiddleware, ...]:
        """The LangChain middleware the agent runs (``reactgraph.graph.middleware``)."""
        return self._deps.middleware

    @property
    def output_schema(self) -> type[BaseModel] | None:
        """The final answer's type (a signature string's model), or None."""
        return self._deps.output_schema

    @property
    def db_path(self) -> Path | None:
        """The SQLite file the runs are stored in (None for Postgres, in memory or a saver of another kind)."""
        return self.store.db_path

