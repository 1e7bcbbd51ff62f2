"""The tool of crash_worker.py, at module level so that a worker process can import it (``--isolated``).

Where it records its executions (``CRASH_SIDE``) and where it stops (``CRASH_BLOCK_AT``) come from the
environment, which the agent's process hands to a worker process with each call.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

VALUES = {"a": "A-VALUE", "b": "B-VALUE", "c": "C-VALUE", "d": "D-VALUE"}


def me() -> str:
    """This process as tests/unit/tools/isolation/isolated_tools.py names one: pid@pid-namespace@start time (a worker process has a
    PID namespace of its own)."""
    with open("/proc/self/stat") as stat:
        started = stat.read().rsplit(")", 1)[1].split()[19]
    return f"{os.getpid()}@{os.readlink('/proc/self/ns/pid')}@{started}"


def block(point: str) -> None:
    """At ``point`` (the block point asked for), write SIDE/blocked and wait there until the test kills the process."""
    if os.environ.get("CRASH_BLOCK_AT") == point:
        (Path(os.environ["CRASH_SIDE"]) / "blocked").write_text(point)
        while True:
            time.sleep(0.05)


def fetch(key: str) -> str:
    """Fetch the value stored under a key."""
    side = Path(os.environ["CRASH_SIDE"])
    with open(side / "pids", "a") as pids:
        pids.write(f"{me()}\n")
    if key == "b":
        block("mid_parallel_act")  # fetch(a) has finished, fetch(b) has not started its work
    if key == "c":
        block("before_act")  # think chose fetch(c); nothing of it has run
    with open(side / "executions.log", "a") as log:
        log.write(f"{key}\n")
        log.flush()
        os.fsync(log.fileno())
    return VALUES[key]
