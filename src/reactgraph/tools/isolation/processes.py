"""The processes under a worker process, from Linux's /proc: to count them, and to see them gone."""

from __future__ import annotations

import os
import time


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (its children's children too)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{parent}/task/{thread}/children") as listing:
                    children = [int(child) for child in listing.read().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


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
