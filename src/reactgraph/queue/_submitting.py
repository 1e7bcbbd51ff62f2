"""Runs queued: their options checked once and carried as JSON, ``submit`` and the ``RunQueue`` it keeps per
database."""

from __future__ import annotations

import atexit
import json
import threading
import uuid
from typing import Any

import procrastinate

from reactgraph.config import Group, make_config
from reactgraph.loading import load_tools
from reactgraph.persistence import open_store
from reactgraph.queue._app import queue_app
from reactgraph.queue._database import QUEUE, SPECS, TASK, QueueConfigError, ensure_schema, queue_errors, queue_url
from reactgraph.state import checked_question, checked_thread_id


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
