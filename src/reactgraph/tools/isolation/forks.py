"""A call's own process: a fork of the worker made ahead of the call (``Spare``, forked while the worker waits for its
next call, so that forking is no part of a call's time), which runs the one call it is given and exits. What the call
changes in module state, the threads it starts and the hard limits it sets end with it; the worker, which forks the
next spare, stays as it was. Standard library only (the fork server preloads it for every worker)."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
from collections.abc import Callable
from typing import Any, NoReturn

REPLY_POLL = 0.05  # seconds between looks at whether a call's process has exited while its pipe is silent
_exit = os._exit  # a spare ends with this, whatever a tool rebinds in ``os``


class Spare:
    """A fork of the worker waiting on a pipe for one call: given it (``run``), it answers with ``call(request)``
    and exits; never given one (``end``), it exits."""

    def __init__(self, call: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        requests, self._requests = os.pipe()
        self._replies, replies = os.pipe()
        self.pid: int | None = os.fork()
        if self.pid == 0:
            os.close(self._requests)
            os.close(self._replies)
            _serve_one(requests, replies, call)
        os.close(requests)
        os.close(replies)

    def run(self, request: dict[str, Any], limits: dict[str, Any]) -> dict[str, Any]:
        """The reply to ``request``, once the spare wrote it whole (it is exiting then: ``reap`` it) or exited without
        one (it crashed; killed by SIGXCPU: it passed ``cpu_seconds``)."""
        try:
            _write(self._requests, framed(json.dumps(request).encode()))
        except OSError:  # it is gone: its exit status says how
            pass
        finally:
            os.close(self._requests)
        if self.pid is None:
            raise RuntimeError("this spare has already answered its call")
        try:
            message, status = collected(self._replies, self.pid)
        finally:
            os.close(self._replies)
        if status is not None:
            self.pid = None
        if message is not None:
            return json.loads(message)
        assert status is not None  # no whole reply: collected waited for the exit
        return crashed(status, limits)

    def reap(self) -> None:
        """Wait until the spare, which replied, has exited (one that does not holds the worker, and the next call,
        until its timeout)."""
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None

    def end(self) -> None:
        """End the spare unused (its pipe closed, it exits) and reap it."""
        os.close(self._requests)
        self.reap()
        os.close(self._replies)


def _serve_one(requests: int, replies: int, call: Callable[[dict[str, Any]], dict[str, Any]]) -> NoReturn:
    """The spare's life: wait for its request, answer it with ``call``, exit (at once when no request comes)."""
    data = b""
    while whole(data) is None:
        chunk = os.read(requests, 1 << 16)
        if not chunk:
            _exit(0)
        data += chunk
    os.close(requests)
    try:
        reply = json.dumps(call(json.loads(whole(data) or b""))).encode()
    except BaseException:  # ``call`` reports the tool's failures itself: this is a crash
        _exit(1)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    _write(replies, framed(reply))
    _exit(0)


def framed(data: bytes) -> bytes:
    """``data`` as a message on a pipe: its length in 8 bytes, then it."""
    return len(data).to_bytes(8, "big") + data


def whole(data: bytes) -> bytes | None:
    """The message in ``data`` (``framed``) once all of it is there, else None."""
    size = int.from_bytes(data[:8], "big")
    return data[8 : 8 + size] if len(data) >= 8 + size > 8 else None


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def collected(read: int, pid: int) -> tuple[bytes | None, int | None]:
    """(the reply the call's process ``pid`` wrote to the pipe ``read``, None when it wrote none whole; its exit
    status, None while it has not exited), as soon as the reply is whole, else once the process has exited. A process
    the call left behind holds its own copy of the pipe, so the pipe's end is not waited for: the exit is (at once
    when the pipe ends, else every ``REPLY_POLL`` seconds while the pipe is silent)."""
    data = b""
    while True:
        ready, _, _ = select.select([read], [], [], REPLY_POLL)
        chunk = os.read(read, 1 << 16) if ready else None
        if chunk:
            data += chunk
            if (message := whole(data)) is not None:
                return message, None
            continue
        done, status = os.waitpid(pid, 0 if chunk == b"" else os.WNOHANG)  # at the pipe's end it is ending
        if done:
            break
    os.set_blocking(read, False)
    try:
        while chunk := os.read(read, 1 << 16):  # what it wrote just before it exited
            data += chunk
    except BlockingIOError:
        pass
    return whole(data), status


def crashed(status: int, limits: dict[str, Any]) -> dict[str, Any]:
    """The reply for a call whose process exited with ``status`` without a reply: ``cpu_seconds`` passed (SIGXCPU),
    else a ToolCrashed record naming the exit code or signal."""
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU and limits["cpu_seconds"] is not None:
        return {"limit": "cpu_seconds"}
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        how = f"was killed by {signal.Signals(number).name if number in signal.valid_signals() else f'signal {number}'}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    message = f"the tool's process {how} before it returned a result"
    return {"error": {"module": "reactgraph.tools.isolation.pool", "qualname": "ToolCrashed", "args": [message], "message": message}}
