"""Durable runs: the SQLite checkpointer, and reading runs back from any LangGraph saver.

By default (``reactgraph.stores``) every run is checkpointed to ``./.reactgraph/checkpoints.sqlite``
(or the file named by ``REACTGRAPH_DB``) with LangGraph's own ``SqliteSaver`` for sync calls and
``AsyncSqliteSaver`` for async ones, both on the same file in WAL mode, so several
threads or processes can write runs to it. Before the first write the file is checked
(``check_file``): one that is not whole, or that holds another application's tables, is
refused untouched. A database that cannot be used (corrupt, foreign, a row that cannot be
decoded, locked, read-only, disk full) raises ``CheckpointStoreError`` naming the file and
saying what is wrong; it is never rewritten or removed.

The inspection helpers (``list_runs``, ``history``, ``format_trace``) read through the
compiled graph (``get_state`` / ``get_state_history``), so they work with any saver.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from pydantic import BaseModel

from reactgraph.answers.result import ReActResult, ReActTrace, result_from_state
from reactgraph.answers.waiting import pending_approvals, question_of, waiting_reason

DB_ENV = "REACTGRAPH_DB"
DEFAULT_DB = Path(".reactgraph") / "checkpoints.sqlite"
BUSY_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock before giving up

RunStatus = Literal["finished", "waiting", "interrupted"]


class CheckpointStoreError(RuntimeError):
    """The checkpoint database cannot be used; the message names the file and what to do."""


class RunNotFoundError(LookupError):
    """No checkpoint exists for the thread id."""


class RunInfo(BaseModel):
    """One row of ``list_runs``: a thread and where its run stands."""

    thread_id: str
    question: str
    status: RunStatus  # finished; waiting for an answer or an approval; interrupted (crashed, or still running)
    reason: str | None  # the termination reason once finished ('clarification' or 'approval' while waiting)
    iterations: int
    tokens: int
    started: datetime | None
    updated: datetime | None
    metadata: dict[str, Any]  # the latest checkpoint's metadata, with what the caller attached to the run


class HistoryEntry(BaseModel):
    """The state after one super-step of a run, as the checkpointer stored it."""

    checkpoint_id: str
    step: int
    source: str  # 'input' (the run's input), 'loop' (nodes ran), 'fork' (a fork started here), 'update'
    ran: list[str]  # the nodes whose writes this checkpoint holds (source 'loop' only)
    next: list[str]  # the nodes that run from here
    created_at: datetime | None
    iteration: int
    values: dict[str, Any]


# -- the SQLite file -----------------------------------------------------------------------

# The tables LangGraph's SQLite saver and store keep, and our own beside them (``reactgraph.stores``); a
# file holding any other table is another application's, and is never written to.
LANGGRAPH_TABLES = frozenset({"checkpoints", "writes", "store", "store_vectors", "store_migrations", "vector_migrations"})
OWN_TABLES = frozenset({"reactgraph_cancels"})
SAVER_COLUMNS = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint", "metadata"},
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"},
}
# What decoding a stored row raises when its bytes are not what the saver wrote (bad msgpack or
# UTF-8 or JSON, an unknown serializer, a value of the wrong shape).
DECODE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError, NotImplementedError)
UNTOUCHED = "it was left untouched: move it aside or choose another file with --db / REACTGRAPH_DB"


def describe_error(path: Path, exc: BaseException, run: str | None = None) -> str:
    """A message that names the file (and the run, when known), says what is wrong and what to do."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF  # the primary result code
    detail = str(exc)
    if isinstance(exc, DECODE_ERRORS):
        of_run = f" of run {run!r}" if run is not None else ""
        what, advice = f"a stored checkpoint{of_run} cannot be read", f"the row is corrupt or was written by another program; {UNTOUCHED}"
        detail = f"{type(exc).__name__}: {exc}"
    elif code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        what, advice = "locked by another process", "it held the lock for longer than the busy timeout; retry when it is done"
    elif code == sqlite3.SQLITE_FULL:
        what, advice = "disk full", "free space on its disk or choose another file with --db / REACTGRAPH_DB; runs already stored are kept"
    elif code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM) or isinstance(exc, PermissionError):
        what, advice = "not writable", "fix the permissions of it (or its directory) or choose another file with --db / REACTGRAPH_DB"
    elif code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        what, advice = "not a valid SQLite database (corrupt?)", UNTOUCHED
    else:
        what, advice = "cannot be used", "check that the path names a writable SQLite file, or choose another with --db / REACTGRAPH_DB"
    return f"checkpoint database {Path(path).absolute()}: {what} ({detail}); {advice}"


@contextmanager
def reading_run(path: Path | None, run: str | None = None) -> Iterator[None]:
    """Reading a run back: SQLite errors as ``store_errors`` names them; a state that decodes (the
    saver checks that) but is no result of this version (a corrupt value, a hand edit, another
    version's state) is CheckpointStoreError naming the run and all three causes."""
    with store_errors(path, (sqlite3.Error,), run):
        try:
            yield
        except DECODE_ERRORS as exc:
            if path is None:
                raise
            which = f"run {run!r}" if run is not None else "a stored run"
            raise CheckpointStoreError(
                f"checkpoint database {Path(path).absolute()}: the state of {which} cannot be read as a result "
                f"({type(exc).__name__}: {exc}); a stored value is corrupt, or the state was edited by hand "
                "(update_state, Studio) or written by another version of reactgraph"
            ) from exc


@contextmanager
def store_errors(
    path: Path | None, errors: tuple[type[BaseException], ...] = (sqlite3.Error,), run: str | None = None
) -> Iterator[None]:
    """Turn ``errors`` raised while using the file at ``path`` (for the run ``run``) into CheckpointStoreError."""
    if path is None:
        yield
        return
    try:
        yield
    except errors as exc:
        raise CheckpointStoreError(describe_error(path, exc, run)) from exc


def check_file(path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
    """Refuse a file reactgraph must not write to, before anything is written: one SQLite cannot read
    whole (``PRAGMA quick_check``: one pass over the pages, ~0.05 s per 100 MB of checkpoints), or one
    holding another application's tables. A missing or empty file, an empty database and a file of
    LangGraph's tables pass. The file is only read (``mode=ro``)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with store_errors(path), closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=busy_timeout)) as conn:
        rows = conn.execute("SELECT tbl_name FROM sqlite_master").fetchall()
        foreign = sorted({t for (t,) in rows if t not in LANGGRAPH_TABLES | OWN_TABLES and not t.startswith("sqlite_")})
        for table, needed in SAVER_COLUMNS.items():
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if columns and not needed <= columns:
                foreign.append(f"{table} (columns {', '.join(sorted(columns))})")
        if foreign:
            raise CheckpointStoreError(
                f"checkpoint database {path.absolute()}: another application's file (it holds the tables "
                f"{', '.join(foreign)}); {UNTOUCHED}"
            )
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise CheckpointStoreError(
                f"checkpoint database {path.absolute()}: corrupt (quick_check: {'; '.join(problems)}); {UNTOUCHED}"
            )


def open_db(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """Open (creating when missing) the SQLite file in WAL mode, after ``check_file``; raise
    CheckpointStoreError if it is unusable or not ours to write."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        path.parent.mkdir(parents=True, exist_ok=True)
        check_file(path, busy_timeout)
        conn = sqlite3.connect(path, timeout=busy_timeout, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across process crashes
        except sqlite3.Error:
            conn.close()
            raise
    return conn


def sqlite_saver(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> CheckpointFile:
    """LangGraph's SqliteSaver on ``path`` (see ``CheckpointFile``), its tables created now so a bad
    file fails here. ``busy_timeout``: seconds a write waits for another process's lock."""
    saver = CheckpointFile(open_db(path, busy_timeout), Path(path), busy_timeout)
    try:
        with store_errors(Path(path)):
            saver.setup()
    except CheckpointStoreError:
        saver.conn.close()
        raise
    return saver


@asynccontextmanager
async def async_sqlite_saver(path: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> AsyncIterator[AsyncCheckpointFile]:
    """LangGraph's AsyncSqliteSaver on the same file, for one async run."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        conn = await aiosqlite.connect(path, timeout=busy_timeout)
    try:
        saver = AsyncCheckpointFile(conn, path, busy_timeout)
        with store_errors(path):
            await saver.setup()
        yield saver
    finally:
        await conn.close()


# -- guarded savers ------------------------------------------------------------------------


class CheckpointFile(SqliteSaver):
    """LangGraph's SqliteSaver on one file, guarded: a stored row that cannot be decoded raises
    CheckpointStoreError naming the file, and one lock wait is enough (see ``WaitOnce``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        super().__init__(conn)
        self.path, self.busy_timeout = path, busy_timeout
        self.lock = WaitOnce(self.lock, conn, busy_timeout)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with decoding(self.path, config):
            return checked(super().get_tuple(config))

    def list(self, config: RunnableConfig | None, **options: Any) -> Iterator[CheckpointTuple]:
        with decoding(self.path, config):
            for item in super().list(config, **options):
                yield checked(item)

    def get_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        with decoding(self.path, config):
            return super().get_delta_channel_history(config=config, channels=channels)


class AsyncCheckpointFile(AsyncSqliteSaver):
    """LangGraph's AsyncSqliteSaver on one file, guarded as ``CheckpointFile`` is."""

    def __init__(self, conn: aiosqlite.Connection, path: Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        super().__init__(conn)
        self.path, self.busy_timeout = path, busy_timeout
        self.lock = WaitOnce(self.lock, conn, busy_timeout)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with decoding(self.path, config):
            return checked(await super().aget_tuple(config))

    async def alist(self, config: RunnableConfig | None, **options: Any) -> AsyncIterator[CheckpointTuple]:
        with decoding(self.path, config):
            async for item in super().alist(config, **options):
                yield checked(item)

    async def aget_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        with decoding(self.path, config):
            return await super().aget_delta_channel_history(config=config, channels=channels)


@contextmanager
def decoding(path: Path, config: RunnableConfig | None) -> Iterator[None]:
    """Turn a stored row that cannot be decoded into CheckpointStoreError naming the file and the run."""
    try:
        yield
    except DECODE_ERRORS as exc:
        run = ((config or {}).get("configurable") or {}).get("thread_id")
        raise CheckpointStoreError(describe_error(path, exc, run)) from exc


def checked(item: CheckpointTuple | None) -> CheckpointTuple | None:
    """``item`` if its decoded columns have the shape LangGraph wrote, else ValueError saying which does not."""
    if item is None:
        return None
    checkpoint = item.checkpoint
    if not isinstance(checkpoint, dict) or not all(
        isinstance(checkpoint.get(key), dict) for key in ("channel_values", "channel_versions", "versions_seen")
    ):
        raise ValueError(f"the checkpoint column decodes to {type(checkpoint).__name__}, not a checkpoint")
    if not isinstance(item.metadata, dict):
        raise ValueError(f"the metadata column decodes to {type(item.metadata).__name__}, not an object")
    if not all(isinstance(write, tuple) and len(write) == 3 and isinstance(write[1], str) for write in item.pending_writes or []):
        raise ValueError("a row of the writes table has no channel name")
    return item


class WaitOnce:
    """A saver's lock that also rations waiting for other processes: once a statement has waited its
    whole busy timeout for a lock and failed, the connection stops waiting for ``NO_WAIT_SECONDS``,
    so the writes the failing run had queued behind it (they follow at once) fail at once instead of
    each waiting again (a free lock still lets them through); a later run waits as usual. The state
    changes while the saver's lock is held."""

    NO_WAIT_SECONDS = 1.0

    def __init__(self, lock: Any, conn: Any, busy_timeout: float) -> None:
        self._lock, self._conn, self._busy_ms = lock, conn, int(busy_timeout * 1000)
        self._until: float | None = None  # while set, statements do not wait for locks

    def _change(self, exc: BaseException | None) -> str | None:
        """The PRAGMA that moves to the next state, if any."""
        if self._until is None and is_locked(exc):
            self._until = time.monotonic() + min(self.NO_WAIT_SECONDS, self._busy_ms / 1000)
            return "PRAGMA busy_timeout = 0"
        if self._until is not None and time.monotonic() >= self._until:
            self._until = None
            return f"PRAGMA busy_timeout = {self._busy_ms}"
        return None

    def __enter__(self) -> WaitOnce:
        self._lock.acquire()
        try:
            if pragma := self._change(None):
                self._conn.execute(pragma)
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if pragma := self._change(exc):
                self._conn.execute(pragma)
        finally:
            self._lock.release()

    async def __aenter__(self) -> WaitOnce:
        await self._lock.acquire()
        try:
            if pragma := self._change(None):
                await self._conn.execute(pragma)
        except BaseException:
            self._lock.release()
            raise
        return self

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if pragma := self._change(exc):
                await self._conn.execute(pragma)
        finally:
            self._lock.release()


def is_locked(exc: BaseException | None) -> bool:
    """Whether ``exc`` is SQLite giving up on another connection's lock."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    return isinstance(exc, sqlite3.OperationalError) and code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class DefaultCheckpointer:
    """Marker for "the default SQLite file" (``REACTGRAPH_DB`` or ``./.reactgraph/checkpoints.sqlite``)."""

    def __repr__(self) -> str:
        return "DEFAULT_CHECKPOINTER"


DEFAULT_CHECKPOINTER = DefaultCheckpointer()


def saver_path(saver: Any) -> Path | None:
    """The file behind a SqliteSaver (None for other savers and in-memory databases)."""
    if not isinstance(saver, SqliteSaver):
        return None
    with saver.lock:
        rows = saver.conn.execute("PRAGMA database_list").fetchall()
    file = next((row[2] for row in rows if row[1] == "main"), "")
    return Path(file) if file else None


# -- reading runs back ---------------------------------------------------------------------


def thread_ids(saver: BaseCheckpointSaver) -> list[str]:
    """Every thread with a checkpoint, most recently updated first."""
    if isinstance(saver, SqliteSaver):
        with saver.cursor(transaction=False) as cur:
            cur.execute(
                "SELECT thread_id, MAX(checkpoint_id) AS last FROM checkpoints WHERE checkpoint_ns = '' "
                "GROUP BY thread_id ORDER BY last DESC"
            )
            threads = [row[0] for row in cur.fetchall()]
        if bad := [t for t in threads if not isinstance(t, str)]:
            raise ValueError(f"the checkpoints table holds thread ids that are not text: {bad[:3]}")
        return threads
    latest: dict[str, str] = {}
    for item in saver.list(None):
        conf = item.config["configurable"]
        if conf.get("checkpoint_ns", "") == "":
            latest[conf["thread_id"]] = max(latest.get(conf["thread_id"], ""), conf["checkpoint_id"])
    return sorted(latest, key=latest.__getitem__, reverse=True)


def snapshot_result(snapshot: Any, thread_id: str, output_schema: type[BaseModel] | None = None) -> ReActResult:
    """The ReActResult a state snapshot stands for (a pending question means 'clarification', pending
    tool calls 'approval'); its ``output`` read into ``output_schema``."""
    interrupts = snapshot.interrupts
    return result_from_state(
        snapshot.values, thread_id=thread_id, interrupt_question=question_of(interrupts),
        pending_approvals=pending_approvals(interrupts), output_schema=output_schema,
    )


def run_info(graph: Any, thread_id: str) -> RunInfo:
    """Where the run on ``thread_id`` stands, from its latest checkpoint."""
    snapshot = graph.get_state(thread_config(thread_id))
    values = snapshot.values
    if not values and not snapshot.next:
        raise RunNotFoundError(f"no run with thread id {thread_id!r}")
    if snapshot.interrupts:
        status: RunStatus = "waiting"
    elif snapshot.next or not values.get("termination"):
        status = "interrupted"
    else:
        status = "finished"
    reason = waiting_reason(snapshot.interrupts) if status == "waiting" else (values.get("termination") or {}).get("reason")
    started = values.get("started_at")
    return RunInfo(
        thread_id=thread_id,
        question=values.get("question") or values.get("query") or "",
        status=status,
        reason=reason if status != "interrupted" else None,
        iterations=values.get("iteration", 0),
        tokens=(values.get("token_usage") or {}).get("total_tokens", 0),
        started=datetime.fromtimestamp(started, timezone.utc) if started else None,
        updated=_parse_time(snapshot.created_at),
        metadata=dict(snapshot.metadata or {}),
    )


def list_runs(graph: Any, limit: int | None = None, threads: list[str] | None = None) -> list[RunInfo]:
    """The runs in the graph's checkpointer (of ``threads``, when the caller has listed them), most recently
    updated first."""
    threads = thread_ids(graph.checkpointer) if threads is None else threads
    return [run_info(graph, t) for t in threads[:limit]]


def history(graph: Any, thread_id: str) -> list[HistoryEntry]:
    """The state after each super-step of the run's current branch, oldest first.

    After a fork the thread holds several branches; this follows the parent links back
    from the latest checkpoint, so the entries are exactly the ones that led to it."""
    snapshots = {s.config["configurable"]["checkpoint_id"]: s for s in graph.get_state_history(thread_config(thread_id))}
    if not snapshots:
        raise RunNotFoundError(f"no run with thread id {thread_id!r}")
    chain = []
    current: str | None = max(snapshots)
    while current in snapshots:
        chain.append(snapshots[current])
        parent = chain[-1].parent_config
        current = parent["configurable"]["checkpoint_id"] if parent else None
    chain.reverse()
    entries = []
    for before, snapshot in zip([None, *chain], chain, strict=False):
        meta = snapshot.metadata or {}
        source = meta.get("source", "loop")
        entries.append(
            HistoryEntry(
                checkpoint_id=snapshot.config["configurable"]["checkpoint_id"],
                step=meta.get("step", 0),
                source=source,
                ran=sorted({t.name for t in before.tasks}) if before and source == "loop" else [],
                next=list(snapshot.next),
                created_at=_parse_time(snapshot.created_at),
                iteration=snapshot.values.get("iteration", 0),
                values=dict(snapshot.values),
            )
        )
    return entries


def fork_point(entries: list[HistoryEntry], iteration: int) -> HistoryEntry:
    """Where a fork "after iteration k" starts: the checkpoint holding iteration k's tool results,
    before observe (so observe and the stop rules run again under the fork's config); for k = 0,
    the checkpoint before the first think."""
    node = "think" if iteration == 0 else "observe"
    found = [e for e in entries if e.next == [node] and e.iteration == iteration]
    if not found:
        done = sorted({e.iteration for e in entries if e.next == ["observe"]})
        raise ValueError(f"cannot fork after iteration {iteration}: the run has tool results for iterations {done} (or use 0)")
    return found[-1]


def thread_config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread_id} | ({"checkpoint_id": checkpoint_id} if checkpoint_id else {})
    return {"configurable": configurable}


def _parse_time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


# -- exporting a trace ---------------------------------------------------------------------

TraceFormat = Literal["text", "json", "markdown"]


def format_trace(result: ReActResult, fmt: TraceFormat = "text") -> str:
    """The run's trace as plain text (Thought / Action / Observation), JSON, or Markdown."""
    if fmt == "json":
        return result.model_dump_json(indent=2)
    if fmt == "markdown":
        return _markdown(result)
    if fmt == "text":
        footer = f"[{result.termination_reason.value}] {result.termination_detail}".rstrip()
        return "\n".join(filter(None, [f"Question: {result.question or ''}", result.trace.scratchpad(), footer]))
    raise ValueError(f"unknown trace format {fmt!r}: use text, json or markdown")


def _markdown(result: ReActResult) -> str:
    lines = [f"# Run {result.thread_id}", "", f"**Question:** {result.question or ''}", "", *_markdown_steps(result.trace)]
    if result.summary:
        lines += ["## Summary", "", result.summary, ""]
    lines += [
        "## Result",
        "",
        f"**Answer:** {result.final_answer if result.final_answer is not None else '(none)'}",
        "",
        f"- reason: {result.termination_reason.value} ({result.termination_detail})",
        f"- iterations: {result.trace.total_iterations}",
        f"- tokens: {result.token_usage.total_tokens}{' (estimated)' if result.token_usage.estimated else ''}",
        *([f"- confidence: {result.confidence:.2f}"] if result.confidence is not None else []),
    ]
    return "\n".join(lines) + "\n"


def _markdown_steps(trace: ReActTrace, indent: str = "") -> list[str]:
    """The steps as Markdown; a sub-agent's steps in a block quote under its call, ``indent`` deeper."""
    lines: list[str] = []
    for step in trace.steps:
        title = "Partial answer" if step.kind == "partial_answer" else f"Iteration {step.iteration}"
        lines += [f"{'#' * (2 + len(indent) // 2)} {title}{' (final)' if step.kind == 'final' else ''}", ""]
        if step.thought:
            lines += [f"**Thought:** {step.thought}", ""]
        for action, obs in zip(step.actions, step.observations, strict=False):
            args = json.dumps(action.args, ensure_ascii=False)
            lines += [f"- **{action.tool or '(no tool)'}** `{args}` → {obs.status}", ""]
            if obs.trace is not None:
                lines += [*_markdown_steps(obs.trace, indent + "> "), ""]
            lines += ["  ```", *(f"  {line}" for line in obs.content.splitlines() or [""]), "  ```", ""]
    return [f"{indent}{line}".rstrip() for line in lines]
