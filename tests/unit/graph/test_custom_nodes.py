"""build_graph(..., nodes=...) and ReActAgent(..., nodes=...): a node swapped by a factory that takes
the same NodeDeps as the built-in factories, so it can wrap the default node."""

from __future__ import annotations

from typing import Any

import pytest

from reactgraph import ReActAgent, build_graph
from reactgraph import TerminationReason as R
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.nodes import make_terminate
from reactgraph.testing import ScriptedChatModel, tool_call


def make_verified_terminate(deps: NodeDeps):
    """The default terminate, then a check of the answer: the step a verifier adds before END."""
    terminate = make_terminate(deps)

    def verified_terminate(state: dict[str, Any]) -> dict[str, Any]:
        update = terminate(state)
        if update.get("final_answer"):
            update["final_answer"] += " (checked)"
        return update

    return verified_terminate


def test_a_swapped_node_wraps_the_default_one(math_tools, log):
    model = ScriptedChatModel(responses=[tool_call("multiply", {"a": 6, "b": 7}), "42"])
    agent = ReActAgent(model=model, tools=math_tools, checkpointer=None, nodes={"terminate": make_verified_terminate})
    result = agent.run("What is 6*7?")
    assert result.termination_reason is R.SUCCESS and result.final_answer == "42 (checked)"
    assert log.calls == [("multiply", {"a": 6, "b": 7})]  # the other nodes and the routing are the defaults
    assert [s.kind for s in result.trace.steps] == ["tools", "final"]


def test_the_graph_keeps_its_five_nodes_and_edges():
    swapped = build_graph(ScriptedChatModel(responses=["x"]), [], nodes={"terminate": make_verified_terminate})
    default = build_graph(ScriptedChatModel(responses=["x"]), [])
    assert set(swapped.get_graph().nodes) == set(default.get_graph().nodes)
    assert {(e.source, e.target) for e in swapped.get_graph().edges} == {(e.source, e.target) for e in default.get_graph().edges}


def test_an_unknown_node_name_is_refused():
    with pytest.raises(ValueError, match=r"no node named 'verify'; the nodes are think, act, observe, summarize, terminate"):
        build_graph(ScriptedChatModel(responses=["x"]), [], nodes={"verify": make_verified_terminate})
