"""The playbook on a LangGraph ``BaseStore``: bullets under ``("reactgraph", "playbook", name,
"bullets")``, a version under ``(..., "meta")``. Every change is one ``store.batch`` (one
transaction on the SQLite and Postgres stores) that also writes a new version, so a retrieval cache
knows when to drop what it holds; a change (read, merge, write) holds the playbook in its store's database
(``_locking``), so processes learning at once neither lose a count nor store a bullet twice."""

from __future__ import annotations

import builtins
import json
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore
from pydantic import TypeAdapter

from reactgraph.persistence.base import RunStore
from reactgraph.playbook import _curator as curator
from reactgraph.playbook._locking import changing
from reactgraph.playbook._retrieval import block, rank_lexical, usable
from reactgraph.playbook.bullets import SECTIONS, Bullet, Section
from reactgraph.playbook.reflector import outcome, reflect, reflect_state, supported
from reactgraph.tools.isolation import protect

STORE_FILE = "playbook.sqlite"
MAX_BULLETS = 200


class PlaybookError(ValueError):
    """A bullet that does not exist, an import that is not a playbook export, a name no store can hold."""


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a playbook (LangGraph's store namespaces: a non-empty label without '.'), or None."""
    if not isinstance(name, str) or not name.strip():
        return "a playbook name is a non-empty string"
    if "." in name:
        return "it may not contain '.' (the store's namespaces use it as their separator)"
    return None


def sqlite_store(path: Path) -> SqliteStore:
    """LangGraph's SqliteStore on ``path`` (created with its folder), in WAL mode, waiting for a
    writer's lock up to 30 s."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    store = SqliteStore(conn)
    store.setup()
    return store


def playbook_store(runs: RunStore) -> BaseStore:
    """The default store, beside the agent's runs: ``playbook.sqlite`` beside a SQLite checkpoint file,
    LangGraph's PostgresStore in a Postgres database (on the runs' connection pool), else in memory."""
    if runs.db_path is not None:
        protect(runs.db_path.parent / STORE_FILE)  # no tool in a worker process writes it
        return sqlite_store(runs.db_path.parent / STORE_FILE)
    if (pool := getattr(runs, "pool", None)) is not None:
        from langgraph.store.postgres import PostgresStore  # only with Postgres: psycopg loads slowly

        store = PostgresStore(pool)
        with runs.errors():
            store.setup()
        return store
    return InMemoryStore()


def close_store(store: BaseStore) -> None:
    """Close the connection of a store ``playbook_store`` opened (a Postgres pool is the runs' own)."""
    if isinstance(store, SqliteStore):
        store.conn.close()


class LessonWriter:
    """Writes the model's lessons (``playbook_lessons``) in a background thread, one at a time; ``wait``
    joins the ones still being written."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._futures: list[Future[Any]] = []
        self._lock = threading.Lock()

    def submit(self, fn: Any, *args: Any) -> None:
        with self._lock:
            self._executor = self._executor or ThreadPoolExecutor(max_workers=1, thread_name_prefix="playbook-lesson")
            self._futures = [f for f in self._futures if not f.done()] + [self._executor.submit(fn, *args)]

    def wait(self, timeout: float | None = None) -> bool:
        """True when every lesson is written (or failed) within ``timeout`` seconds."""
        with self._lock:
            futures = list(self._futures)
        _, pending = wait(futures, timeout=timeout)
        return not pending


class Playbook:
    """Bullets learnt from past runs, in ``store`` under the playbook ``name`` (one per agent or domain)."""

    def __init__(
        self, store: BaseStore, name: str = "default", *, max_bullets: int = MAX_BULLETS, lessons: LessonWriter | None = None
    ) -> None:
        if problem := name_problem(name):
            raise PlaybookError(f"playbook name {name!r}: {problem}")
        self.store = store
        self.name = name
        self.namespace = ("reactgraph", "playbook", name)
        self.max_bullets = max_bullets
        self.lessons = lessons or LessonWriter()

    def _changing(self) -> AbstractContextManager[None]:
        """One change of this playbook at a time, across the processes on its store (``_locking``)."""
        return changing(self.store, "reactgraph-playbook:" + self.name)

    @property
    def _bullets_ns(self) -> tuple[str, ...]:
        return (*self.namespace, "bullets")

    @property
    def _meta_ns(self) -> tuple[str, ...]:
        return (*self.namespace, "meta")

    # reading

    def list(self, section: Section | None = None) -> list[Bullet]:
        """Every bullet (of ``section``): strategies, pitfalls, observations; best supported first."""
        items = self.store.search(self._bullets_ns, limit=10 * self.max_bullets + 100)
        bullets = [Bullet.model_validate(item.value) for item in items]
        bullets = [b for b in bullets if section is None or b.section == section]
        return sorted(bullets, key=lambda b: (SECTIONS.index(b.section), -(b.helpful_count - b.harmful_count), -b.updated_at))

    def show(self, bullet_id: str) -> Bullet:
        item = self.store.get(self._bullets_ns, bullet_id)
        if item is None:
            raise PlaybookError(f"no bullet {bullet_id!r} in playbook {self.name!r}")
        return Bullet.model_validate(item.value)

    def version(self) -> str:
        """A new value at every change; a cache holds what it read at one version."""
        item = self.store.get(self._meta_ns, "version")
        return str(item.value["version"]) if item else ""

    def retrieve(self, question: str, k: int, tools: Iterable[str] | None = None) -> builtins.list[Bullet]:
        """The ``k`` bullets for ``question`` whose tools the run offers: by the store's semantic
        index when it has one (embeddings configured; a similarity above 0), else by shared words."""
        tools = None if tools is None else set(tools)
        if getattr(self.store, "index_config", None):
            items = [i for i in self.store.search(self._bullets_ns, query=question, limit=4 * k) if (i.score or 0) > 0]
            return [b for b in (Bullet.model_validate(i.value) for i in items) if usable(b, tools)][:k]
        return rank_lexical(question, [b for b in self.list() if usable(b, tools)], k)

    def prompt_block(self, question: str, k: int, max_tokens: int, tools: Iterable[str] | None = None) -> tuple[str, builtins.list[str]]:
        """The 'Strategies from earlier runs' block for ``question`` and the ids of its bullets."""
        return block(self.retrieve(question, k, tools), max_tokens)

    # changing

    def add(
        self, content: str, section: Section = "strategies", *, tool_sequence: Sequence[str] = (), tags: Sequence[str] = ()
    ) -> Bullet:
        """A bullet written by hand (merged into a near-duplicate when there is one)."""
        helpful, harmful = (0, 1) if section == "pitfalls" else (1, 0)
        bullet = Bullet(
            content=content, section=section, tool_sequence=list(tool_sequence), tags=list(tags),
            helpful_count=helpful, harmful_count=harmful, sources=[f"manual@{uuid.uuid4().hex[:8]}"], runs=1,
        )
        return self.merge([bullet])[0]

    def remove(self, bullet_id: str) -> None:
        with self._changing():
            self.show(bullet_id)
            self._write([], [bullet_id])

    def clear(self) -> int:
        """Removes every bullet; returns how many there were."""
        with self._changing():
            ids = [b.id for b in self.list()]
            self._write([], ids)
            return len(ids)

    def export_json(self) -> str:
        return json.dumps({"playbook": self.name, "bullets": [b.model_dump(mode="json") for b in self.list()]}, indent=1)

    def import_json(self, text: str) -> int:
        """Merges the bullets of an ``export_json`` text; returns how many it read."""
        try:
            data = json.loads(text)
            bullets = TypeAdapter(builtins.list[Bullet]).validate_python(data["bullets"] if isinstance(data, dict) else data)
        except RecursionError:
            raise PlaybookError("not a playbook export: nested too deep to read") from None
        except (ValueError, KeyError, TypeError) as exc:  # bad JSON, a number past Python's digit limit, bad bullets
            raise PlaybookError(f"not a playbook export: {(str(exc).splitlines() or [type(exc).__name__])[0]}") from exc
        self.merge(bullets)
        return len(bullets)

    def merge(self, new: builtins.list[Bullet], shown: Sequence[str] = (), source: str = "", good: bool | None = None) -> builtins.list[Bullet]:
        """Merges ``new`` bullets, counts the run ``source`` for (``good``) or against the ``shown``
        bullets, retires what hurts and what passes ``max_bullets``: one batch. Returns the stored
        bullets ``new`` became."""
        with self._changing():
            bullets = {b.id: b for b in self.list()}
            out = []
            for bullet in new:
                match = curator.find_match(list(bullets.values()), bullet)
                stored = curator.merged(match, bullet) if match else bullet
                bullets[stored.id] = stored
                out.append(stored)
            changed = {b.id for b in out} | {i for i in shown if i in bullets}
            if good is not None:  # after the merge: a shown bullet the run's own lesson merged into counts it once
                for bullet_id in shown:
                    if bullet_id in bullets:
                        bullets[bullet_id] = curator.feedback(bullets[bullet_id], source, good)
            gone = {b.id for b in bullets.values() if curator.retired(b)}
            gone |= {b.id for b in curator.over_cap([b for b in bullets.values() if b.id not in gone], self.max_bullets)}
            self._write([bullets[i] for i in changed - gone], sorted(gone))
            return out

    def learn(self, state: dict[str, Any], source: str) -> builtins.list[Bullet]:
        """What a finished run's state teaches (``reflector.reflect``), merged; the bullets it was
        shown (``state['playbook']``) counted for or against by how it ended."""
        question, steps, reason, detail, iterations = reflect_state(state)
        kind = outcome(reason)
        shown = (state.get("playbook") or {}).get("bullets") or []
        good = True if kind == "good" else False if kind == "bad" else None
        taught = reflect(question, steps, reason, detail, iterations, source, supported(state))
        return self.merge(taught, shown, source, good)

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for the model-written lessons still being written; True when none is left."""
        return self.lessons.wait(timeout)

    def _write(self, put: builtins.list[Bullet], delete: Sequence[str]) -> None:
        ops: builtins.list[Any] = [PutOp(self._bullets_ns, b.id, b.model_dump(mode="json")) for b in put]
        ops += [PutOp(self._bullets_ns, i, None) for i in delete]
        if not ops:
            return
        ops.append(PutOp(self._meta_ns, "version", {"version": uuid.uuid4().hex}))
        self.store.batch(ops)
