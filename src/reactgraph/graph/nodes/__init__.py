"""The five nodes of the graph, one per module, and ``hook`` (a LangChain middleware hook as a node). Each ``make_*``
binds a node to the agent's NodeDeps; ``outcome_of`` reads the outcome of a tool call from the ToolMessage act wrote
(what ``stream_updates`` yields of act)."""

from reactgraph.graph.nodes._act import make_act, outcome_of
from reactgraph.graph.nodes._hook import make_hook
from reactgraph.graph.nodes._observe import make_observe
from reactgraph.graph.nodes._summarize import make_summarize
from reactgraph.graph.nodes._terminate import make_terminate
from reactgraph.graph.nodes._think import make_think

__all__ = ["make_act", "make_hook", "make_observe", "make_summarize", "make_terminate", "make_think", "outcome_of"]
