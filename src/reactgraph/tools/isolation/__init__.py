"""Tool calls in worker processes: killed, not abandoned, on a timeout or a cancel, within resource limits.

A tool whose policy resolves to ``isolation="process"`` (``ToolPolicy(isolation="process")``, limits of
its own, or the run's ``tool_execution.isolation``) runs in a worker process of a small pool (``WORKERS``): the
agent sends the call, waits for the reply, and stops the worker (and every process it started) when the
time is up, the run is cancelled or a limit is passed. Decisions, Linux only:

- Start method: ``forkserver``. Forking the agent, which runs threads, is unsafe; spawning a Python per
  worker costs a second of imports. The fork server is started once, in the background as a run with isolated
  tools is checked (``ToolRegistry.check``), and forks a worker in about 10 ms. It preloads the worker's module
  (``child``: the standard library and pydantic, no LangChain) and the modules of those tools (for a tool crossing
  by value, those its copy uses), nothing of the main script: a worker does not re-run it, as ``multiprocessing``
  otherwise does in each process it starts (``pool.without_main`` leaves the main module out of a worker's
  preparation data), so neither the script's imports (LangGraph and LangChain, for ``from reactgraph import
  ReActAgent`` at its top) nor its side effects are repeated there, and a script needs no ``if __name__ ==
  "__main__":`` guard for them. A worker imports a tool before its first call there, so that import is not part of
  the call's timeout. A worker serves the tools of one registry (``ToolRegistry.worker_group``: an agent with other
  tools never gets it), one call at a time, and is reused; each call runs in a fork of it (``forks``: forked while the
  worker waits for the call, so the fork is no part of the call's time), so what a call changes in module state, the
  threads it starts and its hard limits end with the call, and the next call (of any agent sharing the registry) finds
  the worker as it was. A call costs a message each way, and one more between the worker and the call's process
  (measured in ``benchmarks/isolation_overhead.py``; the first call in ``benchmarks/first_isolated_call.py``).
- By reference or by value (``reference.crossing``): a worker imports a tool of an importable module by module and
  name: a module-level function, async function, callable object or LangChain tool; what its import sets up stays
  (the worker imports it once), what a call changes does not. A tool defined in the main script (``__main__``: a script, ``python -m``, ``-c``, stdin, an
  interactive session) crosses by value: cloudpickle's copy of it, with the globals its code uses as they are when
  it is first checked (registered with ``isolation="process"``, or an agent or a run made with
  ``tool_execution.isolation="process"``), and its type hints resolved in the agent (under ``from __future__ import
  annotations`` its copy lacks the names they use); each worker calls its own copy, and what a call changes ends
  with the call. The copy is pickled once, sent to a worker with its first call there and unpickled by it (a worker
  runs the agent's code anyway; the agent never unpickles what a worker sends). A closure, a
  lambda, a tool made at run time, and a main script's tool that cannot be pickled (a global lock or connection:
  the error names it; make it in the tool, or move the tool into a module) cannot cross: registering it with
  ``isolation="process"`` is a ToolRegistrationError saying so. Falling back to re-running the main script for
  such a tool would bring back the script's imports in every worker and a second kind of worker; the error says
  what to change instead.
- As JSON: the arguments, the cwd of the agent at the call and the variables of its environment that
  ``isolated_env`` names (nothing else: no API key, no database URL), and the reply (the result's text cut to
  ``max_tool_output_bytes`` in the worker; a result that is not JSON data is an error). An exception crosses as
  its type, arguments and message and is rebuilt in the agent only from a class already imported there, so
  nothing the worker sends is unpickled or imported. The worker wipes the environment it was started with
  (the agent's, through the fork server) from its memory, so ``/proc/self/environ`` shows none of it.
- Hard limits per call (``ResourceLimits``): the call's fork sets RLIMIT_AS to its own size plus ``memory_mb`` (a
  MemoryError), RLIMIT_CPU to ``cpu_seconds`` (SIGXCPU ends the fork) and RLIMIT_FSIZE to ``file_size_bytes``
  (Python ignores SIGXFSZ, so the write fails with EFBIG), soft and hard alike, so the tool cannot raise them; they
  (which cannot be raised back) end with the fork. The agent counts the bytes the worker's processes write to stdout and stderr
  (relayed to the agent's stderr up to ``output_bytes``) and, every 10 ms, the processes under the worker
  (``processes``).
- Containment (``sandbox``): where the machine allows it (root, or unprivileged user namespaces), each worker
  has its own PID, mount and user namespaces: its tools see only their own processes (they cannot signal the
  agent), the agent's databases (``protect``, called by the SQLite run store and the playbook's store) are hidden
  from them (``sandbox.hide``: not there, not named anywhere, and no file can be made beside them), locked so, and
  killing the worker's PID 1 kills every process in it, however it forked. Elsewhere the worker leads its own session (``setsid``) and is the subreaper of what it starts;
  stopping it kills its process group, its session and every descendant found in /proc, and a tool that
  leaves the session, signals the agent or writes its files (same user) is not stopped. RLIMIT_NPROC counts a
  user's processes, not a call's, so ``processes`` is watched, not enforced: a fork bomb faster than the 10 ms
  watch can pass the limit by what it forks in that time (a pids cgroup would hold it in the kernel; it needs a
  writable cgroup tree, so it is not used). The worker's session keeps the agent's scheduling priority (its
  autogroup's nice), so a call cannot starve the watch by outrunning an agent run at a lower one; the count
  reads no more processes than the limit needs, and the kill signals PID 1 and the process group first. A call that leaves processes behind has its worker replaced. The
  worker dies with the fork server (PR_SET_PDEATHSIG), which exits with the agent, so a killed agent leaves no
  idle worker.
- A worker that crashes (``os._exit``, a segfault), times out or passes a limit is killed and replaced
  by a new one at the next call; a crash is an execution_failed error naming the exit code or signal.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from reactgraph.lazy import lazy_exports

if TYPE_CHECKING:  # at run time __getattr__ imports them: a worker process imports this package, not the pool
    from reactgraph.tools.isolation.pool import WORKERS, RemoteToolError, ToolCrashed, Worker, run_isolated
    from reactgraph.tools.isolation.reference import IN_PROCESS, Crossing, NotIsolatable, crossing

_HOMES = {  # public name -> the module that defines it
    "Crossing": "reactgraph.tools.isolation.reference",
    "IN_PROCESS": "reactgraph.tools.isolation.reference",
    "NotIsolatable": "reactgraph.tools.isolation.reference",
    "RemoteToolError": "reactgraph.tools.isolation.pool",
    "ToolCrashed": "reactgraph.tools.isolation.pool",
    "WORKERS": "reactgraph.tools.isolation.pool",
    "Worker": "reactgraph.tools.isolation.pool",
    "crossing": "reactgraph.tools.isolation.reference",
    "run_isolated": "reactgraph.tools.isolation.pool",
}

__all__ = [
    "Crossing", "IN_PROCESS", "WORKERS", "NotIsolatable", "RemoteToolError", "ToolCrashed", "Worker", "crossing",
    "protect", "run_isolated",
]

SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


__getattr__, _ = lazy_exports(__name__, _HOMES, __all__)


def protect(database: str | os.PathLike[str]) -> None:
    """Hide the SQLite file ``database`` (and its -wal, -shm and -journal files, there or not) from the tools of
    worker processes started from now on, where the machine allows it (``sandbox.hide``)."""
    from reactgraph.tools.isolation.pool import WORKERS

    WORKERS.protect(f"{os.fspath(database)}{side}" for side in SQLITE_SIDE_FILES)
