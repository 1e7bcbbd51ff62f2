"""A tool's ``Command`` in reactgraph's loop, as ``create_agent``'s ToolNode carries it out, within what the loop allows.

- ``update``: merged into the state from the call's act task. The ``ToolMessage`` that answers the call (its
  ``tool_call_id``) is the call's result, the observation the model sees; other messages join the chat (tools and
  clients see them; the prompt, rebuilt from the trace, shows the result). Other keys must be fields the agent
  added to the state (``state_schema``, a middleware's ``state_schema``: a todo list); reactgraph's own fields
  (the trace, the turn, the stop) are its own. A Command that breaks these rules changes nothing and is the call's
  error, saying why.
- ``goto``: ``END`` ends the run with the call's result as the answer (as ``return_direct`` does); ``"model"`` is
  where the loop goes anyway. Any other node is no node of reactgraph's loop: the call's error names
  ``reactgraph.handoff_to``, which hands the conversation to another agent, as a swarm's handoff does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

from langchain_core.messages import ToolMessage, convert_to_messages
from langgraph.graph import END
from langgraph.types import Command, Send

from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.middleware import merged_state
from reactgraph.graph.subagents import HandoffTool
from reactgraph.state import Outcome, ReActState
from reactgraph.tools.content import cut
from reactgraph.tools.results import kept_value

CONTINUE = frozenset({"model", "think", "tools"})  # gotos that are where the loop goes after a tool call anyway
ENDS = frozenset({END, "end", "terminate"})


@dataclass(frozen=True)
class StateFields:
    """The state's fields as a tool's Command sees them: reactgraph's own, and those the agent added."""

    own: frozenset[str]
    added: frozenset[str]

    @classmethod
    def of(cls, deps: NodeDeps) -> StateFields:
        own = frozenset(get_type_hints(ReActState)) - {"messages"}
        every = frozenset(get_type_hints(merged_state(ReActState, deps.middleware, deps.state_schema), include_extras=True))
        return cls(own, every - own - {"messages"})


def settled(outcome: Outcome, registry: Any, fields: StateFields, limit: int) -> tuple[Outcome, dict[str, Any]]:
    """(the call's outcome, the state update to merge): a Command the tool returned carried out (``carried_out``),
    a successful call of a ``return_direct`` tool marked to end the run with its result (``direct``)."""
    if "command" in outcome:
        return carried_out(outcome, fields.own, fields.added, limit)
    entry = registry.get(outcome.get("tool") or "")
    if outcome["status"] == "ok" and outcome.get("ran") and entry is not None and entry.tool.return_direct:
        return outcome | {"direct": "handoff" if isinstance(entry.tool, HandoffTool) else "return_direct"}, {}
    return outcome, {}


class CommandRefused(ValueError):
    """A tool's Command that reactgraph cannot carry out; the message says why."""


def carried_out(outcome: Outcome, own: frozenset[str], added: frozenset[str], limit: int) -> tuple[Outcome, dict[str, Any]]:
    """(the call's outcome, the state update) for ``outcome``, whose ``command`` a tool returned: the ToolMessage
    answering the call as its result, the rest of the update to merge (``added``: the fields the agent added to the
    state; ``own``: reactgraph's), a goto END as the run's end. A Command it cannot carry out is an error outcome."""
    outcome = dict(outcome)  # type: ignore[assignment]
    command: Command = outcome.pop("command")  # type: ignore[typeddict-item]
    try:
        result, update = read_command(command, outcome["call_id"], own, added)
    except CommandRefused as exc:
        text = error_text(ErrorKind.EXECUTION_FAILED, tool=outcome["tool"], problem=cut(str(exc), limit))
        return outcome | {"status": "error", "error_kind": ErrorKind.EXECUTION_FAILED.value, "content": text,
                          "failures": [text]}, {}
    fields: Outcome = {"content": cut(result.text, limit)}
    if (value := kept_value(result.artifact, limit)) is not None:
        fields["value"] = value
    if result.status == "error":
        fields |= {"status": "error", "error_kind": ErrorKind.EXECUTION_FAILED.value, "failures": [result.text]}
    if ends(command.goto):
        fields["direct"] = "Command(goto=END)"
    return outcome | fields, update


def read_command(command: Command, call_id: str, own: frozenset[str], added: frozenset[str]) -> tuple[ToolMessage, dict[str, Any]]:
    """(the ToolMessage answering the call, the rest of the update); CommandRefused saying what does not fit."""
    if command.graph is not None:
        raise CommandRefused(
            "the tool's Command goes to the parent graph (a swarm's handoff); a reactgraph run has none: hand the "
            "conversation over with reactgraph.handoff_to(agent)"
        )
    if command.resume is not None:
        raise CommandRefused("a tool's Command may not resume an interrupt")
    gotos = command.goto if isinstance(command.goto, list | tuple) else [command.goto] if command.goto else []
    for goto in gotos:
        name = goto.node if isinstance(goto, Send) else goto
        if name not in CONTINUE and name not in ENDS:
            raise CommandRefused(
                f"the tool's Command goes to {name!r}, which is no node of reactgraph's loop (END ends the run, 'model' "
                "goes on); to hand the conversation to another agent, give the agent reactgraph.handoff_to(it)"
            )
    update: dict[str, Any] = {}
    for key, value in command._update_as_tuples():
        if key == "messages":
            update.setdefault("messages", []).extend(convert_to_messages(value if isinstance(value, list) else [value]))
        elif key in own:
            raise CommandRefused(f"the tool's Command updates {key!r}, one of reactgraph's own state fields; a tool may update the fields the agent adds (state_schema)")
        elif key not in added:
            raise CommandRefused(
                f"the tool's Command updates {key!r}, which is no field of the agent's state: declare it "
                "(ReActAgent(state_schema=...), or a middleware's state_schema)"
            )
        else:
            update[key] = value
    messages = update.pop("messages", [])
    answer = next((m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id), None)
    if answer is None:
        raise CommandRefused(
            f"the tool's Command has no ToolMessage for the call (tool_call_id {call_id!r}): every tool call needs "
            "its answer; add ToolMessage(..., tool_call_id=runtime.tool_call_id) to its update's messages"
        )
    rest = [m for m in messages if m is not answer]
    return answer, update | ({"messages": rest} if rest else {})


def ends(goto: Any) -> bool:
    """Whether a Command's ``goto`` ends the run."""
    gotos: Sequence[Any] = goto if isinstance(goto, list | tuple) else [goto]
    return any((g.node if isinstance(g, Send) else g) in ENDS for g in gotos if g)
