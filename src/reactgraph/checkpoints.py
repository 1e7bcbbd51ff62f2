"""Durable runs: the SQLite checkpointer, and reading runs back from any LangGraph saver.

By default every run is checkpointed to ``./.reactgraph/checkpoints.sqlite`` (or the
file named by ``REACTGRAPH_DB``) with LangGraph's own ``SqliteSaver`` for sync calls and
``AsyncSqliteSaver`` for async ones, both on the same file in WAL mode, so several
threads or processes can write runs to it. A database that cannot be used (corrupt,
locked, read-only) raises ``CheckpointStoreError`` naming the file; it is never
rewritten or removed.

The inspection helpers (``list_runs``, ``history``, ``format_trace``) read through the
compiled graph (``get_state`` / ``get_state_history``), so they work with any saver.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from pydantic import BaseModel

from reactgraph.result import ReActResult, result_from_state

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
    status: RunStatus  # finished; waiting for a clarification answer; interrupted (crashed, or still running)
    reason: str | None  # the termination reason once finished ('clarification' while waiting)
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


def default_db_path() -> Path:
    """``REACTGRAPH_DB`` when set, else ``./.reactgraph/checkpoints.sqlite``."""
    return Path(os.environ.get(DB_ENV, "").strip() or DEFAULT_DB)


def describe_error(path: Path, exc: BaseException) -> str:
    """A message that names the file, says what is wrong with it and what to do."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        hint = f"another process held a lock on it for more than {BUSY_TIMEOUT:g}s; retry when it is done"
    elif "readonly" in text or "read-only" in text or "unable to open" in text or isinstance(exc, PermissionError):
        hint = "it (or its directory) is not writable; fix its permissions or choose another file with --db / REACTGRAPH_DB"
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        hint = "it is not a valid SQLite database (corrupt?); it was left untouched, move it aside or choose another file"
    else:
        hint = "check that the path names a writable SQLite file, or choose another with --db / REACTGRAPH_DB"
    return f"checkpoint database {Path(path).absolute()}: {exc} ({hint})"


@contextmanager
def store_errors(path: Path | None, errors: tuple[type[BaseException], ...] = (sqlite3.Error,)) -> Iterator[None]:
    """Turn SQLite errors raised while using the file at ``path`` into CheckpointStoreError."""
    if path is None:
        yield
        return
    try:
        yield
    except errors as exc:
        raise CheckpointStoreError(describe_error(path, exc)) from exc


def open_db(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open (creating when missing) the SQLite file in WAL mode; raise CheckpointStoreError if unusable."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across process crashes
        except sqlite3.Error:
            conn.close()
            raise
    return conn


def sqlite_saver(path: str | os.PathLike[str]) -> SqliteSaver:
    """LangGraph's SqliteSaver on ``path``, its tables created now so a bad file fails here."""
    saver = SqliteSaver(open_db(path))
    try:
        with store_errors(Path(path)):
            saver.setup()
    except CheckpointStoreError:
        saver.conn.close()
        raise
    return saver


@asynccontextmanager
async def async_sqlite_saver(path: str | os.PathLike[str]) -> AsyncIterator[AsyncSqliteSaver]:
    """LangGraph's AsyncSqliteSaver on the same file, for one async run."""
    path = Path(path)
    with store_errors(path, (sqlite3.Error, OSError)):
        conn = await aiosqlite.connect(path, timeout=BUSY_TIMEOUT)
    try:
        saver = AsyncSqliteSaver(conn)
        with store_errors(path):
            await saver.setup()
        yield saver
    finally:
        await conn.close()


class DefaultCheckpointer:
    """Marker for "the default SQLite file" (``REACTGRAPH_DB`` or ``./.reactgraph/checkpoints.sqlite``)."""

    def __repr__(self) -> str:
        return "DEFAULT_CHECKPOINTER"


DEFAULT_CHECKPOINTER = DefaultCheckpointer()


def resolve_checkpointer(spec: Any) -> tuple[BaseCheckpointSaver, Path | None]:
    """The saver for an agent, and the SQLite file behind it (None when there is none):
    DEFAULT_CHECKPOINTER or a path -> SqliteSaver on that file; None -> in memory; a saver -> itself."""
    if spec is None:
        return InMemorySaver(), None
    if isinstance(spec, DefaultCheckpointer | str | os.PathLike):
        path = default_db_path() if isinstance(spec, DefaultCheckpointer) else Path(spec)
        return sqlite_saver(path), path
    if isinstance(spec, BaseCheckpointSaver):
        return spec, saver_path(spec)
    raise TypeError(f"checkpointer must be a LangGraph saver, a file path or None, got {type(spec).__name__}")


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
            return [row[0] for row in cur.fetchall()]
    latest: dict[str, str] = {}
    for item in saver.list(None):
        conf = item.config["configurable"]
        if conf.get("checkpoint_ns", "") == "":
            latest[conf["thread_id"]] = max(latest.get(conf["thread_id"], ""), conf["checkpoint_id"])
    return sorted(latest, key=latest.__getitem__, reverse=True)


def snapshot_result(snapshot: Any, thread_id: str) -> ReActResult:
    """The ReActResult a state snapshot stands for (a pending interrupt means 'clarification')."""
    question = next((i.value.get("question") for i in snapshot.interrupts if isinstance(i.value, dict)), None)
    return result_from_state(snapshot.values, thread_id=thread_id, interrupt_question=question)


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
    reason = "clarification" if status == "waiting" else (values.get("termination") or {}).get("reason")
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


def list_runs(graph: Any, limit: int | None = None) -> list[RunInfo]:
    """The runs in the graph's checkpointer, most recently updated first."""
    return [run_info(graph, t) for t in thread_ids(graph.checkpointer)[:limit]]


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
    lines = [f"# Run {result.thread_id}", "", f"**Question:** {result.question or ''}", ""]
    for step in result.trace.steps:
        lines += [f"## Iteration {step.iteration}", ""]
        if step.thought:
            lines += [f"**Thought:** {step.thought}", ""]
        for action, obs in zip(step.actions, step.observations, strict=False):
            args = json.dumps(action.args, ensure_ascii=False)
            lines += [f"- **{action.tool or '(no tool)'}** `{args}` → {obs.status}", "", "  ```", *(f"  {line}" for line in obs.content.splitlines() or [""]), "  ```", ""]
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
    ]
    return "\n".join(lines) + "\n"
