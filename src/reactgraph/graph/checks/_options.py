"""Optional arguments on nothing the run was given (``unfounded_options``): a small model fills every optional
parameter of a call, with values nobody gave (``adriel_list_projects(user_id="1234", include_completed=True,
completion_date="2023-12-31")`` for the projects Adriel is working on; BFCL's live entries). Such an argument is left
out of the call, so the tool's own default applies. An optional argument is left out when it is:
- a text with a digit in it none of whose words or numbers the question, the earlier turns, a tool result or your
  system prompt holds (a made-up date, ``"2023-12-31"``);
- a yes/no other than the parameter's declared default, when no word of the parameter's name is in that text
  (``include_completed=True`` for a question that says nothing of completed ones).
A required argument, a value equal to the parameter's default, a number (``compounding_periods_per_year=12`` for
"compounded monthly" is given in words) and any other value stay as written. The call runs at once, without the
arguments left out; the step's ``checks`` keep the calls as the model wrote them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from reactgraph.config import AgentConfig
from reactgraph.graph.checks._base import Reply, Rewrite, rewritten
from reactgraph.graph.checks._unfounded import given_numbers, given_text, is_given, mentions, parameter_schemas
from reactgraph.graph.deps import ASK_USER
from reactgraph.state import Action, runs
from reactgraph.tools.specs import ToolSpec

NAME_WORD = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])")
"""A word of a parameter's name: ``include_completed`` -> include, completed; ``autoReconnect`` -> auto, reconnect."""
DIGIT = re.compile(r"\d")


def unfounded_options(reply: Reply, state: Mapping[str, Any], cfg: AgentConfig) -> Rewrite | None:
    """The reply's calls, each without the optional arguments whose values nothing the run was given holds."""
    if not reply.actions:
        return None
    given = given_text(state, cfg)
    known = given_numbers(given, state)
    specs = {spec.name: spec for spec in reply.tools}
    out: list[Action] = []
    for action in reply.actions:
        spec = specs.get(action.get("tool") or "")
        args = action.get("args")
        if runs(action) and spec is not None and action["tool"] != ASK_USER and isinstance(args, dict):
            options = optional_schemas(spec)
            kept = {k: v for k, v in args.items() if k not in options or not unfounded_option(k, v, options[k], given, known)}
            action = {**action, "args": kept} if kept != args else action
        out.append(action)
    return rewritten(reply, out)


def optional_schemas(spec: ToolSpec) -> dict[str, Mapping[str, Any]]:
    """The JSON schemas of the tool's optional parameters, by name."""
    return {name: schema for name, schema in parameter_schemas(spec).items() if name not in spec.required}


def unfounded_option(name: str, value: Any, schema: Mapping[str, Any], given: str, known: set[Decimal]) -> bool:
    """Whether ``name=value``, an optional argument with that JSON ``schema``, is on nothing ``given`` (see the module's
    rules)."""
    default = schema.get("default", ...)
    if value == default and type(value) is type(default):
        return False
    if isinstance(value, bool):
        return default is not ... and not mentions([w.lower() for w in NAME_WORD.findall(name)], given)
    return isinstance(value, str) and DIGIT.search(value) is not None and not is_given(value, given, known)
