"""How the state's channels fold their writes: the reducers of the trace, the chat (stable message ids, removals)
and the outcomes, and the ``DoublingDeltaChannel`` that keeps the bytes a checkpoint stores flat."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from operator import attrgetter
from types import MemberDescriptorType
from typing import Any

from langchain_core.messages import (
    BaseMessage,
    BaseMessageChunk,
    RemoveMessage,
    convert_to_messages,
)
from langgraph.channels.delta import DeltaChannel
from langgraph.graph.message import add_messages


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


def merge_outcomes(current: list | None, update: list) -> list:
    """Append to a list that a node resets with Overwrite (a turn's middleware hooks)."""
    return (current or []) + update



class DoublingDeltaChannel(DeltaChannel):
    """A ``DeltaChannel`` whose whole value (a snapshot) is stored once the writes since the last one outnumber the
    items that one held (``snapshot_frequency`` is ``max(floor, len(value) // 2)``, read by LangGraph each time it
    makes a checkpoint), and not before ``floor`` writes: the snapshots of a run of n writes hold about 2n items in
    all, not n²/(2 x the cadence) as at a fixed cadence, so the bytes stored per turn stay flat however long the run;
    a read replays at most as many writes as the value has items (decoding a snapshot costs about what replaying
    its items' writes does: ``benchmarks/results/bookkeeping.md``, issue 45)."""

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
