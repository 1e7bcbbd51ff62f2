"""One BFCL entry through one agent, kept as a record (a JSON line) that can be scored again without a model:
the first calls the agent executed (the arguments as the model wrote them, before any coercion of ours), the calls
of its first reply, every model call as it came (its reply, tokens and seconds: ``calls.Replies``), the answer, the
tokens and the seconds. The ``bare`` agent is the model alone, asked once as BFCL asks it (``bare``): what it
decodes from that reply are both its executed and its first reply's calls.

"Executed" is the same test for every agent: the first turn in which a call to a tool on offer ran (reactgraph:
its observation is ok, so a call refused for its arguments and made again after the re-prompt counts; the peers:
its tool message is no error); the calls of that turn that ran are scored. The run stops there (reactgraph by
``termination_callback``, the peers by the tools' ``return_direct``): what it did next is not scored. A run that
executes nothing goes on to its answer: the right behaviour for the irrelevance categories.

A multi-turn entry is one conversation on one thread (reactgraph's thread; each peer's own checkpointer and thread,
its messages kept across turns), a user turn per ``run``/``invoke``, its tools running on the run's API instances
(``multi_turn.Session``). Each turn may take BFCL's step limit of model replies with calls (20) and then answer; a
turn that reaches one more ends the entry, as BFCL's inference loop force-quits it (the turns left unrun make it
wrong). The calls of a reply run one at a time, in the order the model wrote them, as BFCL runs them (reactgraph
with ``max_parallel_tools=1``, the peers with ``max_concurrency=1``: one worker, first in first out). The
record's ``calls`` are the call strings executed, per turn, in the order they ran (what BFCL's multi-turn checker
runs again on fresh instances); ``turns`` keeps each turn's replies, answer, reason and tokens."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from reactgraph.agent import ReActAgent
from reactgraph.answers.result import ReActResult, ReActStep
from reactgraph.config import AgentConfig, ConfigError
from reactgraph.evaluation.bfcl.bare import run_bare
from reactgraph.evaluation.bfcl.calls import Replies, ServerLog
from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.multi_turn import Session
from reactgraph.evaluation.bfcl.package import step_limit
from reactgraph.evaluation.bfcl.tools import bfcl_name, entry_tools
from reactgraph.evaluation.building import NON_INTERACTIVE
from reactgraph.evaluation.peers import PEERS
from reactgraph.evaluation.runner import invoke_peer
from reactgraph.tools.registry import ToolRegistry

Record = dict[str, Any]
BARE = "bare"
AGENTS = ("reactgraph", *PEERS, BARE)  # bare: the model alone, asked BFCL's way (bfcl.bare)


def run_entry(
    entry: Entry, agent: str, model: BaseChatModel, overrides: Mapping[str, Any], model_name: str,
    server_log: ServerLog | None = None,
) -> Record:
    """``entry`` through ``agent`` (reactgraph, a peer of ``PEERS`` or ``bare``) with ``overrides`` (AgentConfig
    fields; the peers honour max_iterations and the failure phrases; bare takes none), as a record; with the model
    server's log, each model call's prompt tokens evaluated (``calls.ServerLog``)."""
    if entry.multi_turn:
        if agent == BARE:
            raise ConfigError(f"the {BARE} agent runs BFCL's single-turn categories only, not {entry.category}")
        return _multi_turn(entry, agent, model, overrides, model_name, server_log)
    tools, names = entry_tools(entry)
    replies = Replies(server_log)
    start = time.perf_counter()
    if agent == BARE:
        measured = run_bare(entry, model, replies)
    elif agent == "reactgraph":
        measured = _reactgraph(entry, tools, names, model, overrides, replies)
    else:
        measured = _peer(entry, PEERS[agent](model, tools), names, overrides, replies)
    return {
        "agent": agent,
        "model": model_name,
        "id": entry.id,
        "category": entry.category,
        **measured,
        "replies": replies.replies,
        "seconds": round(time.perf_counter() - start, 2),
    }


def ran_a_call(step: ReActStep) -> bool:
    """reactgraph's stop: the turn ran a call."""
    return any(o.status == "ok" and o.tool for o in step.observations)


def _reactgraph(
    entry: Entry, tools: list[Any], names: dict[str, str], model: BaseChatModel, overrides: Mapping[str, Any], replies: Replies
) -> dict[str, Any]:
    config = AgentConfig().override(**NON_INTERACTIVE).override(**overrides).override(termination_callback=ran_a_call)
    agent = ReActAgent(model=model, tools=ToolRegistry(tools), config=config, checkpointer=None)
    try:
        result = agent.run(entry.question, callbacks=[replies])
    except Exception as exc:  # noqa: BLE001 — a crash is a measured outcome here
        return _crashed(exc)
    assert isinstance(result, ReActResult)  # output_mode is "full"
    steps = result.trace.steps
    executed = next((s for s in steps if ran_a_call(s)), None)
    ran = {o.call_id for o in executed.observations if o.status == "ok"} if executed else set()
    first = steps[0].actions if steps else []
    return {
        "calls": [_call(a.tool, a.args, names) for a in (executed.actions if executed else []) if a.id in ran],
        "first_reply_calls": [_call(a.tool, a.args, names) for a in first if a.tool],
        "answer": None if executed else result.final_answer,
        "reason": result.termination_reason.value,
        "tokens": result.token_usage.total_tokens,
        "error": "",
        "checks": _checks(steps, names),
        "executed_step": steps.index(executed) if executed else None,
    }


def _checks(steps: list[ReActStep], names: dict[str, str]) -> list[dict[str, Any]]:
    """The reply checks that acted in the run (``evaluation.bfcl.checks`` scores what letting each through gave): the
    step, what it judged (the answer; the calls as the model made them, in BFCL's names) and the tokens after it."""
    return [
        {"check": c.check, "decision": c.decision, "reply": c.reply, "step": place, "answer": c.answer,
         "calls": [_call(call.get("tool", ""), call.get("args", {}), names) for call in c.calls if call.get("tool")],
         "tokens_after": sum(s.token_usage.total_tokens for s in steps[place + 1 :])}
        for place, step in enumerate(steps) for c in step.checks
    ]


def _peer(
    entry: Entry, graph: Any, names: dict[str, str], overrides: Mapping[str, Any], replies: Replies
) -> dict[str, Any]:
    config = AgentConfig().override(**NON_INTERACTIVE).override(**overrides)
    messages, answer, reason, detail = invoke_peer(graph, entry.question, config, callbacks=[replies])
    first = replies.replies[0]["tool_calls"] if replies.replies else []
    calls = _executed(messages)
    return {
        "calls": [_call(c["name"], c["args"], names) for c in calls],
        "first_reply_calls": [_call(c["name"], c["args"], names) for c in first],
        "answer": None if calls else answer,
        "reason": "error" if reason == "error" else ("custom" if calls else reason),
        "tokens": sum(m.usage_metadata.get("total_tokens", 0) for m in messages if isinstance(m, AIMessage) and m.usage_metadata),
        "error": detail if reason == "error" else "",
    }


def _multi_turn(
    entry: Entry, agent: str, model: BaseChatModel, overrides: Mapping[str, Any], model_name: str, server_log: ServerLog | None
) -> Record:
    session = Session(entry)
    tools, _ = entry_tools(entry, session.execute)
    start = time.perf_counter()
    try:
        if agent == "reactgraph":
            turns, error = _reactgraph_turns(entry, session, tools, model, overrides, server_log)
        else:
            graph = PEERS[agent](model, tools, checkpointer=InMemorySaver())
            turns, error = _peer_turns(entry, session, graph, overrides, server_log)
    finally:
        session.close()
    return {
        "agent": agent,
        "model": model_name,
        "id": entry.id,
        "category": entry.category,
        "calls": session.turns[: len(turns)],
        "first_reply_calls": None,
        "answer": turns[-1]["answer"] if turns else None,
        "reason": "error" if error else (turns[-1]["reason"] if turns else "error"),
        "tokens": sum(t["tokens"] for t in turns),
        "error": error,
        "turns": turns,
        "seconds": round(time.perf_counter() - start, 2),
    }


def _reactgraph_turns(
    entry: Entry, session: Session, tools: list[Any], model: BaseChatModel, overrides: Mapping[str, Any],
    server_log: ServerLog | None,
) -> tuple[list[dict[str, Any]], str]:
    # the turn that reaches the limit ended BFCL's loop; a reply's calls run one at a time, in order, as in BFCL's
    limit = {"limits": {"max_iterations": step_limit() + 1}, "tool_execution": {"max_parallel_tools": 1}}
    config = AgentConfig().override(**NON_INTERACTIVE).override(**overrides).override(**limit)
    turns: list[dict[str, Any]] = []
    with ReActAgent(model=model, tools=ToolRegistry(tools), config=config, checkpointer=None) as agent:
        for question in entry.questions:
            session.start_turn()
            replies = Replies(server_log)
            try:
                result = agent.run(question, thread_id=session.name, callbacks=[replies])
            except Exception as exc:  # noqa: BLE001 — a crash is a measured outcome here
                return turns, _crashed(exc)["error"]
            assert isinstance(result, ReActResult)  # output_mode is "full"
            reason = result.termination_reason.value
            tokens = result.token_usage.total_tokens
            turns.append({"replies": replies.replies, "answer": result.final_answer, "reason": reason, "tokens": tokens})
            if reason == "max_iterations":
                break
    return turns, ""


def _peer_turns(
    entry: Entry, session: Session, graph: Any, overrides: Mapping[str, Any], server_log: ServerLog | None
) -> tuple[list[dict[str, Any]], str]:
    config = AgentConfig().override(**NON_INTERACTIVE).override(**overrides).override(limits={"max_iterations": step_limit()})
    turns: list[dict[str, Any]] = []
    seen = 0
    for question in entry.questions:
        session.start_turn()
        replies = Replies(server_log)
        messages, answer, reason, detail = invoke_peer(
            graph, question, config, callbacks=[replies], thread_id=session.name, max_concurrency=1
        )
        if reason == "error":
            return turns, detail
        tokens = sum(m.usage_metadata.get("total_tokens", 0) for m in messages[seen:] if isinstance(m, AIMessage) and m.usage_metadata)
        seen = len(messages)
        turns.append({"replies": replies.replies, "answer": answer, "reason": reason, "tokens": tokens})
        if reason == "max_iterations":  # the recursion limit: a reply with calls after BFCL's step limit
            break
    return turns, ""


def _executed(messages: list[BaseMessage]) -> list[ToolCall]:
    """The tool calls of the first AI message some of whose calls ran (their tool message is no error)."""
    ok = {m.tool_call_id for m in messages if isinstance(m, ToolMessage) and m.status != "error"}
    for message in messages:
        if isinstance(message, AIMessage) and (ran := [c for c in message.tool_calls if c.get("id") in ok]):
            return ran
    return []


def _call(name: str, args: Any, names: dict[str, str]) -> dict[str, Any]:
    return {"name": bfcl_name(name, names), "args": args}


def _crashed(exc: BaseException) -> dict[str, Any]:
    return {
        "calls": [], "first_reply_calls": [], "answer": None, "reason": "error", "tokens": 0,
        "error": f"{type(exc).__name__}: {str(exc)[:300]}",
    }


RunEntry = Callable[[Entry, str, BaseChatModel, Mapping[str, Any], str, ServerLog | None], Record]
