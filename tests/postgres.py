"""A throwaway PostgreSQL server for tests and benchmarks, from the Debian binaries.

    url, stop = start_postgres()      # postgresql://postgres:<password>@127.0.0.1:<port>/postgres
    db_url = create_database(url)     # a fresh, empty database on that server
    stop()

    trace_connections(directory)      # this process's connections write libpq's protocol trace there
    counted(directory)                # {"round_trips": ..., "statements": ..., "connections": ...}

The server runs as the ``postgres`` user when we are root (``initdb`` refuses root), keeps its data in
a private temporary directory, listens on a free local port, requires the password in the URL for TCP
connections (so tests can try a wrong one), and trades durability against a machine's crash for speed (no fsync:
the OS keeps what the server wrote). A commit is acknowledged only once its WAL is written, as by default: the
restart tests crash the server (``pg_ctl stop -m immediate``), and with ``synchronous_commit=off`` it lost commits
it had acknowledged (a run's last checkpoint, a job's end), which no database a user runs does.
Benchmarks import it with the repository root on ``sys.path``: ``from tests.postgres import start_postgres``.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import psycopg
from psycopg import pq

PASSWORD = "reactgraph-test"
_FAST = "-c fsync=off -c full_page_writes=off -c max_connections=200"


def postgres_bin() -> Path | None:
    """The directory of the newest installed PostgreSQL's ``initdb`` and ``pg_ctl``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


def missing_reason() -> str | None:
    """Why no server can be started here, or None when one can."""
    if postgres_bin() is None:
        return "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root and runuser is missing (initdb refuses root)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _run(args: list[str]) -> None:
    done = subprocess.run(_as_server_user(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip() or done.stdout}")


def start_postgres(tmpdir: str | Path | None = None) -> tuple[str, Callable[[], None]]:
    """Start a server; return its superuser URL and a function that stops it and deletes its data.

    ``tmpdir`` is where the data directory is made (the system temporary directory by default); as root it
    must be reachable by the ``postgres`` user, which pytest's own temporary directories are not.
    """
    if reason := missing_reason():
        raise RuntimeError(reason)
    bin_dir = postgres_bin()
    home = Path(tempfile.mkdtemp(prefix="reactgraph-pg-", dir=tmpdir))
    data, pwfile = home / "data", home / "password"
    pwfile.write_text(PASSWORD)
    if os.geteuid() == 0:
        shutil.chown(home, "postgres")
        shutil.chown(pwfile, "postgres")

    def stop() -> None:
        if (data / "postmaster.pid").exists():
            subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate"]),
                           capture_output=True)
        shutil.rmtree(home, ignore_errors=True)

    def restart(down: float = 0.0) -> None:
        """Stop the server at once (its sessions end: AdminShutdown), wait ``down`` seconds, start it again."""
        _run([str(bin_dir / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate"])
        time.sleep(down)
        _run([str(bin_dir / "pg_ctl"), "start", "-w", "-t", "30", "-D", str(data), "-o", options, "-l", str(home / "server.log")])

    def halt() -> None:
        """Stop the server, keeping its data (``stop`` still deletes it)."""
        _run([str(bin_dir / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate"])

    try:
        _run([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", f"--pwfile={pwfile}", "--no-sync",
              "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C"])
        for attempt in range(3):
            port = _free_port()
            options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 {_FAST}"
            try:
                _run([str(bin_dir / "pg_ctl"), "start", "-w", "-t", "30", "-D", str(data), "-o", options,
                      "-l", str(home / "server.log")])
                break
            except RuntimeError:  # the port was taken in between: try another one
                if attempt == 2:
                    raise RuntimeError(f"postgres did not start: {(home / 'server.log').read_text()[-2000:]}")
    except BaseException:
        stop()
        raise
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{port}/postgres"
    CONTROLS[url] = Controls(restart, halt)
    return url, stop


class Controls(NamedTuple):
    """What fault runs do to a server ``start_postgres`` started: restart it, or stop it for good."""

    restart: Callable[..., None]
    halt: Callable[[], None]


CONTROLS: dict[str, Controls] = {}  # by superuser URL


def controls(url: str) -> Controls:
    """The controls of the server at ``url`` (any database's URL on it)."""
    return CONTROLS[with_database(url, "postgres")]


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` instead."""
    return url.rsplit("/", 1)[0] + "/" + name


def create_database(url: str, name: str | None = None) -> str:
    """Create a fresh empty database on the server at ``url``; return its URL."""
    name = name or f"test_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY file_copy')
    return with_database(url, name)


def trace_connections(directory: str | Path) -> None:
    """From now on, every connection psycopg opens in this process writes libpq's protocol trace (``PQtrace``) to a
    file of its own in ``directory``, complete once the process has exited (libpq buffers it)."""

    def traced(conn: Any) -> Any:
        name = f"{os.getpid()}-{id(conn)}-{time.monotonic_ns()}"
        conn.pgconn.trace(os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT))
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        return conn

    sync_connect, async_connect = psycopg.Connection.connect.__func__, psycopg.AsyncConnection.connect.__func__

    def connect(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return traced(sync_connect(cls, *args, **kwargs))

    async def aconnect(cls: Any, *args: Any, **kwargs: Any) -> Any:
        return traced(await async_connect(cls, *args, **kwargs))

    psycopg.Connection.connect = classmethod(connect)  # type: ignore[method-assign,assignment]
    psycopg.AsyncConnection.connect = classmethod(aconnect)  # type: ignore[method-assign,assignment]


def counted(directory: str | Path) -> dict[str, int]:
    """In the traces of ``directory`` (``trace_connections``), the client's round trips (a batch it ends with a
    ``Sync`` or sends as a simple ``Query``, then waits on), its statements (``Execute`` or ``Query``), the empty ones
    among them (psycopg_pool's test of a connection) and the connections."""
    counts: Counter[str] = Counter({"round_trips": 0, "statements": 0, "empty": 0, "connections": 0})
    for path in Path(directory).iterdir():
        counts["connections"] += 1
        for line in path.read_text(errors="replace").splitlines():
            fields = line.split("\t")
            if len(fields) > 3 and fields[0] == "F":  # F, length, message, its fields: Query "sql"; Parse "name" "sql" ...
                kind, detail = fields[2], fields[3].split(" ")
                counts["round_trips"] += kind in ("Sync", "Query")
                counts["statements"] += kind in ("Execute", "Query")
                sql = detail[1] if kind == "Query" else detail[2] if kind == "Parse" and len(detail) > 2 else None
                counts["empty"] += sql == '""'
            elif len(fields) > 2 and fields[0] == "F":
                counts["round_trips"] += fields[2] == "Sync"
    return dict(counts)
