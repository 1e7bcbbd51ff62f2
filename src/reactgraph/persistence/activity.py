"""What the checkpoints cannot say about a run: that it is running now, and why it failed.

A run's checkpoints show where it stands after each step, not whether a process is driving it, nor the exception
that stopped it (a model server gone, a database error, a bug). So every drive of a run (run, resume, fork, stream,
in any process) writes a row to a table beside the checkpoints (``reactgraph_runs``) while it goes:

- ``running``, with its owner (host, pid and the process's start time, so a later process given the same pid is
  not taken for it), from the drive's start;
- deleted when the drive ends (the checkpoints then say how the run stands: finished, waiting), or when it is
  interrupted (Ctrl-C, a cancelled task: the run is resumable, ``interrupted``);
- ``failed``, with the error, when an exception ends it. A queued run that fails before it starts (its tools do
  not load) is recorded the same way, with its question, though it has no checkpoint.

``runs`` reads a ``running`` row whose owner is gone (a killed process on this host) as ``interrupted``; a row of
this process counts while a drive of the thread is going on here (``driving``), so a row a locked database kept
from being updated does not outlive the drive. An owner on another host cannot be checked from here: its run shows
``running`` until it ends or another process resumes it.
"""

from __future__ import annotations

import os
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

MAX_ERROR_CHARS = 2000  # the error kept of a failed run (the start of its message)
_DRIVING: Counter[str] = Counter()  # the threads this process drives now (a drive in a drive counts twice)
_LOCK = threading.Lock()


@contextmanager
def driving(thread_id: str) -> Iterator[None]:
    """This process drives ``thread_id`` while the block runs."""
    with _LOCK:
        _DRIVING[thread_id] += 1
    try:
        yield
    finally:
        with _LOCK:
            _DRIVING[thread_id] -= 1
            if _DRIVING[thread_id] <= 0:
                del _DRIVING[thread_id]


@dataclass(frozen=True)
class Activity:
    """A row of ``reactgraph_runs``: the run on ``thread_id`` is running (by ``owner``) or failed (with ``error``)."""

    thread_id: str
    state: str  # 'running' or 'failed'
    question: str | None
    owner: str  # 'host:pid:start' of the process that drives or drove it
    since: float  # when the drive started (running) or failed (failed), epoch seconds
    error: str | None = None

    @property
    def running(self) -> bool:
        """Whether the run is being driven now: a running row whose owner is alive (``owner_alive``); when the owner
        is this process, while it drives the thread."""
        if self.state != "running":
            return False
        if self.owner == this_owner():
            with _LOCK:
                return self.thread_id in _DRIVING
        return owner_alive(self.owner)


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from /proc); '?' where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"


_OWNERS: dict[int, str] = {}


def this_owner() -> str:
    """This process as an owner: host, pid, start time."""
    pid = os.getpid()  # a forked child is another owner
    if pid not in _OWNERS:
        _OWNERS[pid] = f"{socket.gethostname()}:{pid}:{process_start(pid)}"
    return _OWNERS[pid]


def owner_alive(owner: str) -> bool:
    """Whether the process ``owner`` names still runs: on this host, its pid with the same start time; on another
    host it cannot be told, and counts as running."""
    host, pid, start = owner.rsplit(":", 2)
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        pass
    return start == "?" or process_start(int(pid)) == start


def error_text(exc: BaseException) -> str:
    """The error a failed run keeps: the exception's type and message (cut to MAX_ERROR_CHARS)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."
