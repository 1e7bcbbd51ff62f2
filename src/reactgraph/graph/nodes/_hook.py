"""hook: one LangChain middleware hook (``before_agent``, ``before_model``, ``after_model``, ``after_agent``) as a
node of its own, named as ``create_agent`` names it (``reactgraph.graph.middleware``).

The hook sees the state (with a question sent as ``query`` shown as the human message it becomes) and returns an
update. reactgraph reads three things in it beyond the state's fields: a rewritten question message (a
``PIIMiddleware`` redaction) becomes the turn's question, so the prompt holds it; a ``ToolMessage`` answering a
call of the turn (a ``ToolCallLimitMiddleware`` block) is reported by act instead of running the call; and a jump
to the end records the run's stop (reason ``custom``, the detail naming the hook and what it said). The hook's
run goes on the turn's trace step (``hooks``; an ``after_agent`` hook's comes after the last step, so it shows in
Studio and the run's history only)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, convert_to_messages

from reactgraph.errors import ErrorKind
from reactgraph.graph.conversation import is_new_turn, last_human
from reactgraph.graph.deps import NodeDeps
from reactgraph.graph.middleware import HookName, can_jump_to, hook_update, node_name
from reactgraph.graph.runtime import middleware_runtime
from reactgraph.graph.turns import started_turn
from reactgraph.state import (
    Action,
    ReActState,
    TerminationReason,
    checked_query,
    current_turn,
    iteration_of,
    message_lists_added,
    stopped,
)

QUERY_MESSAGE = "question-query"  # the id of the human message a query is shown to a hook as


def make_hook(m: AgentMiddleware, hook: HookName) -> Callable[[NodeDeps], Callable[..., dict[str, Any]]]:
    """The node factory of ``m``'s ``hook`` (a NodeFactory, as ``make_think`` is)."""
    name = node_name(m, hook)
    jumps = can_jump_to(m, hook)

    def factory(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
        def run_hook(state: ReActState) -> dict[str, Any]:
            """Reads the whole state (and a query as its human message); writes the hook's update, the question
            it rewrote, rejections of the calls it answered, the turn's record its messages would move, the stop of
            a jump to the end and the hook's run."""
            view = shown(state)
            update = hook_update(getattr(m, hook)(view, middleware_runtime(deps.user_context())), name)
            jump = update.get("jump_to") if update.get("jump_to") in jumps else None
            update["jump_to"] = jump
            messages = [*convert_to_messages(update.pop("messages", None) or [])]
            update |= questioned(state, messages)
            messages, answered = blocked(state, changed_messages(state, messages))
            if answered:
                update["current_turn"] = {**current_turn(state), "actions": answered}
            if messages:
                update["messages"] = messages
                update |= kept_turn(state, update)
            if jump == "end":
                update = ended(deps, state, update, name, messages)
            if hook == "after_agent":  # the turn's last step is written: Studio and the history show this node
                return update
            changed = sorted(k for k in update if k != "jump_to")
            return update | {"hooks": [{"hook": name, "changed": changed, "jump_to": jump}]}

        run_hook.__name__ = name
        return run_hook

    return factory


def shown(state: ReActState) -> dict[str, Any]:
    """The state as a hook sees it: a question sent as ``query`` is the last human message (as it will be)."""
    query = (checked_query(state.get("query")) or "").strip()
    if not query:
        return dict(state)
    return {**state, "messages": [*(state.get("messages") or []), HumanMessage(content=query, id=QUERY_MESSAGE)]}


def questioned(state: ReActState, messages: list[BaseMessage]) -> dict[str, Any]:
    """The question as a hook rewrote it: a new ``query`` (for a query's message), or the ``question`` of the
    turn whose human message it rewrote (think reads a new turn's question from that message itself)."""
    current = last_human(state)
    for message in messages:
        if message.id == QUERY_MESSAGE:
            return {"query": message.text}
        if current is not None and message.id == current.id and message.id == state.get("question_message") and not is_new_turn(state):
            return {"question": message.text}
    return {}


def changed_messages(state: ReActState, messages: list[BaseMessage]) -> list[BaseMessage]:
    """The messages a hook wrote that change the chat: new ones, or ones it rewrote (a hook may return the whole
    list); never the query's stand-in message (``questioned`` read it)."""
    old = {m.id: m for m in state.get("messages") or []}
    return [m for m in messages if m.id != QUERY_MESSAGE and (m.id not in old or old[m.id] != m)]


def blocked(state: ReActState, messages: list[BaseMessage]) -> tuple[list[BaseMessage], list[Action]]:
    """(the messages without the ToolMessages that answer the turn's pending calls, the pending calls with those
    answers as rejections: act reports them, and writes the ToolMessage, instead of running the call)."""
    pending = current_turn(state).get("actions") or []
    answers = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    ids = {a.get("id") for a in pending if a.get("tool")}
    if not ids & set(answers):
        return messages, []
    actions: list[Action] = [
        {**a, "rejection_kind": ErrorKind.REJECTED.value, "rejection": answers[a["id"]].text} if a.get("id") in answers else a
        for a in pending
    ]
    return [m for m in messages if not (isinstance(m, ToolMessage) and m.tool_call_id in ids)], actions


def kept_turn(state: ReActState, update: dict[str, Any]) -> dict[str, Any]:
    """The turn's record in ``current_turn`` when the hook's messages would move it (they rewrite or remove the AI
    message that carries it, or add one after it: ``state.current_turn``); a hook changes the record only by answering
    the turn's calls (``blocked``)."""
    if "current_turn" in update:
        return {}
    record = current_turn(state)
    chat = message_lists_added(list(state.get("messages") or []), update["messages"])
    return {} if current_turn({**state, "messages": chat}) == record else {"current_turn": record}


def ended(deps: NodeDeps, state: ReActState, update: dict[str, Any], name: str, messages: list[BaseMessage]) -> dict[str, Any]:
    """A jump to the end: the run's stop recorded (a turn the hook ended before it started is started first, so
    it has its question). A stop the model already made (its answer) stands."""
    if is_new_turn(state):
        cfg = deps.run_config()
        chat = message_lists_added(list(state.get("messages") or []), update.get("messages", []))
        state, fresh = started_turn({**state, **update, "messages": chat}, time.time(), cfg)  # type: ignore[typeddict-item]
        update = update | fresh | {"messages": [*fresh.get("messages", []), *update.get("messages", [])]}
    elif state.get("termination"):
        return update
    said = next((m.text for m in reversed(messages) if isinstance(m, AIMessage) and m.text), "")
    termination = stopped(TerminationReason.CUSTOM, f"{name} jumped to the end" + (f": {said}" if said else ""), observed=iteration_of(state))
    return update | {"termination": termination, "current_turn": {**(update.get("current_turn") or current_turn(state)), "actions": []}}
