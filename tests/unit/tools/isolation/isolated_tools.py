"""Module-level tools for the process-isolation tests: a worker process imports them by module and name.

Tools that must be watched from the test record their process id (and those of the processes they
start) in the file ``pids``, one a line, before they misbehave.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from langchain_core.tools import tool

from reactgraph.tools import InvalidArguments


def me(pid: int | None = None) -> str:
    """A process as the tests name it: its pid where it runs, its PID namespace (a worker has its own, where its
    server is pid 1) and its start time (a namespace's number is reused), ``pid@pid:[inode]@ticks``; ``pid``
    names a process this one started (same namespace)."""
    pid = pid or os.getpid()
    with open(f"/proc/{pid}/stat") as stat:
        started = stat.read().rsplit(")", 1)[1].split()[19]
    return f"{pid}@{os.readlink('/proc/self/ns/pid')}@{started}"


def note(pids: str, *more: int) -> None:
    with open(pids, "a") as out:
        out.write("".join(f"{me(pid)}\n" for pid in (os.getpid(), *more)))


def where(label: str) -> str:
    """Say which process and directory the call ran in, and the TOOL_NOTE environment variable."""
    return f"{label}: pid {me()}, cwd {os.getcwd()}, note {os.environ.get('TOOL_NOTE')}"


def served_by(label: str) -> str:
    """Say which process ran the call and which one it is a fork of (the worker that serves the calls)."""
    return f"{label}: pid {me()} of {me(os.getppid())}"


async def async_where(label: str) -> str:
    """Say which process the call ran in, after an await."""
    await asyncio.sleep(0)
    return f"{label} (async): pid {me()}"


@tool
def shout(text: str) -> str:
    """Shout the text."""
    return f"{text.upper()}! (pid {os.getpid()})"


class Counter:
    """A callable object at module level."""

    def __call__(self, step: int) -> str:
        """Count one step."""
        return f"counted {step} in pid {os.getpid()}"


counter = Counter()


def structured(n: int) -> dict:
    """A JSON result."""
    return {"n": n, "squares": [i * i for i in range(n)]}


def returns_a_set(n: int) -> set:
    """A result that is not JSON data."""
    return set(range(n))


def refuses(n: int) -> str:
    """Refuses odd numbers."""
    raise InvalidArguments(f"n must be even, got {n}")


def unreachable(attempts: str) -> str:
    """Cannot reach its service; counts its attempts in a file."""
    with open(attempts, "a") as out:
        out.write("attempt\n")
    raise ConnectionRefusedError(111, "Connection refused")


def missing(key: str) -> str:
    """Raises a KeyError."""
    raise KeyError(key)


def busy(pids: str) -> str:
    """Spin forever."""
    note(pids)
    while True:
        pass


def backtracking(pids: str) -> str:
    """A catastrophic regex: exponential backtracking inside the regex engine, which holds the GIL."""
    note(pids)
    return str(re.match(r"(a+)+$", "a" * 64 + "b"))


def exits(code: int) -> str:
    """Leave the process at once."""
    os._exit(code)


def segfault(pids: str) -> str:
    """Read address 0."""
    note(pids)
    return ctypes.string_at(0).decode()


def leaves_a_child(pids: str) -> str:
    """Start a process that outlives the call."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    note(pids, child.pid)
    return "started"


def hog(pids: str, megabytes: int) -> str:
    """Hold ``megabytes`` MiB, one MiB at a time."""
    note(pids)
    held = [bytes(1 << 20) + b"" for _ in range(megabytes)]
    return f"held {len(held)} MiB"


def chatter(kilobytes: int) -> str:
    """Write ``kilobytes`` KiB to stdout."""
    line = "x" * 1023 + "\n"
    for _ in range(kilobytes):
        sys.stdout.write(line)
    return "done"


def spin_cpu(pids: str, seconds: float) -> str:
    """Use ``seconds`` of CPU time."""
    note(pids)
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return f"spun {seconds}s"


def writes_file(path: str, megabytes: int) -> str:
    """Write a file of ``megabytes`` MiB."""
    with open(path, "wb") as out:
        for _ in range(megabytes):
            out.write(bytes(1 << 20))
    return f"wrote {Path(path).stat().st_size} bytes"


def forks(pids: str) -> str:
    """Fork in a loop; every child sleeps."""
    note(pids)
    while True:
        child = os.fork()
        if child == 0:
            time.sleep(120)
            os._exit(0)
        note(pids, child)


def garbled(n: int) -> str:
    """Raises with a message that is not valid UTF-8 (a lone surrogate)."""
    raise ValueError(f"byte {n} is \ud800")


def autogroup(n: int) -> str:
    """Its process's scheduling group (Linux's autogroup) and that group's nice."""
    return Path("/proc/self/autogroup").read_text().strip()
