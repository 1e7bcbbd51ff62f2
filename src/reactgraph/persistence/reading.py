"""Reading runs back from any LangGraph saver, through the compiled graph (``get_state`` /
``get_state_history``, the latter on the thread read once: ``_replay``): where a run stands (``run_info``, ``list_runs``), its history (``history``, ``fork_point``),
its result (``snapshot_result``); ``_export`` writes its trace as text, JSON or Markdown (``format_trace``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Literal, NamedTuple

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel

from reactgraph.answers.result import ReActResult, result_from_state
from reactgraph.answers.waiting import pending_approvals, question_of, waiting_reason
from reactgraph.persistence._replay import LoadedThread, collector_paused
from reactgraph.persistence.activity import Activity
from reactgraph.persistence.base import DECODE_ERRORS, CheckpointStoreError, RunNotFoundError
from reactgraph.state import ReActState, current_turn, iteration_of, tokens_used


class ForkError(ValueError):
    """A fork from a point the thread does not have (the message says which it has)."""


RunStatus = Literal["queued", "running", "waiting", "finished", "failed", "interrupted", "unreadable"]


class RunInfo(BaseModel):
    """One row of ``list_runs``: a thread and where its run stands."""

    thread_id: str
    question: str
    # queued: waiting for a worker (Postgres queue); running: a process drives it now; waiting: for an answer or an
    # approval; finished; failed: an exception ended it (``error``); interrupted: its process died or was stopped
    # (Ctrl-C) before the end (``resume`` continues it); unreadable: its stored state cannot be read (``error`` says why)
    status: RunStatus
    reason: str | None  # the termination reason once finished ('clarification' or 'approval' while waiting)
    iterations: int
    tokens: int
    started: datetime | None
    updated: datetime | None
    metadata: dict[str, Any]  # the latest checkpoint's metadata, with what the caller attached to the run
    error: str | None = None  # why a failed run failed


class HistoryEntry(BaseModel):
    """The state after one super-step of a run, as the checkpointer stored it."""

    checkpoint_id: str
    step: int
    source: str  # 'input' (the run's input), 'loop' (nodes ran), 'fork' (a fork started here), 'update'
    ran: list[str]  # the nodes whose writes this checkpoint holds (source 'loop' only)
    next: list[str]  # the nodes that run from here
    created_at: datetime | None
    iteration: int
    turn: int = 1  # the turn of the thread's conversation the state belongs to (ReActAgent.history sets it)
    values: dict[str, Any]


# -- runs ---------------------------------------------------------------------


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
    tool calls 'approval'); its ``output`` read into ``output_schema``. A turn that stopped before its step was
    recorded (its run failed or its process died, or it runs now) shows the calls of it that finished
    (``unfinished_step``)."""
    interrupts = snapshot.interrupts
    values = snapshot.values
    if not interrupts and (step := unfinished_step(values)) is not None:
        values = {**values, "steps": [*(values.get("steps") or []), step]}
    return result_from_state(
        values, thread_id=thread_id, interrupt_question=question_of(interrupts),
        pending_approvals=pending_approvals(interrupts), output_schema=output_schema,
    )


def unfinished_step(values: dict[str, Any]) -> dict[str, Any] | None:
    """The trace step of the current turn's calls that finished and were saved (their ToolMessages, the chat's last
    messages) when no step of that turn was recorded: a call that ran beside one that failed (the run failed), or
    before a crash, is in the trace. None when the turn has none, or its step is recorded."""
    turn = current_turn(values)
    steps = values.get("steps") or []
    if values.get("termination") or not turn.get("actions") or (steps and steps[-1]["iteration"] >= turn.get("iteration", 0)):
        return None
    results: dict[str, ToolMessage] = {}
    for message in reversed(values.get("messages") or []):
        if not isinstance(message, ToolMessage):
            break
        results.setdefault(message.tool_call_id, message)
    finished = [a for a in sorted(turn["actions"], key=lambda a: a["index"]) if a.get("tool") and a["id"] in results]
    if not finished:
        return None
    observations = []
    for action in finished:
        message, artifact = results[action["id"]], results[action["id"]].artifact or {}
        observations.append({
            "call_id": action["id"], "tool": message.name or action["tool"], "content": message.text,
            "status": "ok" if message.status == "success" else "error", "error_kind": artifact.get("error_kind"),
            **{key: artifact[key] for key in ("duration", "retries", "cached", "truncated", "middleware") if key in artifact},
        })
    return {
        "iteration": turn.get("iteration", 0), "kind": "tools", "thought": turn.get("thought", ""),
        "actions": [{"id": a["id"], "tool": a["tool"], "args": a["args"]} for a in finished],
        "observations": observations, "timestamp": turn.get("started") or values.get("started_at") or 0.0,
    }


def run_info(graph: Any, thread_id: str, activity: Activity | None = None) -> RunInfo:
    """Where the run on ``thread_id`` stands, from its latest checkpoint and its ``activity`` row (running now,
    or failed with an error: ``persistence.activity``), if any."""
    snapshot = graph.get_state(thread_config(thread_id))
    values = snapshot.values
    if not values and not snapshot.next:
        if activity is None:
            raise RunNotFoundError(f"no run with thread id {thread_id!r}")
        return activity_info(activity)  # it failed, or is starting, before its first checkpoint
    if activity is not None and activity.running:
        status: RunStatus = "running"
    elif activity is not None and activity.state == "failed":
        status = "failed"
    elif snapshot.interrupts:
        status = "waiting"
    elif snapshot.tasks or not values.get("termination"):
        # a task to run, or one that ran but whose writes no checkpoint holds yet (the process died between
        # the two): LangGraph shows those writes in the values and leaves the task out of ``next``
        status = "interrupted"
    else:
        status = "finished"
    reason = waiting_reason(snapshot.interrupts) if status == "waiting" else (values.get("termination") or {}).get("reason")
    started = values.get("started_at")
    return RunInfo(
        thread_id=thread_id,
        question=values.get("question") or values.get("query") or (activity.question if activity else None) or "",
        status=status,
        reason=reason if status in ("waiting", "finished") else None,
        iterations=iteration_of(values),
        tokens=tokens_used(values).get("total_tokens", 0),
        started=datetime.fromtimestamp(started, timezone.utc) if started else None,
        updated=_parse_time(snapshot.created_at),
        metadata=dict(snapshot.metadata or {}),
        error=activity.error if status == "failed" and activity else None,
    )


def readable_info(graph: Any, thread_id: str, activity: Activity | None = None) -> RunInfo:
    """``run_info``, or for a run whose stored state cannot be read (a corrupt row, a state another program or a
    hook wrote) a RunInfo with status ``unreadable`` and the error naming it: one bad run never hides the others."""
    try:
        return run_info(graph, thread_id, activity)
    except (CheckpointStoreError, *DECODE_ERRORS) as exc:
        error = str(exc) if isinstance(exc, CheckpointStoreError) else (
            f"the stored state of run {thread_id!r} cannot be read ({type(exc).__name__}: {' '.join(str(exc).split())})"
        )
        return RunInfo(
            thread_id=thread_id, question=activity.question or "" if activity else "", status="unreadable", reason=None,
            iterations=0, tokens=0, started=None, updated=None, metadata={}, error=error,
        )


def activity_info(activity: Activity) -> RunInfo:
    """A run that has no checkpoint: one failed before its first step (a queued run whose tools did not load), or
    one starting now (``interrupted`` when its process is gone)."""
    status: RunStatus = "failed" if activity.state == "failed" else "running" if activity.running else "interrupted"
    when = datetime.fromtimestamp(activity.since, timezone.utc)
    return RunInfo(
        thread_id=activity.thread_id, question=activity.question or "", status=status, reason=None, iterations=0,
        tokens=0, started=when, updated=when, metadata={}, error=activity.error if status == "failed" else None,
    )


def list_runs(
    graph: Any, limit: int | None = None, threads: list[str] | None = None, activities: dict[str, Activity] | None = None
) -> list[RunInfo]:
    """The runs in the graph's checkpointer (of ``threads``, when the caller has listed them) and those with an
    ``activities`` row only (failed before their first checkpoint), most recently updated first."""
    threads = thread_ids(graph.checkpointer) if threads is None else threads
    activities = activities or {}
    runs = [readable_info(graph, t, activities.get(t)) for t in threads[:limit]]
    checkpointed = set(threads)
    runs += [activity_info(a) for t, a in activities.items() if t not in checkpointed]
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    return sorted(runs, key=lambda r: r.updated or oldest, reverse=True)[:limit]


def history(
    graph: Any, thread_id: str, turn_of: Callable[[ReActState, list[str]], int] | None = None
) -> list[HistoryEntry]:
    """The state after each super-step of the run's current branch, oldest first; ``turn_of`` (given each entry's
    values and next nodes, oldest first) names the entry's turn.

    After a fork the thread holds several branches; this follows the parent links back
    from the latest checkpoint, so the entries are exactly the ones that led to it. The checkpoints are
    read once (``_replay.LoadedThread``): one pass over the run, however long. Of each snapshot LangGraph gives
    only what an entry needs is kept (``Step``), and only on the branch, so the rest is freed as it goes. The
    garbage collector waits meanwhile (``collector_paused``)."""
    with collector_paused():
        return _history(graph, thread_id, turn_of)


def _history(
    graph: Any, thread_id: str, turn_of: Callable[[ReActState, list[str]], int] | None
) -> list[HistoryEntry]:
    loaded = LoadedThread.read(graph.checkpointer, thread_id, graph.channels)
    branch = loaded.branch()
    if not branch:
        raise RunNotFoundError(f"no run with thread id {thread_id!r}")
    on_branch = set(branch)
    steps = {
        cid: Step.of(snapshot)
        for snapshot in graph.copy({"checkpointer": loaded}).get_state_history(thread_config(thread_id))
        if (cid := snapshot.config["configurable"]["checkpoint_id"]) in on_branch
    }
    entries: list[HistoryEntry] = []
    before: Step | None = None
    for cid in reversed(branch):
        step = steps[cid]
        source = step.metadata.get("source", "loop")
        entries.append(
            HistoryEntry(
                checkpoint_id=cid,
                step=step.metadata.get("step", 0),
                source=source,
                ran=sorted(before.tasks) if before and source == "loop" else [],
                next=step.next,
                created_at=_parse_time(step.created_at),
                iteration=iteration_of(step.values),
                turn=turn_of(step.values, step.next) if turn_of else 1,
                values=step.values,
            )
        )
        before = step
    return entries


class Step(NamedTuple):
    """What a ``HistoryEntry`` takes of LangGraph's snapshot of a checkpoint."""

    metadata: dict[str, Any]
    tasks: set[str]  # the names of the tasks that run from it
    next: list[str]
    created_at: str | None
    values: ReActState

    @classmethod
    def of(cls, snapshot: Any) -> Step:
        names = {t.name for t in snapshot.tasks}
        return cls(snapshot.metadata or {}, names, list(snapshot.next), snapshot.created_at, snapshot.values)


def fork_point(entries: list[HistoryEntry], turn: int, iteration: int) -> HistoryEntry:
    """Where a fork "after iteration k of turn t" starts: the checkpoint holding that iteration's tool
    results, before observe (so observe and the stop rules run again under the fork's config); for k = 0,
    the checkpoint before the turn's first think (or its first middleware ``before_model`` hook)."""
    ours = [e for e in entries if e.turn == turn]
    if not ours:
        raise ForkError(f"cannot fork turn {turn}: the thread has turns {sorted({e.turn for e in entries})}")
    if iteration == 0:  # before think, or before the middleware hooks that run ahead of it
        found = [e for e in ours if e.next == ["think"] or [n.rsplit(".", 1)[-1] for n in e.next] == ["before_model"]][:1]
    else:
        found = [e for e in ours if e.next == ["observe"] and e.iteration == iteration][-1:]
    if not found:
        done = sorted({e.iteration for e in ours if e.next == ["observe"]})
        raise ForkError(
            f"cannot fork after iteration {iteration} of turn {turn}: it has tool results for iterations {done} (or use 0)"
        )
    return found[0]


def turn_end(entries: list[HistoryEntry], turn: int) -> HistoryEntry:
    """The checkpoint where ``turn`` ended (a new question forked from it is the turn after)."""
    ended = [e for e in entries if e.turn == turn and not e.next and e.values.get("termination")]
    if not ended:
        raise ForkError(f"turn {turn} has not ended on this thread's current branch")
    return ended[-1]


def thread_config(thread_id: str, checkpoint_id: str | None = None) -> RunnableConfig:
    configurable = {"thread_id": thread_id} | ({"checkpoint_id": checkpoint_id} if checkpoint_id else {})
    return {"configurable": configurable}


def _parse_time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
