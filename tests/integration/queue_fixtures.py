"""What queued runs in the worker tests (and benchmarks/queue_throughput.py) run, importable by worker processes.

Submit with ``model="tests.integration.queue_fixtures:scripted_model"`` and
``tools="tests.integration.queue_fixtures:record,tests.integration.queue_fixtures:hold"``. The question
names the run ("Run r17: record the three keys."); the model's replies depend only on the prompt, so a
run resumed in another worker continues where it stopped: iteration 1 records keys a and b in parallel,
iteration 2 key c, iteration 3 answers "done r17". ``record`` appends "RUN KEY" to the file named by
``QUEUE_LOG`` (fsynced) for every execution, after ``QUEUE_TOOL_DELAY`` seconds (default 0). The
question "Hold rN: ..." calls ``hold`` instead, which waits until the file ``QUEUE_RELEASE`` exists.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage

from reactgraph.models.tokens import message_text
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls

SUMMARY_MARK = "You keep the running notes"
KEYS = ("a", "b", "c")


def reply(messages: list[BaseMessage]) -> str | AIMessage:
    """The next reply of the run named in the prompt, after ``QUEUE_MODEL_DELAY`` seconds (default 0: a real model's wait)."""
    time.sleep(float(os.environ.get("QUEUE_MODEL_DELAY", "0")))
    text = "\n".join(message_text(m) for m in messages)
    if SUMMARY_MARK in text:
        return "Notes: recording keys."
    run = re.search(r"(?:Run|Hold) (r\d+)", text).group(1)
    if f"Hold {run}" in text:
        return f"held {run}" if f"HELD {run}" in text else tool_call("hold", {"run": run}, id=f"{run}-hold")
    if f"RECORDED c for {run}" in text:
        return f"done {run}"
    if f"RECORDED b for {run}" in text:
        return tool_call("record", {"run": run, "key": "c"}, thought="The last key.", id=f"{run}-c")
    return tool_calls([("record", {"run": run, "key": "a"}), ("record", {"run": run, "key": "b"})],
                      thought="Two keys at once.", ids=[f"{run}-a", f"{run}-b"])


def scripted_model() -> ScriptedChatModel:
    return ScriptedChatModel(responses=[reply], repeat_last=True)


def record(run: str, key: str) -> str:
    """Record a key of a run."""
    time.sleep(float(os.environ.get("QUEUE_TOOL_DELAY", "0")))
    with open(os.environ["QUEUE_LOG"], "a") as log:
        log.write(f"{run} {key}\n")
        log.flush()
        os.fsync(log.fileno())
    return f"RECORDED {key} for {run}"


def hold(run: str) -> str:
    """Wait until released."""
    release = Path(os.environ["QUEUE_RELEASE"])
    Path(f"{release}.waiting").write_text(run)
    while not release.exists():
        time.sleep(0.05)
    return f"HELD {run}"


TOOLS = [record, hold]
