"""A thread's checkpoints read once and served from memory (``LoadedThread``), so that reading a run's past
costs one forward pass, not a pass per checkpoint.

LangGraph rebuilds a ``DeltaChannel`` (the trace, the chat) at a checkpoint by asking the saver for the
writes since the nearest stored value (``get_delta_channel_history``); asked for every checkpoint of a run,
that rereads the run's start each time (quadratic). Here each checkpoint's value is its parent's value with
the parent's writes folded in, computed once per checkpoint and kept, which is what the saver's answer
amounts to (the reducers are batching-invariant, as ``DeltaChannel`` requires)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.channels.base import BaseChannel
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, get_checkpoint_id


class LoadedThread(BaseCheckpointSaver):
    """The checkpoints of one thread's root namespace, as ``saver.list`` gave them in one read; a read-only
    saver, for ``graph.copy({"checkpointer": ...}).get_state_history``."""

    def __init__(self, tuples: Sequence[CheckpointTuple], channels: Mapping[str, Any]) -> None:
        super().__init__()
        self._newest_first = sorted(tuples, key=checkpoint_id, reverse=True)
        self._by_id = {checkpoint_id(t): t for t in tuples}
        self._specs = {k: v for k, v in channels.items() if isinstance(v, BaseChannel)}
        self._channels: dict[tuple[str, str], BaseChannel] = {}  # (checkpoint id, name) -> the channel there

    @classmethod
    def read(cls, saver: BaseCheckpointSaver, thread_id: str, channels: Mapping[str, Any]) -> LoadedThread:
        """Every checkpoint of ``thread_id`` (root namespace) with its pending writes, in one ``list`` call."""
        return cls(list(saver.list({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})), channels)

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
        """The channel ``name`` as it stands at checkpoint ``cid``: restored from the stored value, else the
        parent's with the parent's writes applied; each checkpoint's built once, walking forward from the
        nearest one known."""
        spec = self._specs[name]
        path: list[str] = []
        current: str | None = cid
        while current is not None and (current, name) not in self._channels:
            path.append(current)
            if name in self._by_id[current].checkpoint["channel_values"]:
                break
            current = parent_id(self._by_id[current])
            if current is not None and current not in self._by_id:
                raise LookupError(f"checkpoint {path[-1]} has a parent, {current}, that the thread's list did not give")
        for here in reversed(path):
            item, parent = self._by_id[here], parent_id(self._by_id[here])
            values = item.checkpoint["channel_values"]
            if name in values:
                channel = spec.from_checkpoint(values[name])
            elif parent is None:
                channel = spec.from_checkpoint(spec.checkpoint())  # a pristine channel's checkpoint: nothing stored
            else:
                channel = self._channels[(parent, name)]
                if writes := [w for w in self._by_id[parent].pending_writes or [] if w[1] == name]:
                    channel = applied(channel.copy(), writes)
            self._channels[(here, name)] = channel
        return self._channels[(cid, name)]


def applied(channel: BaseChannel, writes: Sequence[Any]) -> BaseChannel:
    """``channel`` with ``writes`` (pending writes, oldest first) applied as LangGraph replays them."""
    if isinstance(channel, DeltaChannel):
        channel.replay_writes(writes)
    else:
        for _, _, value in writes:  # one update per write: they may span steps, each with an Overwrite
            channel.update([value])
    return channel


def checkpoint_id(item: CheckpointTuple) -> str:
    return item.config["configurable"]["checkpoint_id"]


def parent_id(item: CheckpointTuple) -> str | None:
    return item.parent_config["configurable"]["checkpoint_id"] if item.parent_config else None
