"""Tool approval (human in the loop): which calls wait for a person, what the person is shown, and
the decisions they may send back.

A call waits when its tool's policy says ``ToolPolicy(approve=True)`` or the run's
``approve_tools`` names the tool ('*' = every tool; a run's own ``approve_tools`` adds to the agent's,
never takes away: ``AgentConfig.merge``). Whether it waits is decided when the turn's calls are
handed to act (``needs_approval``), and travels with the act task, so a run resumed under another
config still honours the decision; act asks ``needs_approval`` again itself, on the call that would run (after
every ``wrap_tool_call`` middleware had its say: one that renames or rewrites a call gets the call it made decided),
so a caller that sends act its own payload, or a middleware, can add an approval but never skip one. Only a call
that can run is shown: one
to an unknown tool or with arguments that do not fit the tool's schema goes back to the model at
once; a cached result and a refused call need no approval either.

The act task pauses with LangGraph's ``interrupt``, showing the call both as LangChain's
``HumanInTheLoopMiddleware`` does (a ``HITLRequest`` with one action request and its review
config) and as LangGraph's ``HumanInterrupt`` (``action_request``, ``config``, ``description``: the form
Agent Chat UI and Agent Inbox draw, ``tools.human``), plus the call's ``tool_call_id``. It is resumed with
one decision, in LangChain's shape::

    {"type": "approve"}
    {"type": "edit", "edited_action": {"name": "<the same tool>", "args": {...}}}   (name may be left out)
    {"type": "reject", "message": "why"}                                          (message may be left out)

or the same wrapped as a ``HITLResponse``, ``{"decisions": [decision]}``; or in LangGraph's, a
``HumanResponse`` (alone or in a list of one, as Agent Chat UI sends it)::

    {"type": "accept", "args": null}                                 approve
    {"type": "edit", "args": {"action": "<the same tool>", "args": {...}}}
    {"type": "response", "args": "why"}                              reject, with the person's text as the reason
    {"type": "ignore", "args": null}                                 reject, without a reason

In Python, ``Approve()``, ``Edit(args)`` and ``Reject(reason)`` stand for them. An edit's arguments are checked against the
tool's schema again (bad ones become an invalid_parameters observation); a rejection becomes a
``rejected`` observation with the reason, which the circuit breaker does not count. A value that is
no decision is asked about again, with the problem in the request's ``problem`` field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from reactgraph.config import AgentConfig
from reactgraph.state import Action
from reactgraph.tools.execution import validate_args
from reactgraph.tools.human import approves, human_interrupt, human_response
from reactgraph.tools.registry import ToolRegistry

DESCRIPTION_PREFIX = "Tool execution requires approval"  # LangChain's default wording
ALLOWED_DECISIONS = ["approve", "edit", "reject"]
DECISIONS_HELP = (
    "{'type': 'approve'}, {'type': 'edit', 'edited_action': {'args': {...}}} or {'type': 'reject', 'message': '...'} "
    "(alone or as {'decisions': [one of them]}), or [{'type': 'accept' | 'edit' | 'response' | 'ignore', 'args': ...}]"
)


@dataclass(frozen=True)
class Approve:
    """Run the call as the model made it."""


@dataclass(frozen=True)
class Edit:
    """Run the call with these arguments instead (checked against the tool's schema again)."""

    args: dict[str, Any]


@dataclass(frozen=True)
class Reject:
    """Do not run the call; the model is told the user refused it, and ``reason``."""

    reason: str = ""


Decision = Approve | Edit | Reject


# -- the resume values, as LangChain's HumanInTheLoopMiddleware writes them ------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApproveDecision(_Strict):
    type: Literal["approve"]


class EditedAction(_Strict):
    name: str | None = None
    args: dict[str, Any]


class EditDecision(_Strict):
    type: Literal["edit"]
    edited_action: EditedAction


class RejectDecision(_Strict):
    type: Literal["reject"]
    message: str = ""


WireDecision = Annotated[ApproveDecision | EditDecision | RejectDecision, Field(discriminator="type")]


class HITLResponse(_Strict):
    decisions: list[WireDecision] = Field(min_length=1, max_length=1)


class ActionRequest(_Strict):
    action: str | None = None
    args: dict[str, Any]


class HumanResponse(_Strict):
    """LangGraph's answer to a ``HumanInterrupt`` (Agent Chat UI, Agent Inbox)."""

    type: Literal["accept", "edit", "response", "ignore"]
    args: ActionRequest | str | None = None


_DECISION: TypeAdapter[Any] = TypeAdapter(WireDecision)
# shown with the interrupt: the answer's form, for clients
RESUME_SCHEMA: dict[str, Any] = TypeAdapter(WireDecision | HITLResponse | list[HumanResponse]).json_schema()


def read_decision(value: Any, tool: str) -> Decision:
    """The decision a resume value stands for; ValueError saying what is wrong when it is none."""
    if (response := human_response(value)) is not None:
        return read_human_response(response, tool)
    try:
        if isinstance(value, dict) and "decisions" in value:
            wire = HITLResponse.model_validate(value).decisions[0]
        else:
            wire = _DECISION.validate_python(value)
    except ValidationError as exc:
        raise ValueError(f"not an approval decision ({_problems(exc)}); send {DECISIONS_HELP}; got {_shown(value)}") from None
    if isinstance(wire, ApproveDecision):
        return Approve()
    if isinstance(wire, RejectDecision):
        return Reject(wire.message.strip())
    if wire.edited_action.name not in (None, tool):
        raise ValueError(f"an edit may change the arguments of {tool}, not call {wire.edited_action.name!r} instead")
    return Edit(wire.edited_action.args)


def read_human_response(value: dict[str, Any], tool: str) -> Decision:
    """The decision a ``HumanResponse`` stands for: accept approves, edit runs the call with the args it carries,
    response rejects it with the person's text as the reason, ignore rejects it without one."""
    try:
        response = HumanResponse.model_validate(value)
    except ValidationError as exc:
        raise ValueError(f"not an approval decision ({_problems(exc)}); send {DECISIONS_HELP}; got {_shown(value)}") from None
    if response.type == "accept":
        return Approve()
    if response.type == "ignore":
        return Reject()
    if response.type == "response":
        if not isinstance(response.args, str):
            raise ValueError(f"a response's args are the person's text; got {_shown(value)}")
        return Reject(response.args.strip())
    if not isinstance(response.args, ActionRequest):
        raise ValueError(f"an edit's args are the action request {{'action': {tool!r}, 'args': {{...}}}}; got {_shown(value)}")
    if response.args.action not in (None, tool):
        raise ValueError(f"an edit may change the arguments of {tool}, not call {response.args.action!r} instead")
    return Edit(response.args.args)


def from_text(text: str) -> Decision:
    """A person's chat message sent while the call waits, read as the decision: approve when it says so
    (``human.approves``: "approve", "yes", "ok" ...), else reject it with the message as the reason."""
    return Approve() if approves(text) else Reject(text.strip())


def to_resume(decision: Decision, tool: str) -> dict[str, Any]:
    """``decision`` as the resume value LangChain's middleware would send for a call of ``tool``."""
    if isinstance(decision, Edit):
        return {"type": "edit", "edited_action": {"name": tool, "args": decision.args}}
    if isinstance(decision, Reject):
        return {"type": "reject", "message": decision.reason}
    return {"type": "approve"}


# -- in the run ----------------------------------------------------------------------------


def needs_approval(action: Action, registry: ToolRegistry, cfg: AgentConfig) -> bool:
    """Whether ``action`` must wait for a person: a call that can run (a tool offered in this run,
    arguments that fit its schema) of a tool whose policy or the run's ``approve_tools`` asks for it."""
    entry = registry.get(action.get("tool", ""))
    if "rejection" in action or entry is None or entry.name not in registry.select(cfg.tools, strict=False):
        return False
    if not (entry.policy.approve or "*" in cfg.tool_execution.approve_tools or entry.name in cfg.tool_execution.approve_tools):
        return False
    try:
        validate_args(entry, action["args"])
    except Exception:  # the model must fix the call first: execute reports it
        return False
    return True


def approval_request(action: Action, problem: str | None = None) -> dict[str, Any]:
    """What the interrupt shows: a HITLRequest for this one call, the same call as a HumanInterrupt, its
    ``tool_call_id``, and ``problem`` when an earlier answer to it could not be used."""
    args = json.dumps(action["args"], ensure_ascii=False, default=str)
    description = f"{DESCRIPTION_PREFIX}\n\nTool: {action['tool']}\nArgs: {args}"
    if problem:
        description += f"\n\nThe last answer could not be used: {problem}"
    request: dict[str, Any] = {
        "action_requests": [{"name": action["tool"], "args": action["args"], "description": description}],
        "review_configs": [{"action_name": action["tool"], "allowed_decisions": list(ALLOWED_DECISIONS)}],
        "tool_call_id": action["id"],
    }
    shown = human_interrupt(action["tool"], action["args"], description, accept=True, edit=True, respond=True, ignore=True)
    return request | shown | ({"problem": problem} if problem else {})


def is_approval_request(value: Any) -> bool:
    """Whether an interrupt's value is an approval request (not a clarification question)."""
    return isinstance(value, dict) and "action_requests" in value and "tool_call_id" in value


def ask(action: Action) -> Decision:
    """Pause the act task until a person decides about ``action`` (LangGraph ``interrupt``); a value
    that is no decision is asked about again, saying what was wrong with it."""
    problem = None
    while True:
        value = interrupt(approval_request(action, problem), response_schema=RESUME_SCHEMA)
        try:
            return read_decision(value, action["tool"])
        except ValueError as exc:
            problem = str(exc)


def _problems(exc: ValidationError) -> str:
    """pydantic's first errors, their paths without the union's tags."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc'] if p not in ALLOWED_DECISIONS) or 'value'}: {e['msg']}" for e in exc.errors()[:3]
    )


def _shown(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
