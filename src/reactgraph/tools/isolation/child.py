"""A worker process of ``reactgraph.tools.isolation``: tool calls sent as JSON, one at a time, each within
its resource limits, each answered as JSON (the result's text, the tool's exception described, or the
limit it passed). The agent's side, and the reasons for each choice, are in ``isolation``."""

from __future__ import annotations

import asyncio
import ctypes
import errno
import importlib
import json
import math
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

from reactgraph.tools.base import to_langchain_tool
from reactgraph.tools.content import cut, leaves, to_text
from reactgraph.tools.isolation.processes import descendants

PR_SET_PDEATHSIG = 1  # prctl(2): a signal for this process when its parent dies
PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphans under this process are re-parented to it


def serve(conn: Connection, output: Connection) -> None:
    """A worker's life: its own session, its stdout and stderr to ``output``, killed with its parent (the
    fork server, which exits with the agent); then calls from ``conn`` until the agent closes it."""
    import resource

    os.setsid()
    _leave_fork_server()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file behind
    _flush()
    os.dup2(output.fileno(), 1)
    os.dup2(output.fileno(), 2)
    output.close()
    conn.send_bytes(b'{"ready": true}')
    tools: dict[str, Any] = {}
    while True:
        try:
            request = json.loads(conn.recv_bytes())
        except EOFError:  # the agent is gone
            return
        reply = answer(request, tools)
        _flush()
        if descendants(os.getpid()):  # the call left processes running: the agent kills them with this worker
            reply["retire"] = True
        conn.send_bytes(json.dumps(reply).encode())  # ASCII: a lone surrogate in a message stays escaped


def answer(request: dict[str, Any], tools: dict[str, Any]) -> dict[str, Any]:
    """Run one call in the agent's cwd and environment: ``{"ok": text}``, ``{"error": a record of the exception}`` or
    ``{"limit": name}`` (``"retire": true`` when the worker should not serve again)."""
    limits, max_bytes = request["limits"], request["max_result_bytes"]
    try:
        os.chdir(request["cwd"])
        if dict(os.environ) != request["env"]:
            os.environ.clear()
            os.environ.update(request["env"])
        key = f"{request['ref']} as {request['name']}"
        if key not in tools:
            tools[key] = to_langchain_tool(load(request["ref"]), request["name"])
        with limited(limits):
            value = invoke(tools[key], request["args"])
        return {"ok": cut(text_of(value), max_bytes)}
    except MemoryError:
        if limits["memory_mb"] is not None:
            return {"limit": "memory_mb", "retire": True}
        return {"error": exception_record(MemoryError("out of memory"), max_bytes), "retire": True}
    except BaseException as exc:  # the tool's failure, reported to the agent
        error = next((e for e in leaves(exc) if isinstance(e, Exception)), exc)
        if isinstance(error, OSError) and error.errno == errno.EFBIG and limits["file_size_bytes"] is not None:
            return {"limit": "file_size_bytes"}
        return {"error": exception_record(error, max_bytes)}


def load(ref: str) -> Any:
    """The object at ``module:qualname``."""
    module, _, qualname = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception as exc:
        raise ImportError(f"the worker process cannot import the tool {ref} ({type(exc).__name__}: {exc})") from None
    return obj


def invoke(tool: Any, args: dict[str, Any]) -> Any:
    """The LangChain tool's result for ``args`` (an async tool in an event loop of its own)."""
    if getattr(tool, "coroutine", None) is not None:
        return asyncio.run(tool.ainvoke(args))
    return tool.invoke(args)


def text_of(value: Any) -> str:
    """The result as the observation's text; TypeError when it is not JSON data."""
    if not isinstance(value, str):
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"the tool returned a {type(value).__name__}, which cannot cross from its worker process: return text "
                "or JSON data (str, int, float, bool, None, list, dict)"
            ) from None
    return to_text(value)


@contextmanager
def limited(limits: dict[str, Any]) -> Iterator[None]:
    """Soft resource limits for one call, put back after it: RLIMIT_AS at this process's size plus
    ``memory_mb``, RLIMIT_CPU at the CPU time used so far plus ``cpu_seconds``, RLIMIT_FSIZE."""
    import resource

    wanted = {}
    if limits["memory_mb"] is not None:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        wanted[resource.RLIMIT_AS] = size + (limits["memory_mb"] << 20)
    if limits["cpu_seconds"] is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        wanted[resource.RLIMIT_CPU] = math.ceil(used.ru_utime + used.ru_stime + limits["cpu_seconds"])
    if limits["file_size_bytes"] is not None:
        wanted[resource.RLIMIT_FSIZE] = limits["file_size_bytes"]
    saved = {which: resource.getrlimit(which) for which in wanted}
    try:
        for which, soft in wanted.items():
            hard = saved[which][1]
            resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
        yield
    finally:
        for which, limit in saved.items():
            resource.setrlimit(which, limit)


def exception_record(exc: BaseException, max_bytes: int) -> dict[str, Any]:
    """An exception as JSON: its class (module, qualname), its arguments when they are JSON data, its message."""
    try:
        message = cut(str(exc), max_bytes)
    except Exception:
        message = "(its message cannot be shown)"
    try:
        args = json.loads(json.dumps(exc.args))
        if len(json.dumps(args)) > max_bytes:
            args = [message]
    except (TypeError, ValueError):
        args = [message]
    cls = type(exc)
    return {"module": cls.__module__, "qualname": cls.__qualname__, "args": args, "message": message}


def _leave_fork_server() -> None:
    """Close this process's copy of the fork server's "alive" pipe, which every forked child inherits: the
    server exits when no copy is left, so without this a busy worker would keep it (and so itself) alive
    after the agent died."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        os.close(fd)
        server._forkserver_alive_fd = None


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
