"""The typed state that flows through the graph, with its reducers, and the check of what a caller sends
(``checked_query``: where the input enters, in ``ReActAgent``'s methods and in think for the served graph).

The trace (``steps``) and the error history are ``DeltaChannel``s: each checkpoint
stores only the new entries, so checkpoint bytes grow with the run, not its square.

The state's schema is here; its parts are this package's own modules: ``_records`` (how a run ended, a call, its
outcome, a turn, the tokens, and the readers of the current turn), ``_reducers`` (how the channels fold their
writes), ``_input`` (the checks of what a caller sends). Every name is imported from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, get_origin, get_type_hints

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.types import Overwrite
from typing_extensions import (
    TypedDict,  # pydantic (the server's schemas) needs it on Python < 3.12
)

from reactgraph.state._input import (
    InvalidInputError,
    checked_query,
    checked_question,
    checked_text,
    checked_thread_id,
    run_input,
)
from reactgraph.state._records import (
    LIMIT_REASONS,
    TURN_KEY,
    Action,
    Outcome,
    Termination,
    TerminationReason,
    TokenCount,
    ToolStats,
    Turn,
    add_usage,
    compared_call,
    current_turn,
    iteration_of,
    normalise,
    runs,
    stopped,
    sum_usage,
    summarized_through,
    tokens_used,
    tool_stats,
    with_turn,
)
from reactgraph.state._reducers import (
    DoublingDeltaChannel,
    add_message_batches,
    append_batches,
    merge_batches,
    merge_outcomes,
    merged,
    message_lists_added,
)

# The chat's channel. A tool turn writes the chat twice (think's calls, act's results) and the trace once: neither is
# stored whole before about 500 turns (up to there a read replaying every write is no slower than one decoding a
# snapshot: issue 45's measures), then whenever its writes since the last snapshot outnumber that one's items.
Chat = Annotated[list[AnyMessage], DoublingDeltaChannel(add_message_batches, snapshot_frequency=1000)]


class InputState(TypedDict, total=False):
    """What a caller sends: chat ``messages`` (Studio's chat view) or a plain ``query``."""

    messages: Chat
    query: str


class OutputState(TypedDict, total=False):
    """What a finished run returns."""

    # The chat: the question, each turn's tool calls (think, with the turn's record: ``with_turn``) and results
    # (act, cut like the trace's observations; the rest of each call's outcome is its ToolMessage's artifact, which
    # observe reads), and the answer (terminate); a DeltaChannel, so checkpoints grow with the run.
    messages: Chat
    # think (the model's answer) or terminate (a partial answer at a limit).
    final_answer: str | None
    # think (the model's own stop) or observe (a limit, a callback, a cancel): why the run ended,
    # decided once; the router and terminate read it.
    termination: Termination | None
    # observe (a tool turn, with the run's tool statistics after it: ``tool_stats``) and terminate (the last).
    steps: Annotated[list[dict], DoublingDeltaChannel(append_batches, snapshot_frequency=500)]
    summary: str
    # terminate: the run's tokens, every model call counted (while it runs: ``tokens_used``, the current turn's count).
    token_usage: TokenCount
    # terminate: how likely the answer is right, in [0, 1] (None without an answer), and the signals
    # behind it, {name: {effect, detail}} (reactgraph.answers.confidence); think resets them for a new run.
    confidence: float | None
    confidence_signals: dict[str, dict[str, Any]]
    # think (the final answer) or terminate (a partial answer), with an output schema: the answer read
    # into it, as plain JSON data (the schema's class is never stored); None without one or a fit.
    output: dict[str, Any] | None
    # think: the playbook block shown in this run's prompt {block, bullets (their ids)}; None when off.
    playbook: dict[str, Any] | None
    # think: which turn of the thread's conversation this is (1 for a thread's first question).
    turn: int
    # terminate: every finished turn of the conversation, oldest first (graph.conversation.turn_record:
    # question, answer, reason, steps, tokens ...); a DeltaChannel, so checkpoints grow with the new turn only.
    turns: Annotated[list[dict], DeltaChannel(append_batches)]


def typed_output_state(schema: type) -> type:
    """OutputState with ``output`` typed as ``schema``: the graph's output JSON schema (the server's,
    Studio's) shows the answer's fields. Only the schema says so: the state holds plain data."""
    fields = get_type_hints(OutputState, include_extras=True) | {"output": schema | None}
    return TypedDict("OutputState", fields, total=False)  # type: ignore[operator]


class ReActState(InputState, OutputState, total=False):
    """The whole state. Comments say which node writes each field. The run's fields (question, steps,
    iteration, token_usage ...) are the current turn's; ``turns`` and the conversation's notes span the thread."""

    # summarize: the notes on the earlier turns folded out of the prompt (graph.conversation).
    conversation_summary: str
    # summarize (think, for new_conversation): how many of ``turns``, the oldest, are in the notes or not shown.
    folded_turns: int

    # think: final answers in this run that did not fit the output schema (max_output_retries ends the run).
    output_failures: int
    # think: final answers of this turn sent back to be checked with a tool (answer_checks bounds them).
    answer_checks: int
    # think: the question, fixed at the first turn (from query or the last human message).
    question: str
    # think: the id of the human message the question came from (None for a query).
    question_message: str | None
    # think: wall-clock start of the run (time.time()).
    started_at: float
    # think: the current turn (its iteration, thought, tool calls, start, format, usage, model calls) and the run's
    # counts (tokens, the summary's reach), for a turn without tool calls (a tool turn's record rides on its AI
    # message: read it with ``current_turn``, which takes the later); summarize (its reach, its call), observe (when
    # the turn's tool calls spent tokens), a hook (answering the turn's calls, or keeping the record its messages
    # would move) and terminate (the run's last record, when it was on a message) rewrite it.
    current_turn: Turn
    # think: consecutive replies that could not be read (max_parse_retries ends the run).
    parse_failures: int
    # think: the run's tool-calling format for the next turn (native, text, json); tool_calling="auto"
    # moves it from native to text once the model writes its calls as text.
    tool_format: str | None
    # the middleware's hook nodes (graph.nodes.hook) append each run {hook, changed, jump_to}; observe and
    # terminate put them on the step they write and clear the list.
    hooks: Annotated[list[dict], merge_outcomes]
    # observe: every tool failure {tool, error, error_type, retries, recovered, timestamp}.
    errors: Annotated[list[dict], DeltaChannel(append_batches)]
    # act: results of cacheable tools in this run, by call_key(tool, args); route_after_think hands
    # a hit to the act task instead of running the tool again. think resets it for a new run.
    tool_cache: Annotated[dict[str, str], DeltaChannel(merge_batches)]
    # terminate: True when a limit cut the run short and the answer is partial.
    partial: bool
    # terminate: wall-clock end of the run.
    finished_at: float


# the keys whose writes a reducer folds in (a write adds to the value instead of replacing it)
ACCUMULATING = frozenset(k for k, hint in get_type_hints(ReActState, include_extras=True).items() if get_origin(hint) is Annotated)
IMMUTABLE = (str, int, float, bool, type(None), tuple, frozenset)
ALWAYS_WRITTEN = frozenset({"current_turn"})  # a turn is its own, also when it says what the last one did
# The run's outcome is in terminate's update, as a client streaming updates reads it, also when think set it first.
OUTCOME = frozenset({"final_answer", "termination", "partial"})


def changes(state: Mapping[str, Any], update: Any, keep: frozenset[str] = ALWAYS_WRITTEN) -> Any:
    """``update`` (a node's dict) without the writes that would leave the state as it is: a value the key
    already holds, an ``Overwrite`` with it, nothing added to an accumulating key, an empty value (None, 0, False,
    "", {}, []) for a key never written (a new run's reset on a new thread: every reader takes the key's absence
    for its empty value); the keys in ``keep`` are written as given. Only for a node that runs alone in its step
    (there an ``Overwrite`` races no other task's write); anything but a dict is returned as is."""
    if not isinstance(update, dict):
        return update
    return {k: v for k, v in update.items() if k in keep or not _idle(state, k, v)}


def _idle(state: Mapping[str, Any], key: str, value: Any) -> bool:
    if isinstance(value, Overwrite):
        return _same(state[key], value.value) if key in state else _empty(value.value)
    if key in ACCUMULATING:
        return isinstance(value, list | dict) and not value
    return _same(state[key], value) if key in state else _empty(value) and not (key == "final_answer" and value == "")


def _empty(value: Any) -> bool:
    """None, 0, False, "", {} or []: what a key that was never written reads as (but an answer "" is an answer)."""
    return value is None or (type(value) in (int, bool, str, list, dict) and not value)


def _same(old: Any, new: Any) -> bool:
    """Equal, and not one mutable object that a node may have changed in place (its write then kept)."""
    return old == new and (old is not new or isinstance(new, IMMUTABLE))

__all__ = ["ACCUMULATING", "ALWAYS_WRITTEN", "Action", "Chat", "DoublingDeltaChannel", "IMMUTABLE", "InputState", "InvalidInputError", "LIMIT_REASONS", "OUTCOME", "Outcome", "OutputState", "ReActState", "TURN_KEY", "Termination", "TerminationReason", "TokenCount", "ToolStats", "Turn", "add_message_batches", "add_usage", "append_batches", "changes", "checked_query", "checked_question", "checked_text", "checked_thread_id", "compared_call", "current_turn", "iteration_of", "merge_batches", "merge_outcomes", "merged", "message_lists_added", "normalise", "run_input", "runs", "stopped", "sum_usage", "summarized_through", "tokens_used", "tool_stats", "typed_output_state", "with_turn"]
