"""act: run one tool call (one task per call, so a crash re-runs only unfinished calls). LangChain middleware's
``wrap_tool_call`` wraps the call (a cached one never runs) outside approval and reactgraph's policy (validation,
timeouts, retries, isolation), which run in the innermost handler (``through_middleware``): the call that handler is
handed, as every middleware left it, is the one that waits for a person's decision when it needs approval
(``reactgraph.tools.approval``), and the one that runs once approved (or edited)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from langchain.agents.middleware import AgentMiddleware, ToolCallRequest
from langchain_core.messages import ToolMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph._commands import StateFields, settled
from reactgraph.graph._replies import Reply, reply_update
from reactgraph.graph.deps import ASK_USER, NodeDeps, current_thread
from reactgraph.graph.middleware import MiddlewareError, hook_update, tool_call, with_hook
from reactgraph.graph.runtime import tool_runtime
from reactgraph.graph.subagents import delegate, is_agent
from reactgraph.models.tokens import truncate
from reactgraph.state import Action, Outcome, ReActState, TokenCount, current_turn
from reactgraph.tools import approval, human
from reactgraph.tools.execution import (
    CallSlots,
    call_key,
    error_outcome,
    execute,
    ok_outcome,
)
from reactgraph.tools.injection import injected
from reactgraph.tools.policy import ToolCancelled, ToolTimeout


class ActInput(TypedDict):
    """The Send payload: one action, the run's wall-clock deadline (or None), the run's cached
    result for this exact call when its tool is cacheable and it ran before, whether the call
    waits for a person's approval (decided with the turn, so a resume under another config keeps it;
    act asks again itself, so a payload can add an approval, never take one away),
    for a sub-agent's call the run's start and the tokens it may use, and a person's chat reply when the
    turn waited on them (``graph._replies``: the answer or the decision, instead of asking)."""

    action: Action
    deadline: float | None
    cached: NotRequired[str | None]
    approve: NotRequired[bool]
    delegation: NotRequired[Delegated]
    reply: NotRequired[Reply]


class Delegated(TypedDict):
    """What a sub-agent's call gets of the parent run: its start (for a cancel) and its share of the
    tokens left (None: no token budget)."""

    started_at: float
    tokens_left: int | None


def make_act(deps: NodeDeps) -> Callable[[ActInput], dict[str, Any]]:
    slots = CallSlots()
    fields = StateFields.of(deps)

    def act(payload: ActInput) -> dict[str, Any]:
        """Reads one pending action (and, when the call that would run needs approval, a person's decision: approved,
        run with edited arguments, or rejected); writes its outcome (ok or error kind, content, duration,
        retries, cached) as a ToolMessage (``reported``), for a cacheable tool's success the run's cache entry, and
        the state update of a Command the tool returned (``graph._commands``); with a person's reply, what it takes
        out of the chat (``replies.reply_update``)."""
        update = acted(payload)
        if extra := reply_update(payload.get("reply")):
            update = update | extra | {"messages": [*extra["messages"], *update.get("messages", [])]}
        return update

    def acted(payload: ActInput) -> dict[str, Any]:
        cfg = deps.run_config()
        action = payload["action"]
        reply = payload.get("reply")
        if "rejection" in action:
            return reported(rejected(action), cfg)
        if "answered" in action:  # the agent answered it itself (a question about its tools)
            return reported(ok_outcome(action, action["answered"]), cfg)
        if action["tool"] == ASK_USER and cfg.allow_clarification:
            question = str(action["args"].get("question", "")).strip() or "(the model asked without a question)"
            answer = reply["text"] if reply else human.ask(question, action["id"])
            return reported(ok_outcome(action, f"The user answered: {answer}"), cfg)
        if (cached := payload.get("cached")) is not None:
            return reported(ok_outcome(action, cached, cached=True), cfg)
        thread_id = current_thread()
        commanded: dict[str, Any] = {}
        decided: dict[str, approval.Decision] = {}  # by call: a handler run again (a retry) is not asked again

        def run(called: Action) -> tuple[Outcome, TokenCount | None]:
            """The call a handler is handed (the model's, or what the middleware made of it), decided first when it
            needs approval (the payload's flag adds an approval, never takes one away; a person's reply to the
            waiting turn is the decision), then run, or rejected."""
            if not (payload.get("approve") or approval.needs_approval(called, deps.registry, cfg)):
                return run_settled(called)
            key = call_key(called["tool"], called["args"])
            if key not in decided:
                decided[key] = approval.from_text(reply["text"]) if reply else approval.ask(called)
            decision = decided[key]
            if isinstance(decision, approval.Reject):
                text = error_text(ErrorKind.REJECTED, tool=called["tool"], problem=decision.reason or "none given")
                return error_outcome(called, ErrorKind.REJECTED, text), None
            if isinstance(decision, approval.Approve):
                return run_settled(called)
            outcome, usage = run_settled({**called, "args": decision.args})
            note = prompts.EDITED_CALL.format(asked=json.dumps(called["args"], ensure_ascii=False, default=str))
            return outcome | {"content": note + outcome["content"]}, usage

        def run_settled(action: Action) -> tuple[Outcome, TokenCount | None]:
            """The call under reactgraph's policy (its outcome, a sub-agent's token usage); a Command the tool returned
            carried out (``commanded``: its state update)."""
            outcome, usage = run_in_slot(action)
            outcome, update = settled(outcome, deps.registry, fields, cfg.tool_execution.max_tool_output_bytes)
            commanded.clear()
            commanded.update(update)
            return outcome, usage

        def run_in_slot(action: Action) -> tuple[Outcome, TokenCount | None]:
            agent = is_agent(deps.registry, action["tool"], cfg)  # a payload without its share still runs it as a subgraph
            delegated = (payload.get("delegation") or {"started_at": time.time(), "tokens_left": cfg.limits.token_budget}) if agent else None
            # a cancel from now on stops a call in a worker process; a sub-agent's, any since the run started
            cancelled = deps.cancel_check(thread_id, delegated["started_at"] if delegated else time.time())
            try:
                with slots.hold(thread_id, cfg.tool_execution.max_parallel_tools, deadline=payload["deadline"], cancelled=cancelled):
                    if delegated is not None:
                        return delegate(
                            deps.registry[action["tool"]], action, deps.registry, cfg, deadline=payload["deadline"],
                            tokens_left=delegated["tokens_left"], cancelled=cancelled, user=deps.user_context(),
                        )
                    runtime = runtime_of(deps, action)
                    return execute(
                        action, deps.registry, cfg, deadline=payload["deadline"], cancelled=cancelled, runtime=runtime
                    ), None
            except (ToolTimeout, ToolCancelled) as exc:  # no slot before the run's time ran out or it was cancelled
                kind = ErrorKind.TIMEOUT if isinstance(exc, ToolTimeout) else ErrorKind.EXECUTION_FAILED
                return error_outcome(action, kind, error_text(kind, tool=action["tool"], problem=str(exc))), None

        extra: dict[str, Any] = {}
        if wrapping := with_hook(deps.middleware, "wrap_tool_call"):
            outcome, child_usage, extra = through_middleware(wrapping, action, deps, payload, run)
        else:
            outcome, child_usage = run(action)
        if child_usage is not None:  # the child's tokens are the parent's: observe counts them, one model call of the turn
            outcome = outcome | {"usage": child_usage}
        update = reported(outcome, cfg)
        entry = deps.registry.get(action["tool"])
        ran_as_asked = (outcome.get("tool"), outcome.get("args")) == (action["tool"], action["args"])  # not edited, not renamed
        if outcome["status"] == "ok" and ran_as_asked and entry is not None and entry.policy.cacheable and not commanded:
            update["tool_cache"] = {call_key(action["tool"], action["args"]): outcome["content"]}
        if more := commanded.pop("messages", None):  # a Command's other messages, after the call's answer
            update["messages"] = [*update["messages"], *more]
        return extra | commanded | update

    return act


class ToolCallFailed(Exception):
    """The tool itself failed: raised to the wrap_tool_call middleware as ToolNode raises a tool's error (a
    ``ToolRetryMiddleware`` retries it); an error nobody handled becomes the outcome again."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome["content"])
        self.outcome = outcome


Run = Callable[[Action], tuple[Outcome, TokenCount | None]]


def through_middleware(
    wrapping: list[AgentMiddleware], action: Action, deps: NodeDeps, payload: ActInput, run: Run
) -> tuple[Outcome, TokenCount | None, dict[str, Any]]:
    """The call through the wrap_tool_call middleware, first outermost (``graph.middleware.tool_call``): the
    innermost handler runs the request's call (its tool and arguments, as a middleware left them) under
    reactgraph's policy and answers with a ToolMessage, or raises ToolCallFailed when the tool failed. Returns
    the outcome (the middleware's answer when it gave its own; ``retries`` counts the handler's extra runs),
    a sub-agent's usage and the state update of a Command a middleware returned. ``request.state`` is the run's
    state, ``request.runtime`` the call's ``ToolRuntime`` (``graph.runtime.tool_runtime``)."""
    runs: list[tuple[ToolMessage, Outcome, TokenCount | None]] = []

    def call(request: ToolCallRequest) -> ToolMessage:
        called: Action = {**action, "tool": request.tool_call["name"], "args": request.tool_call["args"]}
        outcome, usage = run(called)
        status = "success" if outcome["status"] == "ok" else "error"
        message = ToolMessage(outcome["content"], tool_call_id=action["id"], name=called["tool"], status=status)
        runs.append((message, outcome, usage))
        if outcome["status"] == "error" and outcome.get("ran"):
            raise ToolCallFailed(outcome)
        return message

    entry = deps.registry.get(action["tool"])
    runtime = tool_runtime(action["id"], deps.user_context(), offered(deps))
    request = ToolCallRequest(
        tool_call={"name": action["tool"], "args": action["args"], "id": action["id"], "type": "tool_call"},
        tool=entry.tool if entry is not None else None,
        state=runtime.state,
        runtime=runtime,
    )
    names = [m.name for m in wrapping]
    try:
        result: ToolMessage | Command | None = tool_call(wrapping, request, call)
    except ToolCallFailed as failed:
        return {**failed.outcome, "middleware": names, "retries": retried(failed.outcome, runs)}, runs[-1][2], {}
    update: dict[str, Any] = {}
    if isinstance(result, Command):
        update = hook_update(result, f"{names[0]}.wrap_tool_call")
        result = next((m for m in convert_to_messages(update.pop("messages", None) or [])
                       if isinstance(m, ToolMessage) and m.tool_call_id == action["id"]), None)
    if result is None:
        raise MiddlewareError(f"wrap_tool_call ({', '.join(names)}): no ToolMessage answers the call {action['id']}")
    for message, outcome, usage in reversed(runs):
        if message is result:
            return outcome | {"middleware": names, "retries": retried(outcome, runs)}, usage, update
    # the middleware answered itself: its text, on the last run's outcome when there was one
    last, text = runs[-1][1] if runs else None, str(result.text)  # a plain str (see state.current_turn)
    if result.status == "error":
        outcome = (last or error_outcome(action, ErrorKind.EXECUTION_FAILED, text)) | {"status": "error", "content": text}
    else:
        outcome = (last or ok_outcome(action, text)) | {"status": "ok", "error_kind": None, "content": text}
    return {**outcome, "middleware": names, "retries": retried(outcome, runs)}, runs[-1][2] if runs else None, update


def offered(deps: NodeDeps) -> list[BaseTool]:
    """The tools of the run (a ToolRuntime's ``tools``)."""
    return [deps.registry[name].tool for name in deps.registry.select(deps.run_config().tools, strict=False)]


def runtime_of(deps: NodeDeps, action: Action) -> ToolRuntime | None:
    """The call's ToolRuntime when its tool takes the run's state, store or runtime (``tools.injection``), else None."""
    entry = deps.registry.get(action["tool"])
    if entry is None or not injected(entry.tool).needs_runtime:
        return None
    return tool_runtime(action["id"], deps.user_context(), offered(deps))


def retried(outcome: Outcome, runs: list[Any]) -> int:
    """The call's retries: reactgraph's own, and the handler's runs after the first (a middleware's retries)."""
    return outcome.get("retries", 0) + max(0, len(runs) - 1)


def rejected(action: Action) -> Outcome:
    """The outcome of a call that does not run (think rejected it, or a hook answered it): its rejection."""
    return error_outcome(action, action.get("rejection_kind") or ErrorKind.MALFORMED_OUTPUT, action["rejection"])


IN_MESSAGE = frozenset({"call_id", "tool", "status", "content"})  # the outcome's fields its ToolMessage holds


def reported(outcome: Outcome, cfg: AgentConfig) -> dict[str, Any]:
    """act's update for one outcome of a call of a named tool (think put the call in the chat): its result as a
    ToolMessage, cut to ``max_observation_tokens`` as the trace's observation is, with the rest of the outcome as the
    message's artifact. A cut result is kept whole there only when observe asks the model to shorten it
    (``summarize_observations``); else the artifact says the message's text is cut (``truncated``), so the chat's
    snapshots hold no tool's whole output. Nothing for a call that names no tool (an unreadable reply): observe reads
    its rejection from the turn's actions (``turn_outcomes``)."""
    if not outcome.get("tool"):
        return {}
    status = "success" if outcome["status"] == "ok" else "error"
    content, cut = truncate(outcome.get("content", ""), cfg.prompt.max_observation_tokens)
    artifact: dict[str, Any] = {k: v for k, v in outcome.items() if k not in IN_MESSAGE}
    if cut:  # the whole text stays for an answer (a direct result) or for observe to shorten
        whole = cfg.prompt.summarize_observations or outcome.get("direct")
        artifact |= {"content": outcome["content"]} if whole else {"truncated": True}
    message = ToolMessage(content, tool_call_id=outcome["call_id"], name=outcome["tool"], status=status, artifact=artifact)
    return {"messages": [message]}


def outcome_of(message: ToolMessage) -> Outcome:
    """The outcome act ``reported`` in ``message`` (of one without an artifact, what the message says)."""
    artifact = message.artifact or {}
    status = "ok" if message.status == "success" else "error"
    outcome: Outcome = {**artifact, "call_id": message.tool_call_id, "status": status,  # type: ignore[typeddict-item]
                        "content": artifact.get("content", str(message.text))}
    if message.name:  # act's always; one written by hand may name no tool (``turn_outcomes`` has the call's)
        outcome["tool"] = message.name
    return outcome


def turn_outcomes(state: ReActState) -> list[Outcome]:
    """The outcomes of the current turn's calls, in their order: a named tool's from its ToolMessage, act's (the
    chat's last messages; one written by hand, as time travel may, is read as what it says), a call without a tool
    its rejection. A call without a result (in a state edited by hand) has none."""
    results: dict[str, ToolMessage] = {}
    for message in reversed(state.get("messages") or []):
        if not isinstance(message, ToolMessage):
            break
        results.setdefault(message.tool_call_id, message)
    outcomes: list[Outcome] = []
    for action in sorted(current_turn(state).get("actions") or [], key=lambda a: a["index"]):
        if not action.get("tool"):
            outcomes.append(rejected(action))
        elif (written := results.get(action["id"])) is not None:
            outcomes.append(ok_outcome(action, "") | outcome_of(written))  # a hand-written result: no run, no retries
    return outcomes
