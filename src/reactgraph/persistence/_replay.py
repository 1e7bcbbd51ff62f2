"""A thread's checkpoints read once and served from memory (``LoadedThread``), so that reading a run's past
costs one forward pass, not a pass per checkpoint.

LangGraph rebuilds a ``DeltaChannel`` (the trace, the chat) at a checkpoint by asking the saver for the
writes since the nearest stored value (``get_delta_channel_history``); asked for every checkpoint of a run,
that rereads the run's start each time (quadratic). Here each checkpoint's value is its parent's value with
the parent's writes folded in, computed once per checkpoint and kept, which is what the saver's answer
amounts to (the reducers are batching-invariant, as ``DeltaChannel`` requires). A ``DeltaChannel`` also stores its
whole value every ``snapshot_frequency`` updates; the read leaves those blobs encoded (``deferring_snapshots``) and
decodes one only where the parent's value and writes cannot stand in for it (a fork, a run with
``durability="exit"``, a parent the list lacks), so the read stays linear in the run's length (decoding each
snapshot of the chat costs its square)."""

from __future__ import annotations

import copy
import gc
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.channels.base import BaseChannel
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, get_checkpoint_id
from langgraph.checkpoint.serde.base import maybe_add_typed_methods
from langgraph.checkpoint.serde.jsonplus import EXT_DELTA_SNAPSHOT, JsonPlusSerializer


class LoadedThread(BaseCheckpointSaver):
    """The checkpoints of one thread's root namespace, as ``saver.list`` gave them in one read; a read-only
    saver, for ``graph.copy({"checkpointer": ...}).get_state_history``."""

    def __init__(self, tuples: Sequence[CheckpointTuple], channels: Mapping[str, Any]) -> None:
        super().__init__()
        self._newest_first = sorted(tuples, key=checkpoint_id, reverse=True)
        self._by_id = {checkpoint_id(t): t for t in tuples}
        self._specs = {k: v for k, v in channels.items() if isinstance(v, BaseChannel)}
        self._channels: dict[tuple[str, str], BaseChannel] = {}  # (checkpoint id, name) -> the channel there
        self._children = Counter(parent_id(t) for t in tuples)
        # snapshot blobs left encoded, taken out of channel_values (LangGraph then asks get_delta_channel_history);
        # one of a channel the graph does not have as a DeltaChannel is decoded where it is
        self._deferred: dict[tuple[str, str], DeferredSnapshot] = {}
        for item in tuples:
            values = item.checkpoint["channel_values"]
            for name in [k for k, v in values.items() if type(v) is DeferredSnapshot]:
                if isinstance(self._specs.get(name), DeltaChannel):
                    self._deferred[(checkpoint_id(item), name)] = values.pop(name)
                else:
                    values[name] = values[name].decoded()

    @classmethod
    def read(cls, saver: BaseCheckpointSaver, thread_id: str, channels: Mapping[str, Any]) -> LoadedThread:
        """Every checkpoint of ``thread_id`` (root namespace) with its pending writes, in one ``list`` call."""
        reader = deferring_snapshots(saver)
        return cls(list(reader.list({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})), channels)

    def branch(self) -> list[str]:
        """The ids of the latest checkpoint and of its ancestors in the thread, newest first."""
        ids: list[str] = []
        current = checkpoint_id(self._newest_first[0]) if self._newest_first else None
        while current in self._by_id:
            ids.append(current)
            current = parent_id(self._by_id[current])
        return ids

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        wanted = get_checkpoint_id(config)
        if wanted is None:
            return self._newest_first[0] if self._newest_first else None
        return self._by_id.get(wanted)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        bound = get_checkpoint_id(before) if before else None
        found = 0
        for item in self._newest_first:
            if limit is not None and found >= limit:
                return
            if bound is not None and checkpoint_id(item) >= bound:
                continue
            if filter and any((item.metadata or {}).get(k) != v for k, v in filter.items()):
                continue
            found += 1
            yield item

    def get_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Mapping[str, Any]:
        """Each channel's value at the checkpoint as the seed, with no writes left to replay."""
        target = self.get_tuple(config)
        out: dict[str, Any] = {}
        for name in channels:
            channel = self._channel(checkpoint_id(target), name) if target else None
            out[name] = {"seed": channel.get(), "writes": []} if channel and channel.is_available() else {"writes": []}
        return out

    def _channel(self, cid: str, name: str) -> BaseChannel:
        """The channel ``name`` as it stands at checkpoint ``cid``: restored from the stored value (a deferred
        snapshot only where ``_derivable`` does not say the parent's can stand in for it), else the parent's with the
        parent's writes applied; each checkpoint's built once, walking forward from the nearest one known."""
        spec = self._specs[name]
        path: list[str] = []
        current: str | None = cid
        while current is not None and (current, name) not in self._channels:
            path.append(current)
            if self._restored(current, name):
                break
            current = parent_id(self._by_id[current])
            if current is not None and current not in self._by_id:
                if (path[-1], name) in self._deferred:
                    break
                raise LookupError(f"checkpoint {path[-1]} has a parent, {current}, that the thread's list did not give")
        for here in reversed(path):
            values, parent = self._by_id[here].checkpoint["channel_values"], parent_id(self._by_id[here])
            if name in values:
                channel = spec.from_checkpoint(values[name])
            elif (here, name) in self._deferred and (self._restored(here, name) or (parent, name) not in self._channels):
                channel = spec.from_checkpoint(self._deferred[(here, name)].decoded())
            elif parent is not None:
                channel = self._channels[(parent, name)]
                if writes := [w for w in self._by_id[parent].pending_writes or [] if w[1] == name]:
                    channel = applied(channel, writes)
            else:
                channel = spec.from_checkpoint(spec.checkpoint())  # a pristine channel's checkpoint: nothing stored
            self._channels[(here, name)] = channel
        return self._channels[(cid, name)]

    def _restored(self, cid: str, name: str) -> bool:
        """Whether the channel at ``cid`` is its stored value: a plain one, or a deferred snapshot that is not
        ``_derivable``."""
        if name in self._by_id[cid].checkpoint["channel_values"]:
            return True
        return (cid, name) in self._deferred and not self._derivable(cid, name)

    def _derivable(self, cid: str, name: str) -> bool:
        """Whether a delta snapshot of ``name`` at ``cid`` is its parent's value with the parent's writes applied:
        one step of the loop after a parent in the thread that has no other child and holds a write to ``name``
        (the write that brought the channel to its snapshot). Otherwise LangGraph stored the snapshot because the
        parent's writes are not all this checkpoint's: a fork; a run from a checkpoint that was not the latest; a
        run with ``durability="exit"``, whose steps between two checkpoints leave no writes."""
        item = self._by_id[cid]
        parent = parent_id(item)
        if (item.metadata or {}).get("source") != "loop" or parent not in self._by_id or self._children[parent] != 1:
            return False
        before = self._by_id[parent]
        if (item.metadata or {}).get("step") != (before.metadata or {}).get("step", -2) + 1:
            return False
        return any(w[1] == name for w in before.pending_writes or [])


class DeferredSnapshot:
    """A ``DeltaChannel`` snapshot blob as read, decoded only when asked (``decoded``, LangGraph's own decoding)."""

    __slots__ = ("_data", "_decode")

    def __init__(self, data: bytes, decode: Callable[[int, bytes], Any]) -> None:
        self._data, self._decode = data, decode

    def decoded(self) -> Any:
        return self._decode(EXT_DELTA_SNAPSHOT, self._data)


def deferring_snapshots(saver: BaseCheckpointSaver) -> BaseCheckpointSaver:
    """A shallow clone of ``saver`` whose serde leaves each ``DeltaChannel`` snapshot blob encoded
    (``DeferredSnapshot``) and decodes the rest as ``saver`` does; ``saver`` itself when its serde is not
    LangGraph's ``JsonPlusSerializer`` with its msgpack hook (``_unpack_ext_hook``, which its own
    ``with_msgpack_allowlist`` replaces the same way). The clone is made as LangGraph's ``with_allowlist`` makes one."""
    serde = saver.serde
    decode = getattr(serde, "_unpack_ext_hook", None)
    if not isinstance(serde, JsonPlusSerializer) or decode is None:
        return saver

    def hook(code: int, data: bytes) -> Any:
        return DeferredSnapshot(data, decode) if code == EXT_DELTA_SNAPSHOT else decode(code, data)

    deferring = copy.copy(serde)
    deferring._unpack_ext_hook = hook
    reader = copy.copy(saver)
    reader.serde = maybe_add_typed_methods(deferring)
    return reader


def applied(channel: BaseChannel, writes: Sequence[Any]) -> BaseChannel:
    """A new channel: ``channel`` with ``writes`` (pending writes, oldest first) applied as LangGraph replays
    them. A ``DeltaChannel``'s value is not copied: as in LangGraph's replay, the reducer is given the value and
    returns a new one."""
    if isinstance(channel, DeltaChannel):
        channel = channel.from_checkpoint(channel.get())
        channel.replay_writes(writes)
    else:
        channel = channel.copy()
        for _, _, value in writes:  # one update per write: they may span steps, each with an Overwrite
            channel.update([value])
    return channel


def checkpoint_id(item: CheckpointTuple) -> str:
    return item.config["configurable"]["checkpoint_id"]


def parent_id(item: CheckpointTuple) -> str | None:
    return item.parent_config["configurable"]["checkpoint_id"] if item.parent_config else None


class _Pause:
    """Who paused the collector: the first read in turns it off (when it was on), the last one out turns it back on,
    so reads in several threads never leave it off, nor turn it on under another's read."""

    lock = threading.Lock()
    readers = 0
    was_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a read that builds many objects and keeps them (a history's entries
    hold each step's state): its passes, set off by allocations, walk all the process holds, so over a long read they
    grow with the read's square. Back on after (if it was on before the first of the reads now running), when what
    the reads left unreachable is collected."""
    with _Pause.lock:
        if _Pause.readers == 0:
            _Pause.was_on = gc.isenabled()
            gc.disable()
        _Pause.readers += 1
    try:
        yield
    finally:
        with _Pause.lock:
            _Pause.readers -= 1
            if _Pause.readers == 0 and _Pause.was_on:
                gc.enable()
