"""The typed state that flows through the graph, with its reducers, and the check of what a caller sends
(``checked_query``: where the input enters, in ``ReActAgent``'s methods and in think for the served graph).

The trace (``steps``) and the error history are ``DeltaChannel``s: each checkpoint
stores only the new entries, so checkpoint bytes grow with the run, not its square.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from operator import attrgetter
from types import MemberDescriptorType
from typing import Annotated, Any, Literal, get_origin, get_type_hints

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    RemoveMessage,
    convert_to_messages,
)
from langgraph.channels.delta import DeltaChannel
from langgraph.graph.message import add_messages
from langgraph.types import Overwrite
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


LIMIT_REASONS = frozenset(
    {TerminationReason.MAX_ITERATIONS, TerminationReason.STALLED, TerminationReason.TOKEN_BUDGET, TerminationReason.TIMEOUT}
)
"""The stops at a limit: the run was cut short and its answer is partial."""


def append_batches(state: list | None, batches: Sequence[list]) -> list:
    """DeltaChannel reducer: fold a batch of list writes onto the list (batching-invariant)."""
    out = list(state or [])
    for batch in batches:
        out.extend(batch)
    return out


def merge_batches(state: dict | None, batches: Sequence[dict]) -> dict:
    """DeltaChannel reducer: fold a batch of dict writes onto the dict (later keys win)."""
    out = dict(state or {})
    for batch in batches:
        out.update(batch)
    return out


def add_message_batches(state: list | None, batches: Sequence[Any]) -> list[BaseMessage]:
    """DeltaChannel reducer for the chat ``messages``: ``add_messages`` folded over each write (``merged``), into
    a new list. A message without an id gets one made from its place and content, not a random one: the channel
    is rebuilt by replaying the writes, and the question's message must keep its id (think compares it). A
    ``RemoveMessage`` naming such an id removes the message it was made for (``_removals``)."""
    out: list[BaseMessage] = state if isinstance(state, list) else list(state or [])
    for batch in batches:
        incoming = [_with_stable_id(m, len(out) + i) for i, m in enumerate(convert_to_messages(_as_list(batch)))]
        out = merged(out, _removals(out, incoming))
    return out if out is not state else list(out)


def _removals(chat: list[BaseMessage], incoming: list[BaseMessage]) -> list[BaseMessage]:
    """``incoming`` with each ``RemoveMessage`` that names a made-up id (``_with_stable_id``) the chat does not hold
    pointed at the message that id was made for (at its place, with its content), or left out when there is none.
    A client's message without an id has that id while the run's input is applied (what a router at the start
    sees) and another once it is saved."""
    if not any(isinstance(m, RemoveMessage) and (m.id or "").startswith("msg-") for m in incoming):
        return incoming
    ids = {m.id for m in chat}
    out = []
    for message in incoming:
        if isinstance(message, RemoveMessage) and message.id not in ids and (message.id or "").startswith("msg-"):
            place = (message.id or "").split("-")[1]
            held = chat[int(place)] if place.isdigit() and int(place) < len(chat) else None
            if held is None or held.id is None or _with_stable_id(held.model_copy(update={"id": None}), int(place)).id != message.id:
                continue
            message = RemoveMessage(id=held.id)
        out.append(message)
    return out


def message_lists_added(chat: list[BaseMessage], incoming: list[Any]) -> list[BaseMessage]:
    """LangGraph's ``add_messages`` on a list of messages and a list of messages or message-likes: a list of messages.
    (Its stubs take and give any ``Messages``, a list of them typed invariant, so a ``list[BaseMessage]`` is refused.)"""
    return add_messages(chat, incoming)  # type: ignore[arg-type,return-value]


def merged(chat: list[BaseMessage], incoming: list[BaseMessage]) -> list[BaseMessage]:
    """``add_messages(chat, incoming)``. Where that only appends (every message a plain one, neither a chunk nor a
    ``RemoveMessage``, each with an id, the incoming ones' new and distinct) the list is built with C's loops:
    ``add_messages`` indexes and checks the whole chat message by message in Python, so each write cost about
    80 us per 400 messages, at every step of a run and for every checkpoint a history reads. The ids of a chat
    built here pass on to the chat built onto it (``_CHAT_IDS``), so a write reads only the incoming messages' ids."""
    ids, new = _ids_of(chat), set(map(_ID, incoming))
    if ids is None or None in new or len(new) < len(incoming) or not ids.isdisjoint(new):
        return message_lists_added(chat, incoming)
    if not all(map(_plain, set(map(type, incoming)))):
        return message_lists_added(chat, incoming)
    ids.update(new)
    out = [*chat, *incoming]
    _CHAT_IDS.keep(out, ids)
    return out


class _ChatIds:
    """The message ids of the chats ``merged`` built last (a few: runs in other threads interleave theirs), each set
    handed on to the next chat built onto its chat (``take``), so a run's or a history's writes, each onto the chat
    before, never gather the ids of the whole chat again; a second chat built onto the same one gathers them.
    A chat is a new list at each write and is not changed in place; one that was (its length or last message
    not the ones kept) has its ids gathered again. Each entry holds its list, so its ``id()`` is not reused meanwhile."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._kept: dict[int, tuple[list, BaseMessage | None, set]] = {}
        self._lock = threading.Lock()

    def take(self, chat: list) -> set | None:
        """The ids kept for ``chat``, no longer kept (the caller adds to them), or None."""
        with self._lock:
            entry = self._kept.pop(id(chat), None)
        if entry is None or entry[0] is not chat or len(entry[2]) != len(chat) or entry[1] is not (chat[-1] if chat else None):
            return None
        return entry[2]

    def keep(self, chat: list, ids: set) -> None:
        with self._lock:
            self._kept[id(chat)] = (chat, chat[-1] if chat else None, ids)
            while len(self._kept) > self._size:
                del self._kept[next(iter(self._kept))]


_CHAT_IDS = _ChatIds()


def _ids_of(chat: list[BaseMessage]) -> set | None:
    """The ids of ``chat``'s messages (a set the caller may change), or None when one has none or is not a plain
    message."""
    if (ids := _CHAT_IDS.take(chat)) is not None:
        return ids
    ids = set(map(_ID, chat))
    return None if None in ids or not all(map(_plain, set(map(type, chat)))) else ids


_ID = attrgetter("id")


def _plain(cls: type) -> bool:
    """A message class ``add_messages`` keeps as it is and appends: not a chunk, not a ``RemoveMessage``."""
    return issubclass(cls, BaseMessage) and not issubclass(cls, BaseMessageChunk | RemoveMessage)


def _as_list(write: Any) -> list:
    return list(write) if isinstance(write, list | tuple) else [write]


def _with_stable_id(message: BaseMessage, position: int) -> BaseMessage:
    if message.id is not None:
        return message
    digest = hashlib.sha256(f"{position}\0{message.type}\0{message.content}".encode(errors="surrogatepass")).hexdigest()
    return message.model_copy(update={"id": f"msg-{position}-{digest[:12]}"})


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


def merge_outcomes(current: list | None, update: list) -> list:
    """Append to a list that a node resets with Overwrite (a turn's middleware hooks)."""
    return (current or []) + update


class Action(TypedDict, total=False):
    """One tool call the model asked for; ``rejection`` set means act reports it instead of running it."""

    id: str
    tool: str
    args: dict[str, Any]
    index: int
    rejection: str
    rejection_kind: str  # an ErrorKind's value
    answered: str  # an answer the agent gives itself (an ask_user question about its tools): act reports it, nothing runs


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
            return {**carried, "thought": message.text}
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


class InvalidInputError(TypeError):
    """A run's input has the wrong type; the message names the field."""


def checked_text(text: object, field: str) -> str:
    """``text`` when it is a string a database can store (one UTF-8 can hold); InvalidInputError naming ``field`` and
    what is wrong otherwise (a lone surrogate, as a non-UTF-8 command-line argument or a JSON escape becomes, is no
    text: SQLite, Postgres and the tracing clients refuse it)."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}: {text!r:.80}")
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{field} {text!r:.80} is not text UTF-8 can hold (a lone surrogate at position {exc.start})") from None
    return text


def checked_query(query: object) -> str | None:
    """``query`` when it is text (``checked_text``), or None (no query); InvalidInputError naming the field otherwise."""
    return None if query is None else checked_text(query, "query")


def checked_question(question: object) -> str:
    """A new turn's question: text (``checked_text``) with something in it; InvalidInputError otherwise (a blank
    question is no turn: it never asks the thread's last question again)."""
    if not checked_text(question, "query").strip():
        raise InvalidInputError(f"the question is blank ({question!r:.20}): ask something, or resume the thread to continue its run")
    return question  # type: ignore[return-value]


def run_input(question: object) -> dict[str, Any]:
    """A run's graph input for ``question``: a string as ``query``; a human message (a ``HumanMessage``, or a dict
    with its ``role``) or a list of content blocks (text, images ...: dicts with a ``type``) as the chat's new human
    message. InvalidInputError naming what was given otherwise."""
    if isinstance(question, str):
        return {"query": checked_question(question)}
    if isinstance(question, list) and question and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in question):
        return {"messages": [HumanMessage(content=question)]}
    if isinstance(question, BaseMessage) or (isinstance(question, dict) and ("role" in question or "type" in question)):
        try:
            message = convert_to_messages([question])[0]
        except (ValueError, TypeError, NotImplementedError) as exc:
            raise InvalidInputError(f"query: {exc}") from None
        if message.type == "human":
            return {"messages": [message]}
    raise InvalidInputError(
        f"query must be a string, got {type(question).__name__}: {question!r:.80} (or a human message, or a list of "
        "content blocks such as {'type': 'text', 'text': ...} and {'type': 'image', ...})"
    )


def checked_thread_id(thread_id: object) -> str:
    """``thread_id`` when it is text a database can store (a string UTF-8 can hold); InvalidInputError naming
    what is wrong otherwise (a lone surrogate, as a non-UTF-8 command-line argument becomes, is no text)."""
    if not isinstance(thread_id, str) or not thread_id:
        raise InvalidInputError(f"thread_id must be a non-empty string, got {type(thread_id).__name__}: {thread_id!r:.80}")
    return checked_text(thread_id, "thread_id")


class DoublingDeltaChannel(DeltaChannel):
    """A ``DeltaChannel`` whose whole value (a snapshot) is stored once the writes since the last one outnumber the
    items that one held (``snapshot_frequency`` is ``max(floor, len(value) // 2)``, read by LangGraph each time it
    makes a checkpoint), and not before ``floor`` writes: the snapshots of a run of n writes hold about 2n items in
    all, not n²/(2 x the cadence) as at a fixed cadence, so the bytes stored per turn stay flat however long the run;
    a read replays at most as many writes as the value has items (decoding a snapshot costs about what replaying
    its items' writes does: ``benchmarks/RESULTS.md``, issue 45)."""

    __slots__ = ()

    def __init__(self, reducer: Any, typ: type | None = None, *, snapshot_frequency: int = 100) -> None:
        super().__init__(reducer, typ, snapshot_frequency=snapshot_frequency)

    @property
    def snapshot_frequency(self) -> int:
        floor = _CADENCE.__get__(self)
        value = self.value
        return max(floor, len(value) // 2) if isinstance(value, list | dict) else floor

    @snapshot_frequency.setter
    def snapshot_frequency(self, floor: int) -> None:
        _CADENCE.__set__(self, floor)

    def copy(self) -> DoublingDeltaChannel:
        new = super().copy()
        _CADENCE.__set__(new, _CADENCE.__get__(self))  # the floor, not the cadence the value reached
        return new

    def from_checkpoint(self, checkpoint: Any) -> DoublingDeltaChannel:
        new = super().from_checkpoint(checkpoint)
        _CADENCE.__set__(new, _CADENCE.__get__(self))
        return new


_CADENCE: MemberDescriptorType = DeltaChannel.__dict__["snapshot_frequency"]  # the slot DeltaChannel keeps its cadence in: the floor, here

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
