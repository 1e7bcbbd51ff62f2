"""Calls on reused daemon worker threads (``in_worker``): a model call or a tool call runs on an idle worker, a new
one when none is idle, in the caller's context (LangChain callbacks and the LangGraph config reach it), its outcome
in a Future. The caller may stop waiting (a deadline, a cancel, a tool past its timeout): the call keeps its worker
until it returns, and the worker is idle again only then; a daemon worker never holds up the interpreter's exit.
Starting a thread per call cost more CPU than a scripted model's reply or a cheap tool's result. A forked child does
not inherit the parent's workers: it starts its own. Standard library only."""

from __future__ import annotations

import contextvars
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")
NAME = "reactgraph-worker"


def in_worker(call: Callable[[], T]) -> Future[T]:
    """``call()`` on an idle worker thread, in the caller's context; its result or exception in the Future (a
    Future cancelled before the call started never runs it)."""
    future: Future[T] = Future()
    context = contextvars.copy_context()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(call))
        except BaseException as exc:  # handed to the waiting caller
            future.set_exception(exc)

    try:
        inbox = _idle.get_nowait()
    except queue.Empty:
        inbox = queue.SimpleQueue()
        threading.Thread(target=_serve, args=(inbox,), name=NAME, daemon=True).start()
    inbox.put(work)
    return future


_idle: queue.SimpleQueue[queue.SimpleQueue[Callable[[], None]]] = queue.SimpleQueue()


def _serve(inbox: queue.SimpleQueue[Callable[[], None]]) -> None:
    """A worker: runs each call put in its inbox, then offers itself again."""
    while True:
        inbox.get()()
        _idle.put(inbox)


def _forget_workers() -> None:
    """In a forked child the parent's workers do not run: it starts its own."""
    global _idle
    _idle = queue.SimpleQueue()


os.register_at_fork(after_in_child=_forget_workers)
