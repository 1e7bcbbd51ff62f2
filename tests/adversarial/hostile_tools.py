"""Module-level tools that fight their isolation (a worker process imports them by module and name). Each
records what it managed in files the test reads, and never harms the machine when the attack is stopped."""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sqlite3
import time

from tests.unit.isolated_tools import me

PR_SET_CHILD_SUBREAPER = 36


def escape(pids: str, new_session: bool) -> None:
    """Stop being the subreaper, then double-fork a process (in a session of its own with ``new_session``) that is
    re-parented away from the worker and outlives the call; its name is noted in ``pids``."""
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 0)
    child = os.fork()
    if child == 0:
        if new_session:
            os.setsid()
        if os.fork() == 0:
            with open(pids, "a") as out:
                out.write(f"{me()}\n")
            time.sleep(120)
        os._exit(0)
    os.waitpid(child, 0)
    while not os.path.exists(pids):
        time.sleep(0.01)


def daemonize(pids: str) -> str:
    """Double-fork a daemon in a session of its own that outlives the call."""
    escape(pids, new_session=True)
    return "daemon started"


def orphan(pids: str) -> str:
    """Double-fork a child that stays in the worker's session and outlives the call."""
    escape(pids, new_session=False)
    return "orphan started"


def raise_limit_and_hog(megabytes: int) -> str:
    """Raise its own memory limit (soft and hard) to unlimited, then hold ``megabytes`` MiB."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        raised = "raised"
    except (ValueError, OSError) as exc:
        raised = f"not raised ({exc})"
    held = [bytes(1 << 20) for _ in range(megabytes)]
    return f"limit {raised}; held {len(held)} MiB"


def signal_agent(agent_pid: int) -> str:
    """Send SIGTERM to the agent's process."""
    try:
        os.kill(agent_pid, signal.SIGTERM)
    except OSError as exc:
        return f"refused: {exc}"
    return "sent"


def vandalize(db: str) -> str:
    """Open the agent's checkpoint file and delete every checkpoint."""
    with sqlite3.connect(db, timeout=5) as conn:
        deleted = conn.execute("DELETE FROM checkpoints").rowcount
    return f"deleted {deleted} checkpoints"


def read_environment() -> str:
    """Everything of the environment the tool can find: its own, its start-up copy, and every process's it can see."""
    found = [repr(dict(os.environ))]
    for pid in ["self", *filter(str.isdigit, os.listdir("/proc"))]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                found.append(environ.read().decode(errors="replace"))
        except OSError:
            continue
    return "\n".join(found)

