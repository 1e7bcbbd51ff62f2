"""A run's records in the state: how it ended (``TerminationReason``, ``Termination``), a tool call and its
outcome, a turn, the tokens and tool statistics, and the readers of the current turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Literal

from langchain_core.messages import (
    AIMessage,
)
from typing_extensions import (
    TypedDict,  # pydantic (the server's schemas) needs it on Python < 3.12
)


class TerminationReason(StrEnum):
    """Every way a run can end (the state keeps the plain string: a reason equals its value)."""

    SUCCESS = "success"
    MAX_ITERATIONS = "max_iterations"
    FAILURE = "failure"
    STALLED = "stalled"
    TOKEN_BUDGET = "token_budget"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    CUSTOM = "custom"
    CLARIFICATION = "clarification"  # waiting for the user's answer to the model's question
    APPROVAL = "approval"  # waiting for a person to approve, edit or reject tool calls
    # the names the ReAct requirements use, as aliases
    FAILURE_DETECTED = "failure"
    USER_CANCELLED = "cancelled"


TerminationReason.__module__ = "reactgraph.state"  # the path a checkpoint or a pickle names it by: the public one


LIMIT_REASONS = frozenset(
    {TerminationReason.MAX_ITERATIONS, TerminationReason.STALLED, TerminationReason.TOKEN_BUDGET, TerminationReason.TIMEOUT}
)
"""The stops at a limit: the run was cut short and its answer is partial."""



def add_usage(current: Mapping[str, Any] | None, update: Mapping[str, Any]) -> TokenCount:
    """Sum token usage; the total is an estimate if any part of it was."""
    current = current or {}
    return {
        "input_tokens": current.get("input_tokens", 0) + update.get("input_tokens", 0),
        "output_tokens": current.get("output_tokens", 0) + update.get("output_tokens", 0),
        "total_tokens": current.get("total_tokens", 0) + update.get("total_tokens", 0),
        "estimated": bool(current.get("estimated") or update.get("estimated")),
    }


def sum_usage(usages: Iterable[Mapping[str, Any]]) -> TokenCount:
    """The sum of several calls' usage (``add_usage`` folded)."""
    total = add_usage(None, {})
    for usage in usages:
        total = add_usage(total, usage)
    return total



class Action(TypedDict, total=False):
    """One tool call the model asked for; ``rejection`` set means act reports it instead of running it."""

    id: str
    tool: str
    args: dict[str, Any]
    index: int
    rejection: str
    rejection_kind: str  # an ErrorKind's value
    answered: str  # an answer the agent gives itself (an ask_user question about its tools): act reports it, nothing runs


def normalise(value: Any) -> Any:
    """Arguments as compared for stall detection (and by the ``repeated_plan`` check): case, spacing and key order do not matter."""
    if isinstance(value, str):
        return " ".join(value.lower().split())
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    return value


def compared_call(action: Mapping[str, Any]) -> list[Any]:
    """A call as the stall rule compares calls (and ``answered_again`` finds one made before): its tool and its
    arguments ``normalise``d."""
    args = action.get("args")
    return [action.get("tool"), normalise(args if isinstance(args, dict) else {})]


def runs(action: Action) -> bool:
    """Whether act runs ``action``'s tool (it reports a rejection or the agent's own answer instead)."""
    return "rejection" not in action and "answered" not in action


class Outcome(TypedDict, total=False):
    """What running one Action produced (written by act, in the call's ToolMessage: ``graph.nodes._act.reported``)."""

    call_id: str
    index: int
    tool: str
    args: dict[str, Any]
    status: Literal["ok", "error"]
    error_kind: str | None  # an ErrorKind's value (a plain string: checkpoints need no enum type)
    error_type: str  # the exception class (or the error kind)
    failures: list[str]  # every failed attempt, also when a retry recovered
    ran: bool  # the tool itself was called (not a rejection, cache hit, unknown tool or ask_user)
    content: str
    value: Any  # what the tool returned when it was not text, as JSON data (tools.results.kept_value)
    direct: str  # how the call's result ends the run as its answer (return_direct, Command(goto=END)): graph._commands
    truncated: bool  # content is the ToolMessage's text, already cut to max_observation_tokens (act's ``reported``)
    duration: float
    retries: int
    middleware: list[str]  # the wrap_tool_call middleware the call went through (their names, outermost first)
    cached: bool
    trace: dict[str, Any]  # a sub-agent's whole run (a ReActTrace as JSON data; graph.subagents.delegate)
    usage: TokenCount  # a sub-agent's tokens (the parent run's too: observe counts them)


class Turn(TypedDict, total=False):
    """The current turn, as think records it, with what the run has counted up to it (tokens, the summary's
    reach): one record, so a turn writes it once, and a tool turn not even that: its record rides on its AI message;
    a turn without tool calls writes the ``current_turn`` channel (``current_turn`` reads the later). summarize adds
    its call (``ahead``); observe the tokens of the turn's other calls (a sub-agent's, a condensed observation's)."""

    run: int  # which of the thread's runs (its conversation's turns, the state's ``turn``) the turn is of
    iteration: int  # the run's model turns so far, this one counted
    thought: str  # the reasoning text of the turn
    actions: list[Action]  # the tool calls of the turn; act runs one task per call
    started: float  # when the turn started (time.time(); observe computes the step's duration)
    format: str | None  # the tool-calling format the turn used (observe puts it on the step)
    written: str | None  # the model's own reply text when the calls were read from it, else None
    answer: str  # the final answer (or give-up) the turn gave that was sent back to be checked (a check step)
    checks: list[dict[str, Any]]  # the reply checks that acted on the turn's reply (graph.checks.pipeline.record)
    usage: TokenCount  # usage of the turn's model call (the token budget projects the next call from it)
    calls: list[dict[str, Any]]  # the turn's model calls {purpose, token_usage}: those made ahead of it, think's own, typing the answer
    tokens: TokenCount  # the run's tokens so far, every call counted up to this record
    summarized_through: int  # the last iteration the running summary covers
    ahead: list[dict[str, Any]]  # calls made for the next turn before it starts (a summary's, the conversation's fold)
    left_out: list[str]  # the images (or other media) the turn's text-only prompt left out (graph._scratchpad.left_out)


class ToolStats(TypedDict, total=False):
    """What the run's tool calls add up to, after a turn: on the turn's trace step (``stats``), which observe
    writes anyway, so the statistics cost no write of their own."""

    usage: dict[str, int]  # how often each tool ran
    failures: dict[str, int]  # failures per tool in this run (the circuit breaker reads it)
    stall: dict[str, Any]  # consecutive repeats of the same action / observation signature


class Termination(TypedDict, total=False):
    """Why the run stopped: reason, human detail, the limit and the observed value (made by ``stopped``)."""

    reason: TerminationReason
    detail: str
    limit: Any
    observed: Any


def stopped(reason: TerminationReason, detail: str, limit: Any = None, observed: Any = None) -> Termination:
    """The termination for ``reason``, its value kept as the plain string (a checkpoint needs no enum type)."""
    return {"reason": TerminationReason(reason).value, "detail": detail, "limit": limit, "observed": observed}  # type: ignore[typeddict-item]


class TokenCount(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    estimated: bool


TURN_KEY = "turn"  # where a tool turn's AI message keeps the turn's record, in its response_metadata


def with_turn(message: AIMessage, turn: Turn) -> AIMessage:
    """A tool turn's AI message (its text is the turn's thought) carrying the rest of the turn's record."""
    record = {k: v for k, v in turn.items() if k != "thought"}
    return message.model_copy(update={"response_metadata": {**message.response_metadata, TURN_KEY: record}})


def current_turn(state: Mapping[str, Any]) -> Turn:
    """The current turn's record (empty before the first): the one the chat's last AI message carries (a tool
    turn's, ``with_turn``) when it is of a later run or iteration than the ``current_turn`` channel's (a turn
    without tool calls, and what summarize, observe, a hook or terminate wrote since), else the channel's."""
    kept: Turn = state.get("current_turn") or Turn()
    for message in reversed(state.get("messages") or ()):
        if isinstance(message, AIMessage):
            carried = message.response_metadata.get(TURN_KEY)
            if carried is None or _place(carried) <= _place(kept):
                return kept
            # a plain str: pydantic refuses a str subclass (message.text's) that holds a lone surrogate
            return {**carried, "thought": str(message.text)}
    return kept


def _place(turn: Mapping[str, Any]) -> tuple[int, int]:
    return turn.get("run", 0), turn.get("iteration", 0)


def tokens_used(state: Mapping[str, Any]) -> TokenCount:
    """The run's tokens so far: the current turn's count while the run goes on; the total terminate wrote once it
    ended (``token_usage``, what the graph's output shows)."""
    turn = current_turn(state)
    if state.get("finished_at") or "tokens" not in turn:
        return state.get("token_usage") or TokenCount()
    return turn["tokens"]


def summarized_through(state: Mapping[str, Any]) -> int:
    """The last iteration the running summary covers (0: none)."""
    return current_turn(state).get("summarized_through", 0)


def tool_stats(state: Mapping[str, Any]) -> ToolStats:
    """The run's tool statistics: the newest step's that has them (observe's; empty before the first tool turn)."""
    for step in reversed(state.get("steps") or []):
        if "stats" in step:
            return step["stats"]
    return {}


def iteration_of(state: Mapping[str, Any]) -> int:
    """The run's model turns so far (the current turn's iteration; 0 before the first). A run checkpointed before
    turns had their record: its last step's."""
    if (turn := current_turn(state)) or "current_turn" in state:
        return turn.get("iteration", 0)
    steps = state.get("steps") or []
    return steps[-1]["iteration"] if steps else 0
