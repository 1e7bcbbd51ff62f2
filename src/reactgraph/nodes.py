"""Deprecated: ``reactgraph.nodes`` is now ``reactgraph.graph.nodes``. Re-exported here, with a DeprecationWarning,
until reactgraph 0.2.0."""

from warnings import warn

from reactgraph.graph.nodes import make_act, make_observe, make_summarize, make_terminate, make_think

__all__ = ["make_act", "make_observe", "make_summarize", "make_terminate", "make_think"]

warn(
    "Importing from reactgraph.nodes is deprecated and stops working in reactgraph 0.2.0: import from "
    "reactgraph.graph.nodes instead.",
    DeprecationWarning,
    stacklevel=2,
)
