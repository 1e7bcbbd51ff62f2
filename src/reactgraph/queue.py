"""Queued runs on PostgreSQL: ``submit`` a run, workers take it from procrastinate's task queue.

    thread = submit("What is 6*7?", db="postgresql://…", model="ollama:qwen2.5:7b", tools="calculator")
    run_worker(db="postgresql://…", concurrency=4)  # until SIGINT / SIGTERM, then finishes its runs

A queued run is one procrastinate job (task ``reactgraph.run``) in the same database as the runs'
checkpoints: its question, thread id and options (the model, the tools and output schema as the CLI
names them, AgentConfig overrides), all JSON. A worker takes it under procrastinate's row lock (one
worker per job) and runs it with ``ReActAgent.arun`` on the Postgres checkpointer, holding a Postgres
advisory lock on the thread for as long as the run lasts, so a thread never runs twice at once.

When a worker dies its heartbeat stops; a periodic task of the other workers retries the jobs of
workers silent for longer than ``stalled_after`` seconds (procrastinate's ``get_stalled_jobs`` /
``retry_job``). A retried job whose run already has checkpoints resumes it from the last one
(``aresume``: a tool call that finished is not run again); one whose run had finished is not run again.

When the database goes away (a restart), procrastinate stops the worker (its listener or heartbeat failed); the
worker lets the runs in hand end, reconnects and takes runs again (``until_stopped``), or exits with
QueueConnectionLost after ``reconnect_within`` seconds. A run that lost the database raises RunInterrupted, and
its job is retried (``RUN_RETRY``) and resumed; a job whose end could not be recorded is taken up as a stalled
worker's. Giving the thread's lock back on a connection the restart closed is no error of the run.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import datetime
import json
import logging
import math
import os
import signal
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import urlsplit

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_delay, wait_exponential

from reactgraph.errors import missing_extra

try:  # installed with the postgres extra
    import procrastinate
    import psycopg
    from procrastinate.exceptions import ConnectorException
    from procrastinate.manager import JobManager
    from procrastinate.schema import SchemaManager
    from psycopg_pool import AsyncConnectionPool, PoolTimeout
except ImportError as exc:
    raise missing_extra("postgres", "queued runs (submit, worker, the queue of a postgresql:// database)", exc) from None

from reactgraph.agent import ReActAgent
from reactgraph.answers.typed import parse_signature
from reactgraph.config import ConfigError, Group, make_config
from reactgraph.loading import load_model, load_tools
from reactgraph.persistence import open_store
from reactgraph.persistence.activity import Activity, error_text, this_owner
from reactgraph.persistence.base import DB_ENV, CheckpointStoreError, Hold, RunNotFoundError, is_postgres_url
from reactgraph.persistence.postgres import KIND_LOCK, QUEUE_SCHEMA, acheck_if_closed, only_row, redacted
from reactgraph.persistence.reading import RunInfo
from reactgraph.state import checked_question, checked_thread_id

TASK = "reactgraph.run"
RETRY_TASK = "reactgraph.retry_stalled_runs"
QUEUE = "reactgraph"
JOB_KEY = "reactgraph_job"  # checkpoint metadata: the id of the job whose run wrote the checkpoint
SPECS = ("model", "tools", "mcp", "documents", "output_schema")  # options naming what to load, as the CLI's flags do
LABELS = {key: f"reactgraph_{key}" for key in SPECS}
STALLED_AFTER = 30.0  # seconds without a heartbeat after which a worker's runs are taken up by others
RETRY_PRIORITY = 100  # the retry of stalled jobs goes before the queued runs (procrastinate takes higher first)
RECONNECT_WITHIN = 120.0  # seconds a worker that lost its database tries to reconnect before it exits
RECONNECT_EVERY = 1.0  # seconds between its tries
HOLD_CHECK_EVERY = 0.25  # seconds between a queued run's checks that it still holds its thread
QUEUE_POOL_TIMEOUT = 10.0  # seconds procrastinate's pool waits for a connection (a lost database is seen sooner)

logger = logging.getLogger(__name__)


class QueueConfigError(ConfigError):
    """The queue cannot be used with these settings (not a Postgres URL, bad run options)."""


class QueueConnectionLost(CheckpointStoreError):
    """A worker lost its database and could not reconnect within ``reconnect_within`` seconds; the message says
    which database and the last error."""


class RunInterrupted(Exception):
    """A queued run stopped because the database went away under it (a restart): its job is retried, and the
    retry resumes the run from its last checkpoint (``RUN_RETRY``)."""


# A run that lost the database is retried (and resumed): at once, then 1 s, 2 s, ... later, 30 times at most.
RUN_RETRY = procrastinate.RetryStrategy(max_attempts=30, linear_wait=1, retry_exceptions={RunInterrupted})


def lost_database(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is the database going away: a connection that failed or
    was closed (a restart's AdminShutdown), a pool that found none."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError | PoolTimeout | ConnectionError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


# -- the database --------------------------------------------------------------------------


def queue_url(db: str | None = None) -> str:
    """The ``postgresql://`` URL of the queue: ``db``, else ``REACTGRAPH_DB``; QueueConfigError otherwise."""
    url = (db or os.environ.get(DB_ENV, "")).strip()
    if not is_postgres_url(url):
        shown = f"{urlsplit(url).scheme}:// URL" if "://" in url else repr(url) if url else "nothing"
        raise QueueConfigError(
            f"queued runs need a PostgreSQL database (--db postgresql://user:password@host/dbname or "
            f"{DB_ENV}), got {shown}: the queue, its locks and the runs' checkpoints live in Postgres"
        )
    return url


@contextmanager
def queue_errors(url: str) -> Iterator[None]:
    """Connection and query failures as CheckpointStoreError naming the database (password hidden)."""
    try:
        yield
    except (psycopg.Error, ConnectorException, PoolTimeout) as exc:
        cause = exc.__cause__ if isinstance(exc, ConnectorException) and exc.__cause__ else exc
        raise CheckpointStoreError(f"task queue database {redacted(url)}: {str(cause).strip()}") from exc


def ensure_schema(url: str) -> None:
    """Create procrastinate's tables in the database unless they exist (under an advisory lock, so
    workers starting together create them once)."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(f"SELECT pg_advisory_xact_lock({KIND_LOCK})", (QUEUE_SCHEMA, "procrastinate"))
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            conn.execute(SchemaManager.get_schema())


def is_queued(url: str, thread_id: str) -> bool:
    """Whether a run on ``thread_id`` waits in the queue (or a worker has just taken it)."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn:
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            return False
        row = conn.execute(
            "SELECT 1 FROM procrastinate_jobs WHERE task_name = %s AND args->>'thread_id' = %s AND status IN ('todo', 'doing')",
            (TASK, thread_id),
        ).fetchone()
    return row is not None


def queued_runs(url: str) -> list[RunInfo]:
    """The runs waiting in the queue for a worker (status ``queued``), most recently queued first."""
    with queue_errors(url), psycopg.connect(url, autocommit=True) as conn:
        if only_row(conn.execute("SELECT to_regclass('procrastinate_jobs')"))[0] is None:
            return []
        rows = conn.execute(
            "SELECT j.args, (SELECT min(e.at) FROM procrastinate_events e WHERE e.job_id = j.id) AS queued_at "
            "FROM procrastinate_jobs j WHERE j.task_name = %s AND j.status = 'todo' ORDER BY j.id DESC",
            (TASK,),
        ).fetchall()
    return [
        RunInfo(
            thread_id=args["thread_id"], question=args.get("question", ""), status="queued", reason=None, iterations=0,
            tokens=0, started=None, updated=queued_at, metadata={},
        )
        for args, queued_at in rows
    ]


# -- runs ----------------------------------------------------------------------------------


def checked_options(options: dict[str, Any]) -> dict[str, Any]:
    """The run options a job carries: SPECS as strings, the rest AgentConfig fields (validated now);
    QueueConfigError when they cannot travel as JSON."""
    specs = {key: options.pop(key) for key in SPECS if options.get(key) is not None}
    for key, value in specs.items():
        if not isinstance(value, str):
            raise QueueConfigError(f"{key} must be a string naming it as the CLI does, got {type(value).__name__}: {value!r:.80}")
    overrides = {key: group_values(value) for key, value in options.items() if value is not None}
    make_config(**overrides)  # ConfigError naming a bad field, before anything is queued
    if "tools" in specs:  # a misspelt built-in or an import that fails, before anything is queued
        load_tools(specs["tools"], documents=specs.get("documents"))
    try:
        json.dumps(overrides)
    except TypeError as exc:
        raise QueueConfigError(f"run options must be JSON values (a worker in another process reads them): {exc}") from None
    return specs | {"overrides": overrides}


def group_values(value: Any) -> Any:
    """A group of options (``Limits(max_iterations=3)``) as the dict of the options set in it; else ``value``."""
    return value.model_dump(mode="json", exclude_unset=True) if isinstance(value, Group) else value


class Runner:
    """Runs a worker's jobs: one agent per set of specs (model, tools, MCP servers, output schema), kept
    for the worker's life, on the queue's database."""

    def __init__(self, url: str, concurrency: int) -> None:
        self.url = url
        self._agents: dict[str, tuple[ReActAgent, dict[str, Any]]] = {}

    def agent(self, specs: dict[str, Any], playbook: bool = False) -> tuple[ReActAgent, dict[str, Any]]:
        """The agent for these specs (with the playbook in the queue's database when asked), and the
        overrides they select (the tools chosen by name)."""
        key = json.dumps(specs, sort_keys=True) + ("+playbook" if playbook else "")
        if key not in self._agents:
            registry, selection = load_tools(specs.get("tools"), specs.get("mcp"), specs.get("documents"))
            schema = parse_signature(specs["output_schema"]) if specs.get("output_schema") else None
            agent = ReActAgent(
                model=load_model(specs.get("model")), tools=registry, checkpointer=self.url, output_schema=schema,
                playbook=playbook,
            )
            self._agents[key] = (agent, {"tools": selection} if selection is not None else {})
        return self._agents[key]

    async def run(self, job_id: int, question: str, thread_id: str, options: dict[str, Any]) -> None:
        """Run the job's run to its end: start it, or resume it when this job's run has checkpoints
        (the job is a retry after its worker died), or nothing when that run has already ended. A run that fails,
        even before it starts (its tools or model cannot be loaded), is recorded ``failed`` with the error, so
        ``reactgraph runs`` shows it, not only the worker's log."""
        try:
            await self._run(job_id, question, thread_id, options)
        except RunInterrupted:  # retried, and resumed: no failure to show
            raise
        except Exception as exc:
            await asyncio.to_thread(self.record_failure, thread_id, question, exc)
            raise

    def record_failure(self, thread_id: str, question: str, exc: Exception) -> None:
        runs = open_store(self.url)
        try:
            runs.record(Activity(thread_id, "failed", question, this_owner(), time.time(), error_text(exc)))
        except CheckpointStoreError as error:
            logger.warning("the failure of %s could not be recorded: %s", thread_id, error)
        finally:
            runs.close()

    async def _run(self, job_id: int, question: str, thread_id: str, options: dict[str, Any]) -> None:
        specs = {key: options[key] for key in SPECS if key in options}
        agent, selected = self.agent(specs, make_config(**options.get("overrides", {})).learning.playbook)
        overrides = selected | options.get("overrides", {})
        labels = {LABELS[key]: value for key, value in specs.items()} | {JOB_KEY: str(job_id)}
        try:
            await self._drive_run(agent, job_id, question, thread_id, overrides, labels)
        except Exception as exc:
            if lost_database(exc):  # a restart: the job is retried, and its retry resumes the run
                raise RunInterrupted(f"run {thread_id} (job {job_id}) lost the database: {exc}") from exc
            raise

    async def _drive_run(
        self, agent: ReActAgent, job_id: int, question: str, thread_id: str, overrides: dict[str, Any], labels: dict[str, str]
    ) -> None:
        # the thread's advisory lock, waited for (the agent's runs take the same one: a run or resume of the thread
        # from anywhere else is refused meanwhile); the server releases it when this worker's connection ends
        async with agent.store.aholding(thread_id, wait=True) as hold:
            try:
                info = await asyncio.to_thread(agent.run_info, thread_id)
            except RunNotFoundError:
                info = None
            if info is None or info.metadata.get(JOB_KEY) != str(job_id):  # this job's run has not started
                # a cancel of this thread stored since submit (which cleared older ones) stops it while queued
                if await asyncio.to_thread(agent.store.cancel_requested, thread_id, math.inf):
                    logger.info("cancelled %s (job %s) while queued: not run", thread_id, job_id)
                    return
                drive = agent.arun(question, thread_id=thread_id, config={"metadata": labels}, **overrides)
            elif info.status in ("interrupted", "failed", "running"):  # no one else runs it: this worker holds the thread
                logger.info("resuming %s (job %s) from its last checkpoint", thread_id, job_id)
                drive = agent.aresume(thread_id, config={"metadata": labels}, **overrides)
            else:
                logger.info("already ended %s (job %s): %s, not run again", thread_id, job_id, info.reason)
                return
            result = await while_held(drive, hold, thread_id)
        logger.info("finished %s (job %s): %s", thread_id, job_id, result.termination_reason.value)

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[Runner]:
        """The runner; its agents closed at the end."""
        try:
            yield self
        finally:
            for agent, _ in self._agents.values():  # in a thread: the agent's async pool closes on this loop, waited for
                await asyncio.to_thread(agent.close)
            self._agents.clear()


# -- the queue -----------------------------------------------------------------------------


async def while_held(drive: Awaitable[Any], hold: Hold, thread_id: str) -> Any:
    """``drive`` (a run or resume), cancelled as soon as the thread's lock is lost (a restart ended the connection
    that held it): another worker may then take the thread up, and two runs of it must never overlap. Its job is
    retried (RunInterrupted) and resumes the run once this worker holds the thread again."""
    run = asyncio.ensure_future(drive)  # in this context: the run sees the thread held, and does not take it again
    while not run.done():
        await asyncio.wait({run}, timeout=HOLD_CHECK_EVERY)
        if not run.done() and not await hold.alive():
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await run
            raise RunInterrupted(f"run {thread_id} lost its lock on the thread (the database connection that held it ended)")
    return run.result()


def queue_pool(**options: Any) -> AsyncConnectionPool:
    """procrastinate's pool, testing a connection it hands out with a round trip only when the server may have closed
    it (``acheck_if_closed``), not before every query."""
    return AsyncConnectionPool(**options | {"check": acheck_if_closed})


class SettledJobs(JobManager):
    """procrastinate's job manager, with the write of a job's end (finished, or handed back to be retried) outlasting a
    database restart: tried again (tenacity, backing off) while the database is away, for ``within`` seconds. A failed
    write used to leave the job ``doing`` under a worker still alive, which no one takes up again. A write that finds
    the job moved on (its first try landed before the connection broke; another worker took it up or ended it) is
    done: the job's run, in the checkpoints, is what says whether it ended."""

    def __init__(self, connector: Any, within: float) -> None:
        super().__init__(connector)
        self.within = within

    async def finish_job_by_id_async(self, job_id: int, status: Any, delete_job: bool) -> None:
        await self._settled(job_id, super().finish_job_by_id_async, job_id=job_id, status=status, delete_job=delete_job)

    async def retry_job_by_id_async(
        self,
        job_id: int,
        retry_at: datetime.datetime,
        priority: int | None = None,
        queue: str | None = None,
        lock: str | None = None,
    ) -> None:
        await self._settled(
            job_id, super().retry_job_by_id_async, job_id=job_id, retry_at=retry_at, priority=priority, queue=queue, lock=lock
        )

    async def _settled(self, job: int, write: Callable[..., Awaitable[None]], /, **arguments: Any) -> None:
        def waiting(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome else None
            logger.warning("job %s: its end not written yet (%s); trying again", job, type(error).__name__)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lost_database), wait=wait_exponential(multiplier=0.2, max=RECONNECT_EVERY * 5),
            stop=stop_after_delay(self.within), reraise=True, before_sleep=waiting,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    await write(**arguments)
        except ConnectorException as exc:
            if not isinstance(exc.__cause__, psycopg.errors.RaiseException):
                raise
            logger.info("job %s had moved on (%s): its end not written again", job, " ".join(str(exc.__cause__).split()))


def queue_app(
    url: str, runner: Runner | None = None, stalled_after: float = STALLED_AFTER, reconnect_within: float = RECONNECT_WITHIN
) -> procrastinate.App:
    """The procrastinate App on ``url``, its jobs' ends written through a database restart (``SettledJobs``, for
    ``reconnect_within`` seconds); with a ``runner``, its tasks: ``reactgraph.run`` and a periodic retry of the jobs
    of workers silent for longer than ``stalled_after`` seconds."""
    connector = procrastinate.PsycopgConnector(conninfo=url, min_size=1, timeout=QUEUE_POOL_TIMEOUT, pool_factory=queue_pool)
    app = procrastinate.App(connector=connector)
    app.job_manager = SettledJobs(connector, reconnect_within)
    if runner is None:
        return app

    @app.task(name=TASK, queue=QUEUE, pass_context=True, retry=RUN_RETRY)
    async def run(context: procrastinate.JobContext, question: str, thread_id: str, options: dict[str, Any]) -> None:
        assert context.job.id is not None  # a job a worker took is stored
        await runner.run(context.job.id, question, thread_id, options)

    every = max(1, min(30, int(stalled_after // 3)))

    @app.periodic(cron=f"* * * * * */{every}")  # the 6th field: seconds
    @app.task(name=RETRY_TASK, queue=QUEUE, queueing_lock=RETRY_TASK, priority=RETRY_PRIORITY, pass_context=True)
    async def retry_stalled_runs(context: procrastinate.JobContext, timestamp: int) -> None:
        for job in await context.app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stalled_after):
            try:
                await context.app.job_manager.retry_job(job)
            except ConnectorException:  # another worker retried it first
                continue
            logger.info("retrying job %s (%s) of a stalled worker", job.id, job.task_kwargs.get("thread_id", job.task_name))

    return app


class RunQueue:
    """Queues runs for the workers on one Postgres database (default ``REACTGRAPH_DB``): its tables made sure of,
    its connections opened (by the first ``submit``) and each distinct set of run options checked once, for as many
    ``submit`` calls as the caller makes; ``close`` (or leaving a ``with`` block) gives the connections back."""

    def __init__(self, db: str | None = None) -> None:
        self.url = queue_url(db)
        self._checked: dict[str, dict[str, Any]] = {}  # the options as JSON -> what a job carries
        self._runs: Any = None  # the run store (cancels), and procrastinate's app: opened by the first submit
        self._app: procrastinate.App | None = None
        self._opening = threading.Lock()  # submits from several threads open the connections once

    def submit(self, question: str, *, thread_id: str | None = None, **options: Any) -> str:
        """Queue a run of ``question`` and return its thread id at once (``submit`` says what ``options`` take); a
        question that is blank or no text a database can store is InvalidInputError, and nothing is queued."""
        checked_question(question)
        payload = self._options(options)
        thread_id = checked_thread_id(thread_id) if thread_id is not None else uuid.uuid4().hex
        app = self._opened()
        self._runs.clear_cancel(thread_id)  # a cancel stored for an earlier run on this thread does not stop this one
        with queue_errors(self.url):
            app.configure_task(TASK, queue=QUEUE, lock=f"reactgraph:{thread_id}").defer(
                question=question, thread_id=thread_id, options=payload
            )
        return thread_id

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``checked_options`` once per distinct set of options (a set that is no JSON is checked, and refused, each time)."""
        try:
            key = json.dumps(options, sort_keys=True)
        except TypeError:
            return checked_options(dict(options))
        if key not in self._checked:
            self._checked[key] = checked_options(dict(options))
        return json.loads(json.dumps(self._checked[key]))  # the job's own copy

    def _opened(self) -> procrastinate.App:
        with self._opening:
            if self._app is None:
                ensure_schema(self.url)
                self._runs = open_store(self.url)
                app = queue_app(self.url)
                try:
                    with queue_errors(self.url):
                        app.open()
                except BaseException:
                    self._runs.close()
                    raise
                self._app = app
            return self._app

    def close(self) -> None:
        if self._app is not None:
            self._app.close()
            self._runs.close()
            self._app = self._runs = None

    def __enter__(self) -> RunQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def submit(question: str, db: str | None = None, *, thread_id: str | None = None, **options: Any) -> str:
    """Queue a run of ``question`` for the workers on the Postgres database ``db`` (default
    ``REACTGRAPH_DB``) and return its thread id at once. ``options``: ``model`` ('provider:model' or
    'module:factory'), ``tools`` ('a,b': built-in names or 'module:attribute'), ``mcp`` (a servers
    file), ``documents`` (what search_documents searches), ``output_schema`` (a signature), and AgentConfig fields (``max_iterations=6`` ...), as the
    ``run`` command takes them. Runs on one thread are taken one after another. The process keeps one ``RunQueue``
    per database for its later calls (connected, each set of options checked once), closed when it exits."""
    url = queue_url(db)
    with _QUEUES_LOCK:
        if url not in _QUEUES:
            if not _QUEUES:
                atexit.register(_close_queues)
            _QUEUES[url] = RunQueue(url)
        queue = _QUEUES[url]
    return queue.submit(question, thread_id=thread_id, **options)


_QUEUES: dict[str, RunQueue] = {}  # submit's queue of each database
_QUEUES_LOCK = threading.Lock()


def _close_queues() -> None:
    with _QUEUES_LOCK:
        queues = list(_QUEUES.values())
        _QUEUES.clear()
    for each in queues:
        each.close()


def run_worker(
    db: str | None = None, *, concurrency: int = 1, stalled_after: float = STALLED_AFTER, reconnect_within: float = RECONNECT_WITHIN
) -> None:
    """Run queued runs from the Postgres database ``db`` (default ``REACTGRAPH_DB``), ``concurrency``
    at a time, until SIGINT or SIGTERM: then take no new run and return once the runs in hand have
    ended. The runs of workers silent for ``stalled_after`` seconds are taken up again. When the database
    goes away (a restart), the worker lets its runs end (their jobs are retried), reconnects and goes on; when it
    cannot reconnect within ``reconnect_within`` seconds it raises QueueConnectionLost saying why."""
    if concurrency < 1:
        raise QueueConfigError(f"concurrency must be at least 1, got {concurrency}")
    if stalled_after <= 0:
        raise QueueConfigError(f"stalled_after must be a positive number of seconds, got {stalled_after}")
    if reconnect_within < 0:
        raise QueueConfigError(f"reconnect_within must be a number of seconds, got {reconnect_within}")
    url = queue_url(db)
    ensure_schema(url)
    runner = Runner(url, concurrency)
    heartbeat = stalled_after / 3
    app = queue_app(url, runner, stalled_after, reconnect_within)

    async def worker() -> None:
        async with app.open_async():
            await app.run_worker_async(
                queues=[QUEUE], concurrency=concurrency, update_heartbeat_interval=heartbeat,
                stalled_worker_timeout=stalled_after, fetch_job_polling_interval=min(5.0, heartbeat),
                install_signal_handlers=False,
            )

    async def work() -> None:
        async with runner.opened():
            await until_stopped(worker, url, reconnect_within)

    with queue_errors(url):
        asyncio.run(work())


async def until_stopped(worker: Callable[[], Awaitable[None]], url: str, reconnect_within: float) -> None:
    """Run ``worker()`` until SIGINT or SIGTERM (which cancel it: procrastinate then takes no new job and waits for
    the jobs in hand); when it ends by itself (procrastinate stops a worker whose listener or heartbeat lost the
    database) or fails for the database, reconnect and run it again."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    current: list[asyncio.Future[None]] = []

    def stop() -> None:
        stopping.set()
        for task in current:
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop)
    try:
        while not stopping.is_set():
            current[:] = [asyncio.ensure_future(worker())]
            try:
                await current[0]
                problem = "the worker stopped: its link to the database failed"
            except asyncio.CancelledError:
                if stopping.is_set():
                    return
                raise
            except Exception as exc:
                if not lost_database(exc) and not isinstance(exc, ConnectorException):
                    raise
                cause = exc.__cause__ if isinstance(exc, ConnectorException) and exc.__cause__ else exc
                problem = f"{type(cause).__name__}: {' '.join(str(cause).split())}"
            if stopping.is_set():
                return
            logger.warning("lost the database %s (%s); reconnecting", redacted(url), problem)
            await reconnected(url, reconnect_within, stopping)
            logger.warning("reconnected to %s; taking runs again", redacted(url))
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


async def reconnected(url: str, within: float, stopping: asyncio.Event) -> None:
    """Wait until the database answers again (trying every RECONNECT_EVERY seconds); QueueConnectionLost when it
    does not within ``within`` seconds. Returns at once when ``stopping`` is set."""
    deadline = time.monotonic() + within
    await asyncio.sleep(RECONNECT_EVERY)  # the old connections' errors settle; a restarting server starts
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(url, connect_timeout=max(1, int(RECONNECT_EVERY * 2))) as conn:
                await conn.execute("SELECT 1")
            return
        except psycopg.Error as exc:
            last = exc
        if stopping.is_set():
            return
        if time.monotonic() >= deadline:
            detail = " ".join(str(last).split())
            raise QueueConnectionLost(
                f"task queue database {redacted(url)}: lost, and no connection within {within:g}s ({detail}); "
                "its runs are retried by the other workers, or by this one once restarted"
            )
        await asyncio.sleep(RECONNECT_EVERY)
