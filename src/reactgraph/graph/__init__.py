"""The LangGraph state machine: ``build`` compiles five nodes (``nodes/``, one module each) and the conditional
edges (``routing``) over the typed state; ``stops`` holds every stop rule, ``deps`` what the nodes share,
``scratchpad`` the prompt a turn shows, ``subagents`` an agent run as a tool inside a run, ``learning`` the
playbook within a run."""

from reactgraph.graph.build import NodeFactory, build_deps, build_graph

__all__ = ["NodeFactory", "build_deps", "build_graph"]
