"""The worker's side of the containment of an isolated tool (Linux): Linux namespaces where the machine allows them,
else a process session, and in both an environment that holds nothing the call was not given.

``enter(protected)`` is called once by a new worker, before its first call:

- ``namespaces``: the worker moves into a new PID and mount namespace (a user namespace first when it is not
  root) and forks PID 1 of the new PID namespace, which forks the server that runs the calls. In there a tool
  sees only its own processes (``/proc`` is the namespace's), so it cannot name the agent's to signal it, and
  cannot signal PID 1 either (the kernel drops signals to a namespace's init that has no handler); when the
  agent kills PID 1, the kernel kills every process in the namespace, double-forked daemons, new sessions and
  all. The ``protected`` files (the agent's databases and their side files) are hidden (``hide``): each directory
  that holds one is covered by an empty read-only tmpfs into which its other entries are bind-mounted back, so a
  tool finds no database there (nor its name, in ``/proc/self/mountinfo`` or anywhere), cannot create a file beside
  one (a ``-journal`` SQLite would take for the database's), and uses every other entry as before. PID 1 then enters
  a user namespace of its own (mapping only its own user), which locks those mounts: the tool cannot remount or
  unmount them, raise a hard resource limit, or regain a capability.
- ``session``: when namespaces cannot be made (no privilege, user namespaces disabled), the worker leads its
  own session and is the subreaper of what it starts; the agent kills the session's processes too. A tool can
  leave the session (``setsid``) and escape that, and nothing stops it signalling the agent or writing the
  agent's files as the same user: docs/tools.md says so.

In both, the worker's start-up environment is wiped from its memory (``/proc/self/environ`` shows nothing), so
a tool sees only the variables its call brings (``isolated_env``).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import stat
from collections.abc import Iterable
from multiprocessing.connection import Connection
from typing import NoReturn

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
NAMESPACES, SESSION = "namespaces", "session"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode = (lambda text: text.encode() if text is not None else None)
    _check(_libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)), f"mount {target}")


def enter(protected: Iterable[str], conn: Connection, *, namespaces: bool = True) -> tuple[str, str]:
    """Contain this worker (see the module): (``NAMESPACES`` or ``SESSION``, why not namespaces when not). In the
    namespaces, only the server (PID 2 of the new PID namespace) returns: its parent (the worker the agent
    started) waits for PID 1, which waits for the server, reaps what it leaves, and tells the agent on ``conn``
    how the server ended (``{"died": {"code" or "signal": n}}``) before it ends, and the namespace with it.
    ``protected`` are the files hidden from the tools (``hide``).
    ``namespaces=False`` keeps to the session (the fallback, also where a machine has namespaces)."""
    scrub_environment()
    if not namespaces:
        return SESSION, "namespaces turned off (WORKERS.namespaces)"
    try:
        _own_namespaces()
    except OSError as exc:
        return SESSION, f"no namespaces here ({exc.strerror})"
    init = os.fork()
    if init:  # the worker: PID 1 holds the namespace; this one only waits for it
        conn.close()
        _quiet()
        _wait_for(init)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # PID 1 dies with the worker, which dies with the fork server
    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the agent's mount namespace
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)  # this PID namespace's processes only
        hide(protected)
        _lock()
    except OSError as exc:  # the namespace still holds its processes together; say what did not hold
        why = f"the agent's files are not hidden from tools ({exc})"
    else:
        why = ""
    server = os.fork()
    if server:
        _init(server, conn)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the server dies with PID 1
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no setuid program gives anything back
    return NAMESPACES, why


def hide(protected: Iterable[str]) -> None:
    """Hide the ``protected`` paths (absolute) in this mount namespace: each directory that holds one, shallowest
    first, is covered by an empty tmpfs (its mode and owner kept) in which every other entry of the directory is made
    again (a symbolic link as the same link, anything else bind-mounted from the directory as it is, from a descriptor
    opened before it was covered); the tmpfs is then remounted read-only. Nothing of a protected file is left: no
    entry, no mount naming it. A directory that does not exist (any more) is passed over."""
    names: dict[str, set[str]] = {}
    for path in protected:
        directory, name = os.path.split(path)
        names.setdefault(directory, set()).add(name)
    for directory in sorted(names, key=lambda d: d.count(os.sep)):
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            kept = [name for name in os.listdir(fd) if name not in names[directory]]
            flags = MS_NOSUID | MS_NODEV
            owner = [f"uid={info.st_uid}", f"gid={info.st_gid}"] if info.st_uid == os.geteuid() else []  # when mapped here
            mount("tmpfs", directory, "tmpfs", flags, ",".join([f"mode={info.st_mode & 0o7777:o}", *owner]))
            for name in kept:
                _made_again(fd, directory, name)
            mount(None, directory, None, MS_REMOUNT | MS_RDONLY | flags)
        finally:
            os.close(fd)


def _made_again(fd: int, directory: str, name: str) -> None:
    """Entry ``name`` of the directory open as ``fd`` (now covered) made again in the tmpfs over ``directory``."""
    target = os.path.join(directory, name)
    try:
        info = os.lstat(name, dir_fd=fd)
    except OSError:  # gone meanwhile
        return
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(name, dir_fd=fd), target)
        return
    if stat.S_ISDIR(info.st_mode):
        os.mkdir(target)
    else:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))
    mount(f"/proc/self/fd/{fd}/{name}", target, None, MS_BIND | MS_REC)


def others() -> list[int]:
    """In the namespaces: the processes of the namespace besides PID 1 and this one (what a call left running)."""
    me = os.getpid()
    return [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and int(pid) not in (1, me)]


def _init(server: int, conn: Connection) -> NoReturn:
    """PID 1 of the worker's namespace: reap every process that ends (orphans are re-parented here, whatever the
    tool does), and once the server has ended, tell the agent how, and end."""
    _quiet()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(0)
        if pid == server:
            break
    died = {"signal": os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {"code": os.WEXITSTATUS(status)}
    try:
        conn.send_bytes(json.dumps({"died": died}).encode())
    except OSError:
        pass
    os._exit(0)  # the kernel kills what is left in the namespace


def _wait_for(child: int) -> NoReturn:
    """Wait for ``child`` and end with its exit code."""
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(1)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _quiet() -> None:
    """Nothing this process writes reaches the agent (the server's output is the call's)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


def _own_namespaces() -> None:
    """A new PID and mount namespace (in a new user namespace when not root)."""
    try:
        unshare(CLONE_NEWPID | CLONE_NEWNS)
        return
    except OSError:
        if os.geteuid() == 0:
            raise
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)
    _map_self(uid, gid)


def _lock() -> None:
    """Enter a user namespace (and a mount namespace it owns) mapping only this user: the mounts made above become
    locked (they cannot be remounted or unmounted from here), and the capabilities left are over this namespace
    only (no hard limit raised, no mount of a device)."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | CLONE_NEWNS)
    _map_self(uid, gid)


def _map_self(uid: int, gid: int) -> None:
    """Map this user and group into the user namespace just entered (only them: one line each)."""
    with open("/proc/self/setgroups", "w") as setgroups:
        setgroups.write("deny")
    with open("/proc/self/uid_map", "w") as uid_map:
        uid_map.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as gid_map:
        gid_map.write(f"{gid} {gid} 1")


def scrub_environment() -> None:
    """Empty the environment, and wipe the start-up copy of it that ``/proc/<pid>/environ`` shows (the fork
    server's, inherited: the agent's whole environment) from this process's memory."""
    os.environ.clear()
    try:
        with open("/proc/self/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (fields 50 and 51 of proc(5))
    except (OSError, IndexError, ValueError):
        return
    if 0 < start < end:
        ctypes.memset(start, 0, end - start)
