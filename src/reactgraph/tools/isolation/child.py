"""A worker process of ``reactgraph.tools.isolation``: tool calls sent as JSON, one at a time, each run in a fork of
the worker within its resource limits (what a call changes, starts or leaves behind in its process ends with the fork),
each answered as JSON (the result's text, the tool's exception described, or the limit it passed). The agent's side,
and the reasons for each choice, are in ``isolation``.

The fork server imports this module for every worker, so it imports only the standard library, pydantic (whose
``validate_call`` calls a function tool) and the modules beside it; a LangChain tool's imports load with the tool."""

from __future__ import annotations

import base64
import ctypes
import errno
import functools
import importlib
import inspect
import json
import math
import os
import pickle
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from pydantic import ConfigDict, validate_call

from reactgraph.tools.content import cut, leaves, to_text
from reactgraph.tools.isolation import sandbox
from reactgraph.tools.isolation.forks import Spare
from reactgraph.tools.isolation.processes import descendants, session_members

PR_SET_PDEATHSIG = 1  # prctl(2): a signal for this process when its parent dies
PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphans under this process are re-parented to it
HARD_LIMITS = ("memory_mb", "cpu_seconds", "file_size_bytes")  # the limits set as rlimits (hard: in the call's fork)

validate_call(lambda: None)  # once in the fork server: pydantic's first validator loads its schema code and plugins


def _new_session() -> None:
    """Its own session (``setsid``), in a scheduling group (Linux's autogroup) as nice as the agent's. A new session
    is a group of its own, at nice 0: it took the CPU from an agent run at a lower priority, whose watch of the call's
    processes then fell behind (a fork loop passed a limit of 3 processes by 20,000)."""
    try:
        with open("/proc/self/autogroup") as group:
            nice: str | None = group.read().split()[-1]
    except (OSError, IndexError):  # a kernel without autogroups
        nice = None
    os.setsid()
    if nice is not None:
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write(nice)
        except OSError:  # a higher priority than this user may set: the group stays at 0, below the agent's
            pass


def serve(conn: Connection, output: Connection, protected: tuple[str, ...] = (), namespaces: bool = True) -> None:
    """A worker's life: its own session, its stdout and stderr to ``output``, killed with its parent (the
    fork server, which exits with the agent), contained (``sandbox.enter``: namespaces with the ``protected``
    files hidden, else its session); then calls from ``conn`` until the agent closes it, each answered once its
    fork has ended, saying whether it left processes running (then the worker retires)."""
    import resource

    _new_session()
    _leave_fork_server()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file behind
    _flush()
    os.dup2(output.fileno(), 1)
    os.dup2(output.fileno(), 2)
    output.close()
    mode, why = sandbox.enter(protected, conn, namespaces=namespaces)
    if mode == sandbox.SESSION:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    left_running = sandbox.others if mode == sandbox.NAMESPACES else session_left
    conn.send_bytes(json.dumps({"ready": True, "sandbox": mode, "why": why}).encode())
    tools: dict[str, Any] = {}
    spare: Spare | None = None
    # a call's process writes the tool's progress to the agent itself
    call = functools.partial(in_the_call, tools=tools, progress=functools.partial(_send_progress, conn))
    while True:
        spare = spare or Spare(call)  # forked while no call waits
        try:
            request = json.loads(conn.recv_bytes())
        except EOFError:  # the agent is gone
            return
        reply, ending = answer(request, tools, spare, call)
        spare = None
        _flush()
        if set(left_running()) - {ending}:  # the call left processes running: the agent kills them with this worker
            reply["retire"] = True
        conn.send_bytes(json.dumps(reply).encode())  # ASCII: a lone surrogate in a message stays escaped
        if ending is not None:  # the call's process, which replied and is exiting: gone before the next call
            os.waitpid(ending, 0)


def session_left() -> list[int]:
    """Without namespaces: the processes of this worker's session besides itself (what a call left running, also
    when it double-forked out of the worker's tree)."""
    me = os.getpid()
    return [pid for pid in {*descendants(me), *session_members(me)} if pid != me]


def answer(
    request: dict[str, Any], tools: dict[str, Any], spare: Spare, call: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[dict[str, Any], int | None]:
    """(the reply to one request: ``{"ok": text}``, ``{"error": a record of the exception}`` or ``{"limit": name}``;
    the pid of the call's process while it is exiting, to be reaped once the reply has gone):
    with ``"load": true`` (a tool's first call here), only import the tool, in this worker, so that every later fork
    has it (``spare`` lacks it: it is ended); a call runs in ``spare``, a fork of this worker (``forks``): its hard limits
    (which cannot be raised back), the module state it changes and the threads it starts end with it, so the worker
    serves the next call (of any of its agent's tools) as it was; processes it leaves running retire the worker
    (``serve``). A new spare, after an import, runs ``call`` (``in_the_call``)."""
    key = f"{request['ref']} as {request['name']}"
    if request.get("load") or key not in tools:
        spare.end()
        reply = imported(request, tools, key)
        if "ok" not in reply or request.get("load"):
            return reply, None
        spare = Spare(call)
    reply = spare.run(request, request["limits"])
    return reply, spare.pid


def imported(request: dict[str, Any], tools: dict[str, Any], key: str) -> dict[str, Any]:
    """The tool of ``request`` imported here, in the agent's cwd with the environment the call brings: ``{"ok": ""}``,
    or ``{"error": ...}`` when it cannot be."""
    try:
        entered(request)
        if key not in tools:
            tools[key] = callable_tool(load(request["ref"], request.get("pickled")))
    except BaseException as exc:
        return {"error": exception_record(exc, request["max_result_bytes"])}
    return {"ok": ""}


def in_the_call(request: dict[str, Any], tools: dict[str, Any], progress: Callable[[Any], None]) -> dict[str, Any]:
    """In the call's own process: the reply to the call (``called``), in the agent's cwd with the environment the call
    brings; the arguments the agent filled in (``"injected"``, pickled: the run's state, context, the call's id) join
    the model's, and a ``ToolRuntime`` among them writes to ``progress``."""
    try:
        entered(request)
        args = with_injected(request, progress)
    except BaseException as exc:
        return {"error": exception_record(exc, request["max_result_bytes"])}
    key = f"{request['ref']} as {request['name']}"
    return called(tools[key], args, request["limits"], request["max_result_bytes"], request.get("call_id"))


def entered(request: dict[str, Any]) -> None:
    """The agent's cwd at the call, and only the environment the call brings (``isolated_env``)."""
    os.chdir(request["cwd"])
    if dict(os.environ) != request["env"]:
        os.environ.clear()
        os.environ.update(request["env"])


def with_injected(request: dict[str, Any], progress: Callable[[Any], None] | None) -> dict[str, Any]:
    """The call's arguments: the model's, and the ones the agent filled in (pickled by the agent, whose code this
    worker runs anyway); a ToolRuntime's ``stream_writer`` sends what the tool writes to the agent."""
    if not request.get("injected"):
        return request["args"]
    injected = pickle.loads(base64.b64decode(request["injected"]))
    for value in injected.values():
        if hasattr(value, "stream_writer") and hasattr(value, "tool_call_id"):  # a ToolRuntime (a plain dataclass)
            value.stream_writer = progress or (lambda chunk: None)
    return request["args"] | injected


def _send_progress(conn: Connection, chunk: Any) -> None:
    """What a tool writes while it runs, sent to the agent before its reply; TypeError when it is no JSON data."""
    try:
        data = json.dumps({"progress": chunk})
    except (TypeError, ValueError):
        raise TypeError(f"a tool in a worker process writes JSON data to its stream writer, not a {type(chunk).__name__}") from None
    conn.send_bytes(data.encode())


def called(
    tool: Callable[..., Any], args: dict[str, Any], limits: dict[str, Any], max_bytes: int, call_id: str | None = None
) -> dict[str, Any]:
    """The reply for one call of ``tool`` (under ``limits``' hard limits, set here): its text, and the value it returned
    when that is not text (a ToolMessage's artifact)."""
    try:
        hard_limits(limits)
        result = tool(args, call_id)
        if hasattr(result, "artifact") and hasattr(result, "tool_call_id"):  # a ToolMessage (the tool took its call)
            if getattr(result, "status", "success") == "error":
                raise RuntimeError(text_of(result.content))
            content, value = result.content, result.artifact
        else:
            content = value = result
        reply: dict[str, Any] = {"ok": cut(text_of(content), max_bytes)}
        if value is not None and not isinstance(value, str):
            text_of(value)  # TypeError when it is no JSON data
            reply["value"] = value
        return reply
    except MemoryError:
        if limits["memory_mb"] is not None:
            return {"limit": "memory_mb"}
        return {"error": exception_record(MemoryError("out of memory"), max_bytes)}
    except BaseException as exc:  # the tool's failure, reported to the agent
        error = next((e for e in leaves(exc) if isinstance(e, Exception)), exc)
        if isinstance(error, OSError) and error.errno == errno.EFBIG and limits["file_size_bytes"] is not None:
            return {"limit": "file_size_bytes"}
        return {"error": exception_record(error, max_bytes)}


def load(ref: str, pickled: str | None = None) -> Any:
    """The object at ``module:qualname``; or, given ``pickled`` (base64), the copy of a main script's tool that the
    agent pickled (``reference``: a worker does not import the main script), its type hints set from the agent's."""
    if pickled is not None:
        try:
            copy, hints = pickle.loads(base64.b64decode(pickled))  # from the agent, whose code this worker runs anyway
        except Exception as exc:
            raise ImportError(f"the worker process cannot load the tool {ref} ({type(exc).__name__}: {exc})") from None
        if hints is not None:  # what its annotations name as text is not among its copy's globals
            (copy if inspect.isfunction(copy) else type(copy).__call__).__annotations__ = hints
        return copy
    module, _, qualname = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception as exc:
        raise ImportError(f"the worker process cannot import the tool {ref} ({type(exc).__name__}: {exc})") from None
    return obj


def callable_tool(obj: Any) -> Callable[[dict[str, Any], str | None], Any]:
    """A call of ``obj`` with a call's arguments (and its id, for a LangChain tool that takes it: invoked with the
    whole tool call, it answers with a ToolMessage): a LangChain tool's ``invoke`` (``ainvoke`` for an async one); a
    function or callable object (registered only when typed and documented) through pydantic's ``validate_call``,
    which converts the arguments to its annotations as LangChain's StructuredTool does, without loading LangChain's
    tools (and with them its tracers and LangSmith) into the worker. An async tool runs in an event loop of its own."""
    tools = sys.modules.get("langchain_core.tools")  # loaded when ``obj`` is a LangChain tool
    if tools is not None and isinstance(obj, tools.BaseTool):

        def given(args: dict[str, Any], call_id: str | None) -> Any:
            return {"name": obj.name, "args": args, "id": call_id, "type": "tool_call"} if call_id else args

        if getattr(obj, "coroutine", None) is not None:
            return lambda args, call_id: _run_async(obj.ainvoke(given(args, call_id)))
        return lambda args, call_id: obj.invoke(given(args, call_id))
    func: Callable[..., Any] = obj if inspect.isroutine(obj) else obj.__call__
    checked = validate_call(config=ConfigDict(arbitrary_types_allowed=True))(func)
    if inspect.iscoroutinefunction(func):
        return lambda args, call_id: _run_async(checked(**args))
    return lambda args, call_id: checked(**args)


def _run_async(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


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


def hard_limits(limits: dict[str, Any]) -> None:
    """Hard resource limits for the call about to run (soft and hard, so the tool cannot raise them): RLIMIT_AS
    at this process's size plus ``memory_mb``, RLIMIT_CPU at the CPU time used so far plus ``cpu_seconds`` (the
    hard one a second later, so SIGXCPU comes first), RLIMIT_FSIZE. A hard limit cannot be raised again without
    privilege (which a worker in its namespaces has not): they are set in the call's own process (``forks.Spare``)."""
    import resource

    wanted: dict[int, tuple[int, int]] = {}
    if limits["memory_mb"] is not None:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        wanted[resource.RLIMIT_AS] = (size + (limits["memory_mb"] << 20),) * 2
    if limits["cpu_seconds"] is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(used.ru_utime + used.ru_stime + limits["cpu_seconds"])
        wanted[resource.RLIMIT_CPU] = (soft, soft + 1)
    if limits["file_size_bytes"] is not None:
        wanted[resource.RLIMIT_FSIZE] = (limits["file_size_bytes"],) * 2
    for which, (soft, hard) in wanted.items():
        old_hard = resource.getrlimit(which)[1]
        if old_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, old_hard), min(hard, old_hard)
        resource.setrlimit(which, (soft, hard))


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
    if server is not None and isinstance(fd, int):
        os.close(fd)
        server._forkserver_alive_fd = None


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
