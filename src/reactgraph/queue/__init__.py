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

The parts, private to this package: ``_database`` (the URL, the errors, the tables), ``_submitting`` (``submit``,
``RunQueue``), ``_runner`` (a worker's runs), ``_app`` (procrastinate's App, the tasks), ``_worker`` (``run_worker``).
"""

from reactgraph.errors import missing_extra

try:  # installed with the postgres extra
    import procrastinate  # noqa: F401
    import psycopg  # noqa: F401
    import psycopg_pool  # noqa: F401
except ImportError as exc:
    raise missing_extra("postgres", "queued runs (submit, worker, the queue of a postgresql:// database)", exc) from None

from reactgraph.queue._database import (
    QueueConfigError,
    QueueConnectionLost,
    RunInterrupted,
    ensure_schema,
    is_queued,
    lost_database,
    queue_url,
    queued_runs,
)
from reactgraph.queue._submitting import RunQueue, submit
from reactgraph.queue._worker import run_worker

__all__ = [
    "QueueConfigError",
    "QueueConnectionLost",
    "RunInterrupted",
    "RunQueue",
    "ensure_schema",
    "is_queued",
    "lost_database",
    "queue_url",
    "queued_runs",
    "run_worker",
    "submit",
]
