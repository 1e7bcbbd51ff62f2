"""The LangGraph state machine: ``_build`` compiles five nodes (``nodes/``, one private module each) and the
conditional edges (``_routing``) over the typed state; ``stops`` holds every stop rule, ``deps`` what the nodes share,
``_scratchpad`` the prompt a turn shows, ``subagents`` an agent run as a tool inside a run, ``_learning`` the
playbook within a run. The modules whose names start with ``_`` are the graph's own (docs/ARCHITECTURE.md)."""

from reactgraph.graph._build import Graph, NodeFactory, build_deps, build_graph

__all__ = ["Graph", "NodeFactory", "build_deps", "build_graph"]
