"""A process that changes a playbook many times, for the playbook's cross-process tests and benchmark.

    python -m tests.adversarial.playbook_worker DB NAME BULLET_ID COUNT [START_DIR]

With START_DIR, it writes START_DIR/ready-<pid> once its store is open and waits for START_DIR/go, so that all
the workers change the playbook at the same time. Counts COUNT runs (each its own source) for the bullet BULLET_ID, one ``merge`` each, and teaches the same new
bullet once (every worker teaches it: it must be stored once). DB is a checkpoint file (the playbook is the
playbook.sqlite beside it) or a postgresql:// URL.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from reactgraph.persistence import open_store
from reactgraph.playbook import Playbook, close_store, playbook_store
from reactgraph.playbook.bullets import Bullet

WAIT_LIMIT = 120.0  # seconds a worker waits for the others to be ready


def main() -> int:
    db, name, bullet_id, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    runs = open_store(db)
    store = playbook_store(runs)
    book = Playbook(store, name)
    me = os.getpid()
    if len(sys.argv) > 5:
        start = Path(sys.argv[5])
        (start / f"ready-{me}").touch()
        deadline = time.monotonic() + WAIT_LIMIT
        while not (start / "go").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    try:
        for n in range(count):
            book.merge([], shown=[bullet_id], source=f"run-{me}-{n}", good=True)
        shared = Bullet(content="lookup(key=…) failed every time (timeout); the run gave up.", section="pitfalls",
                        tool_sequence=["lookup"], harmful_count=1, sources=[f"run-{me}-shared"])
        book.merge([shared])
    finally:
        close_store(store)
        runs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
