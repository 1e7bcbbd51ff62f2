"""The processes under a worker process, from Linux's /proc: to count them, and to see them gone."""

from __future__ import annotations

import os
import time


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that still have it as their parent."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children") as listing:
                found += [int(child) for child in listing.read().split()]
        except OSError:
            continue
    return found


def session_members(sid: int) -> list[int]:
    """The processes of session ``sid`` (a worker's: those it started, and theirs, even once they left its tree)."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[3] == str(sid):  # state, ppid, pgrp, session
            found.append(int(entry))
    return found


def descendants(pid: int, at_most: int | None = None) -> list[int]:
    """The processes under ``pid`` (its children's children too); with ``at_most``, no more than that many (a count
    against a limit reads only what it needs, however many a fork loop has made)."""
    found: list[int] = []
    todo = [pid]
    while todo and (at_most is None or len(found) < at_most):
        below = children(todo.pop())
        found += below
        todo += below
    return found if at_most is None else found[:at_most]


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead and waiting to be reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_gone(pids: list[int], limit: float) -> bool:
    """Wait up to ``limit`` seconds until none of ``pids`` runs; whether none does."""
    deadline = time.monotonic() + limit
    while any(running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
