"""One call per item: a call that gives a list where its tool takes a single value (``years=[10, 20, 30]`` for an
integer ``years``) asks for the tool once for each item. Small models write "do this for each of these" that way.
The call becomes one call per item, in order; when several single-value arguments are given lists of the same
length, the items are taken together (``artist=["A", "B"], minutes=[20, 15]``: A for 20, B for 15). Lists of
different lengths, lists of lists or objects, and arguments whose tool takes a list are left as they are (the
tool's own check reports what is wrong)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.state import Action, runs
from reactgraph.tools.specs import ToolSpec

SINGLE = frozenset({"string", "integer", "number", "boolean"})
"""The JSON-schema types of a single value."""


def fanned_out(actions: Sequence[Action], specs: Sequence[ToolSpec]) -> list[Action]:
    """``actions`` with each call that gives lists for single values replaced by one call per item."""
    by_name = {s.name: s for s in specs}
    out: list[Action] = []
    for action in actions:
        spec = by_name.get(action.get("tool", ""))
        args = action.get("args")
        if not runs(action) or spec is None or not isinstance(args, dict):
            out.append(action)
            continue
        out.extend(_each(action, args, spec))
    return [{**a, "index": i} if "index" in a else a for i, a in enumerate(out)]


def fan_out(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """The reply check: each call that gives lists for single values runs once per item (``fanned_out``)."""
    return rewritten(reply, fanned_out(reply.actions, reply.tools)) if reply.actions else None


def _each(action: Action, args: dict[str, Any], spec: ToolSpec) -> list[Action]:
    kinds = dict(zip(spec.params, spec.types, strict=False))
    listed = [k for k, v in args.items() if kinds.get(k) in SINGLE and isinstance(v, list)]
    sizes = {len(args[k]) for k in listed}
    if not listed or len(sizes) != 1 or (n := sizes.pop()) < 2:
        return [action]
    if any(isinstance(item, (list, dict)) for k in listed for item in args[k]):
        return [action]
    return [{**action, "id": f"{action['id']}_{i + 1}", "args": args | {k: args[k][i] for k in listed}} for i in range(n)]
