"""The worker processes of isolated tool calls: a small pool of forkserver children (``child``), a call sent
to one as JSON and waited for, the worker killed (with every process it started) when the time is up, the run
is cancelled or a limit is passed. The reasons for each choice are in the package's docstring."""

from __future__ import annotations

import atexit
import base64
import codecs
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from multiprocessing import forkserver, spawn
from multiprocessing.connection import wait
from typing import Any

from reactgraph.config import ResourceLimits
from reactgraph.tools.base import RegisteredTool
from reactgraph.tools.isolation import child, sandbox
from reactgraph.tools.isolation.processes import children, descendants, session_members, wait_gone
from reactgraph.tools.isolation.reference import crossing, resolve_name
from reactgraph.tools.policy import ResourceLimitExceeded, ToolCancelled, ToolTimeout

PRELOAD = ["reactgraph.tools.isolation.child"]  # what the fork server imports once for every worker (not __main__)
WORKER_NAME = "reactgraph-tool-worker"  # a worker process's name, by which multiprocessing prepares it without __main__
MAX_IDLE = 4  # idle workers kept for the next calls
START_LIMIT = 60.0  # seconds a new worker may take to be ready
WATCH_EVERY = 0.01  # seconds between counts of a call's processes (with a processes limit)
CANCEL_EVERY = 0.1  # seconds between checks of a cancel
logger = logging.getLogger("reactgraph.tools.isolation")
LIMIT_TEXTS = {
    "memory_mb": "it needed more than {:,} MB of memory",
    "cpu_seconds": "it used more than {:,} s of CPU time",
    "output_bytes": "it wrote more than {:,} bytes of output",
    "file_size_bytes": "it wrote a file larger than {:,} bytes",
    "processes": "it started more than {:,} processes",
}


class ToolCrashed(Exception):
    """The worker process running the call died before it replied (an exit, a crash, a kill by someone else)."""


class RemoteToolError(Exception):
    """An exception of the tool whose class the agent's process has not imported (named like that class)."""


def limit_exceeded(limit: str, limits: ResourceLimits) -> ResourceLimitExceeded:
    """The error for passing ``limit``, naming it and its value."""
    value = getattr(limits, limit)
    return ResourceLimitExceeded(limit, f"{LIMIT_TEXTS[limit].format(value)} ({limit}={value})")


def run_isolated(
    entry: RegisteredTool,
    args: dict[str, Any],
    *,
    timeout: float,
    limits: ResourceLimits,
    max_result_bytes: int,
    cancelled: Callable[[], bool] | None = None,
    env: Iterable[str] = (),
    injected: bytes | None = None,
    call_id: str | None = None,
    progress: Callable[[Any], None] | None = None,
    group: str = "",
) -> dict[str, Any]:
    """One call of ``entry`` in a worker: ``{"content": the result's text (cut to max_result_bytes)}``, with
    ``"value"`` when the tool returned no text, or raise the tool's exception (rebuilt), ToolTimeout,
    ResourceLimitExceeded, ToolCancelled or ToolCrashed. A worker of ``group`` (the tools of one registry:
    ``ToolRegistry.worker_group``) is taken from the pool (its start is not part of ``timeout``, nor is the import of
    the tool by a worker that has not called it yet). The tool sees the variables named in ``env`` of the agent's
    environment, and nothing else of it. ``injected`` (pickled) are the arguments the agent filled in
    (``tools.injection``), ``call_id`` the call's id for a LangChain tool invoked with its tool call; what the tool
    writes to its runtime's stream writer goes to ``progress``."""
    way = crossing(entry.source if entry.source is not None else entry.tool)
    request = {
        "ref": way.ref,
        "name": entry.name,
        "args": args,
        "limits": limits.model_dump(),
        "max_result_bytes": max_result_bytes,
        "cwd": os.getcwd(),
        "env": {name: os.environ[name] for name in env if name in os.environ},
    }
    if injected is not None:
        request["injected"] = base64.b64encode(injected).decode()
    if call_id is not None:
        request["call_id"] = call_id
    try:
        message = json.dumps(request, ensure_ascii=False).encode()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"the arguments cannot cross to a worker process as JSON ({exc})") from None
    current = WORKERS.acquire(group)
    reusable = False
    try:
        reply: dict[str, Any] = {"ok": ""}
        loaded = f"{request['ref']} as {entry.name}"  # as the worker keeps it: a tool under two names is loaded twice
        if loaded not in current.loaded:  # the worker imports the tool first, within START_LIMIT
            copy = {"pickled": base64.b64encode(way.pickled).decode()} if way.pickled is not None else {}
            load = json.dumps(request | {"args": {}, "load": True} | copy).encode()
            reply = current.call(load, START_LIMIT, limits, cancelled)
            current.loaded.add(loaded)
        if "ok" in reply:
            reply = current.call(message, timeout, limits, cancelled, progress)
        reusable = not reply.get("retire")
    finally:
        WORKERS.release(current, reusable)
    if "ok" in reply:
        return {"content": reply["ok"]} | ({"value": reply["value"]} if "value" in reply else {})
    if reply.get("limit"):
        raise limit_exceeded(reply["limit"], limits)
    raise rebuilt(reply["error"])


def rebuilt(error: dict[str, Any]) -> Exception:
    """The tool's exception from its description: of its own class when the agent's process has that
    class imported and it accepts the arguments, else a RemoteToolError subclass of the same name."""
    cls = resolve_name(error["module"], error["qualname"])
    if isinstance(cls, type) and issubclass(cls, BaseException):
        try:
            exc = cls(*error["args"])
        except Exception:
            exc = None
        if isinstance(exc, Exception):
            return exc
        if exc is not None:  # SystemExit, KeyboardInterrupt: the tool's failure, not the run's
            return RuntimeError(f"the tool raised {type(exc).__name__}: {error['message']}")
    name = error["qualname"].rpartition(".")[2]
    return type(name if name.isidentifier() else "RemoteToolError", (RemoteToolError,), {})(error["message"])


class Worker:
    """One worker process: its connection for calls, the read end of its stdout and stderr, how it is contained
    (``sandbox``: 'namespaces' or 'session'), the process whose death ends every process of its calls
    (``tool_pid``: PID 1 of its PID namespace, or the worker) and the one that serves them (``server_pid``: PID 2
    there, or the worker; each call runs in a fork of it). It serves the tools of one ``group`` only."""

    def __init__(self, protected: tuple[str, ...] = (), namespaces: bool = True, group: str = "") -> None:
        context = multiprocessing.get_context("forkserver")
        start_server()
        self.conn, child_conn = context.Pipe()
        self.output, child_output = context.Pipe(duplex=False)
        # what it was started with and for: a worker of another group or other settings is not reused
        self.settings = (group, protected, namespaces)
        self.process = context.Process(
            target=child.serve, args=(child_conn, child_output, protected, namespaces), name=WORKER_NAME
        )
        try:
            self.process.start()
        finally:
            child_conn.close()
            child_output.close()
        os.set_blocking(self.output.fileno(), False)
        pid = self.process.pid
        assert pid is not None  # started
        self.pid = self.tool_pid = self.server_pid = pid  # until it says it has namespaces
        self.exitcode: int | None = None  # known once it is killed
        self.loaded: set[str] = set()  # the tools it has imported ('module:qualname as name')
        self._killing = threading.Lock()  # the call's thread and the pool's close may both kill it
        if not self.conn.poll(START_LIMIT):
            self.kill()
            raise ToolCrashed(f"a worker process did not start within {START_LIMIT:g}s")
        try:
            ready = json.loads(self.conn.recv_bytes())  # {"ready": true, "sandbox": ...}: contained, its output redirected
        except EOFError:
            self.kill()
            raise ToolCrashed(f"a worker process died while starting ({exit_text(self.exitcode)})") from None
        self.sandbox = ready.get("sandbox", sandbox.SESSION)
        if self.sandbox == sandbox.NAMESPACES:
            init = children(self.pid)
            server = children(init[0]) if len(init) == 1 else []
            if len(server) != 1:
                self.kill()
                raise ToolCrashed("a worker process lost the processes that serve its calls while starting")
            self.tool_pid, self.server_pid = init[0], server[0]
        report_sandbox(self.sandbox, ready.get("why", ""))

    def over_processes(self, limit: int) -> bool:
        """Whether the current call has more than ``limit`` processes besides the one running it (in namespaces,
        the server is under PID 1; a call runs in a fork of the server)."""
        own = (self.tool_pid != self.pid) + 1
        return len(descendants(self.tool_pid, at_most=limit + own + 1)) - own > limit

    def alive(self) -> bool:
        return not self.conn.closed and self.process.exitcode is None

    def call(
        self,
        message: bytes,
        timeout: float,
        limits: ResourceLimits,
        cancelled: Callable[[], bool] | None,
        progress: Callable[[Any], None] | None = None,
    ) -> dict:
        """Send one call and wait for its reply, relaying its output and what it writes to its stream writer (to
        ``progress``); stop the worker when the call must end."""
        try:
            self.conn.send_bytes(message)
        except OSError:  # it died while idle
            self.kill()
            raise ToolCrashed(f"the tool's process {exit_text(self.exitcode)} before the call") from None
        deadline = time.monotonic() + timeout
        died = None  # in namespaces, how the server ended, as PID 1 tells (its exit code is not the worker's)
        tick = WATCH_EVERY if limits.processes is not None else CANCEL_EVERY if cancelled else None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        written = 0
        waiting: list[Any] = [self.conn, self.output, self.process.sentinel]
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise ToolTimeout(f"no result within {timeout:g}s (its process was killed)")
            try:
                ready = wait(waiting, min(left, tick) if tick else left)
            except OSError:  # its pipes were closed: the pool stopped it (the agent's process is exiting)
                raise ToolCrashed("its worker process was stopped: the agent's process is exiting") from None
            if self.output in ready:
                data = self._read_output()
                if data is None:
                    waiting.remove(self.output)  # every writer closed it
                else:
                    written = self._relay(data, written, limits, decoder)
            if self.conn in ready:
                try:
                    reply = json.loads(self.conn.recv_bytes())
                except EOFError:
                    reply = None
                if reply is not None and "progress" in reply:  # written while it runs: the reply is still to come
                    if progress is not None:
                        progress(reply["progress"])
                    continue
                died = reply.pop("died", None) if reply is not None else None
                if reply is not None and died is None:
                    while (data := self._read_output()) is not None and data:  # what it wrote before replying
                        written = self._relay(data, written, limits, decoder)
                    return reply
            if self.process.sentinel in ready or self.conn in ready:  # died, or closed its end
                self.kill()
                code = self.exitcode if died is None else -died["signal"] if "signal" in died else died["code"]
                if code == -signal.SIGXCPU and limits.cpu_seconds is not None:
                    raise limit_exceeded("cpu_seconds", limits)
                raise ToolCrashed(f"the tool's process {exit_text(code)} before it returned a result")
            if limits.processes is not None and self.over_processes(limits.processes):
                self.kill()
                raise limit_exceeded("processes", limits)
            if cancelled is not None and cancelled():
                self.kill()
                raise ToolCancelled("stopped: the run was cancelled (its process was killed)")

    def _read_output(self) -> bytes | None:
        """What the worker's processes wrote since the last read (b'' when nothing); None at end of file."""
        try:
            return os.read(self.output.fileno(), 1 << 16) or None
        except BlockingIOError:
            return b""

    def _relay(self, data: bytes, written: int, limits: ResourceLimits, decoder: Any) -> int:
        """Pass ``data`` on to the agent's stderr up to the call's output limit; stop the worker past it."""
        limit = limits.output_bytes
        shown = data if limit is None else data[: max(0, limit - written)]
        if shown:
            sys.stderr.write(decoder.decode(shown))
        if limit is not None and written + len(data) > limit:
            self.kill()
            raise limit_exceeded("output_bytes", limits)
        return written + len(data)

    def kill(self) -> None:
        """Kill the worker and every process of its call: in namespaces, the server (PID 1 of its PID namespace:
        the kernel kills the whole namespace with it); and the worker's process group, its session (double-forked
        processes that left the tree) and every process under it. Wait for them; close its pipes."""
        with self._killing:
            if self.conn.closed:
                return
            # the namespace's PID 1 and the process group first, then what /proc shows: a fork loop goes on forking
            # while /proc is read, and reading it takes longer the more it made
            first = [(os.kill, self.tool_pid)] if self.tool_pid != self.pid else []
            _signal([*first, (os.killpg, self.pid)])
            found = descendants(self.pid) if self.process.exitcode is None else []  # an exited worker's are orphans
            found += [pid for pid in session_members(self.pid) if pid not in found and pid != self.pid]
            _signal([(os.kill, pid) for pid in found])
            self.process.join(START_LIMIT)
            wait_gone(found, START_LIMIT)  # SIGKILL takes effect when each is next scheduled
            self.conn.close()
            self.output.close()
            self.exitcode = self.process.exitcode
            if self.exitcode is not None:
                self.process.close()  # its status pipe from the fork server


def _signal(targets: list[tuple[Callable[[int, int], None], int]]) -> None:
    """SIGKILL to each target (a pid with ``os.kill``, a group with ``os.killpg``) that is still there."""
    for kill, target in targets:
        try:
            kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class WorkerPool:
    """Worker processes, reused by the calls of one group (the tools of one registry, so never by an agent with other
    tools: a worker imports the tools it serves): a call takes an idle worker of its group (or starts one) and gives it
    back when it is still fit; up to ``max_idle`` wait for the next calls (the longest idle is stopped first). Workers
    are started with the files ``protect`` names hidden; one started before a file was added is not reused."""

    def __init__(self, max_idle: int = MAX_IDLE) -> None:
        self.max_idle = max_idle
        self._idle: list[Worker] = []
        self._live: set[Worker] = set()  # idle or running a call
        self._lock = threading.Lock()
        self._protected: tuple[str, ...] = ()
        # False: workers lead a session only, never namespaces (the fallback where the machine has none; tests use it)
        self.namespaces = True

    def protect(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Hide ``paths`` (the agent's databases) from the tools of workers started from now on, where the machine
        allows (``sandbox.hide``)."""
        with self._lock:
            for path in paths:
                directory, name = os.path.split(os.path.abspath(path))
                if (real := os.path.join(os.path.realpath(directory), name)) not in self._protected:
                    self._protected = (*self._protected, real)

    def acquire(self, group: str = "") -> Worker:
        """An idle worker of ``group`` started with the current settings, else a new one; idle workers of the group
        started with other settings (or dead) are stopped."""
        with self._lock:
            settings = (group, self._protected, self.namespaces)
            stale = [w for w in self._idle if w.settings[0] == group and (w.settings != settings or not w.alive())]
            found = next((w for w in reversed(self._idle) if w.settings == settings and w not in stale), None)
            self._idle = [w for w in self._idle if w not in stale and w is not found]
        for worker in stale:
            self._stop(worker)
        if found is not None:
            return found
        started = Worker(settings[1], settings[2], group)
        with self._lock:
            self._live.add(started)
        return started

    def release(self, used: Worker, reusable: bool) -> None:
        """Give ``used`` back after a call: kept idle when ``reusable`` and alive (the longest idle worker stopped
        when more than ``max_idle`` wait), else stopped."""
        if not (reusable and used.alive()):
            self._stop(used)
            return
        with self._lock:
            self._idle.append(used)
            surplus = self._idle[: max(0, len(self._idle) - self.max_idle)]
            del self._idle[: len(surplus)]
        for worker in surplus:
            self._stop(worker)

    def idle_pids(self) -> list[int]:
        """The processes of the idle workers that serve their calls (``Worker.server_pid``)."""
        with self._lock:
            return [w.server_pid for w in self._idle]

    def close(self) -> None:
        """Stop every worker, idle or running a call (whose call then ends as ToolCrashed): at exit, so that
        the interpreter does not wait for a busy tool; the next call starts new ones."""
        with self._lock:
            live, self._live, self._idle = self._live, set(), []
        for each in live:
            each.kill()

    def _stop(self, worker: Worker) -> None:
        with self._lock:
            self._live.discard(worker)
        worker.kill()


def start_server(tool_modules: Iterable[str] = ()) -> None:
    """Start the fork server, in the background (``ensure_running`` does not wait for its imports; nothing when it
    runs): ``ToolRegistry.check`` calls this for an agent or a run with isolated tools, with their modules, so that
    the server's start overlaps the run's first model call instead of delaying its first tool call, and a tool's
    imports (LangChain's for a LangChain tool) are made once there, not in each worker within the call's timeout.
    It preloads the worker's module and those, not the main script, which workers do not import (``without_main``)."""
    if not getattr(spawn.get_preparation_data, "leaves_out_main", False):  # once (before any worker starts)
        spawn.get_preparation_data = without_main(spawn.get_preparation_data)  # type: ignore[assignment]  # same signature
    preload = list(dict.fromkeys([*PRELOAD, *tool_modules]))
    forkserver.set_forkserver_preload(preload)  # read by the server's first start only
    forkserver.ensure_running()


def without_main(get_preparation_data: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """multiprocessing's ``spawn.get_preparation_data``, leaving out the main module for a worker process.

    Why this is safe: a process started by spawn or the fork server runs ``spawn.prepare`` on this data before it
    unpickles its process object. Besides the name, authkey, sys.path, argv and working directory, the data names the
    main module (``init_main_from_path``, or ``init_main_from_name`` under ``python -m``), which ``prepare`` re-runs
    as ``__mp_main__`` (with every import at the script's top, and any unguarded side effect) only so that objects
    pickled by reference to ``__main__`` can be found. A worker's process object (``child.serve``, its two connections,
    the protected paths, a flag) refers to nothing in ``__main__``, and a main script's tool reaches a worker by value
    (``reference.crossing``), so a worker needs no main module; without the two optional keys (``prepare`` tests
    each with ``in``) it keeps the fork server's own. Only a process named ``WORKER_NAME`` is changed: any other
    (the user's own) is prepared as multiprocessing does. Popen objects look the function up on ``spawn`` at each
    start, and ``prepare`` has read these keys so, since Python 3.4; loky (joblib's workers) leaves the main module
    out the same way, by its own ``get_preparation_data(name, init_main_module)``. Before 3.13.8 the fork server
    itself never imports ``__main__`` (CPython gh-126631); later ones import it only when ``__main__`` is in the
    preload list, which ``start_server`` leaves out."""

    def prepared(name: str) -> dict[str, Any]:
        data = get_preparation_data(name)
        if name == WORKER_NAME:
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    prepared.leaves_out_main = True  # type: ignore[attr-defined]
    return prepared


WORKERS = WorkerPool()
atexit.register(WORKERS.close)
_reported: set[str] = set()


def report_sandbox(mode: str, why: str) -> None:
    """Log, once per process, how tool workers are contained."""
    if mode not in _reported:
        _reported.add(mode)
        if mode == sandbox.NAMESPACES:
            logger.info("isolated tools run in their own PID, mount and user namespaces")
        else:
            logger.warning("isolated tools run in a process session only: %s (see docs/tools.md, Tools in worker processes)", why)


def exit_text(code: int | None) -> str:
    """How a process ended, from its exit code: 'exited with code 3', 'was killed by SIGSEGV'."""
    if code is None:
        return "did not exit"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"
