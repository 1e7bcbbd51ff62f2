"""BFCL entries: a category's questions, functions and ground truth, read from the package's data files
(JSON lines), in the order BFCL lists them, so ``--offset``, ``--limit`` and ``--only`` pick the same entries every run.
A multi-turn entry has a question per user turn, the initial configuration of its API classes, and as functions
BFCL's own docs of those classes (``multi_turn_func_doc/``), as BFCL's ``populate_test_cases_with_predefined_functions``
gathers them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reactgraph.config import ConfigError
from reactgraph.evaluation.bfcl.package import data_dir, func_doc_files, version_prefix

# The single-turn Python categories: the first calls are scored with BFCL's AST checker; in the
# irrelevance ones the right behaviour is no call at all.
SINGLE_TURN = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
)
# Each user turn is a turn of one conversation on one thread, the entry's API instances kept across its turns.
MULTI_TURN = ("multi_turn_base",)
# Not offered yet: functions held out until a later turn (miss_func), questions short of a parameter, long-context states.
MULTI_TURN_LATER = ("multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
CATEGORIES = SINGLE_TURN + MULTI_TURN


@dataclass(frozen=True)
class Entry:
    """One BFCL entry: its id and category, the chat messages of its question, the functions on offer (BFCL's
    own descriptions, which the checker reads) and the possible answers (None for irrelevance). A multi-turn entry
    also has the messages of each later user turn (``turns``: every turn, the first one's being ``messages``), the
    initial configuration of its API classes and their names; its possible answers are call strings per turn."""

    id: str
    category: str
    messages: tuple[dict[str, str], ...]
    functions: tuple[dict[str, Any], ...]
    ground_truth: list[Any] | None = field(default=None, compare=False)
    turns: tuple[tuple[dict[str, str], ...], ...] = ()
    initial_config: dict[str, Any] = field(default_factory=dict, compare=False)
    involved_classes: tuple[str, ...] = ()

    @property
    def irrelevance(self) -> bool:
        return "irrelevance" in self.category

    @property
    def multi_turn(self) -> bool:
        return bool(self.turns)

    @property
    def question(self) -> str:
        """The question as one text, the same for every agent: a single user message as it is; with a system
        message or earlier turns, each message on its own paragraph, named by its role."""
        return _text(self.messages)

    @property
    def questions(self) -> list[str]:
        """The question of each user turn (a single-turn entry: its one question)."""
        return [_text(turn) for turn in self.turns] if self.turns else [self.question]


def categories(spec: str) -> list[str]:
    """The categories of ``bfcl:CAT[,CAT...]`` (the part after ``bfcl:``), checked."""
    names = list(dict.fromkeys(c.strip() for c in spec.split(",") if c.strip()))
    if not names:
        raise ConfigError(f"--suite bfcl: names no category; choose from {', '.join(CATEGORIES)}")
    for name in names:
        if name in MULTI_TURN_LATER:
            raise ConfigError(
                f"--suite bfcl:{name}: of the multi-turn categories only {', '.join(MULTI_TURN)} is offered yet; "
                f"choose from {', '.join(CATEGORIES)}"
            )
        if name not in CATEGORIES:
            raise ConfigError(f"--suite bfcl: unknown category {name!r}; choose from {', '.join(CATEGORIES)}")
    return names


def load_category(category: str) -> list[Entry]:
    """Every entry of ``category``, with its ground truth, in BFCL's order."""
    if category in MULTI_TURN:
        return _multi_turn(category)
    data, prefix = data_dir(), version_prefix()
    answers: dict[str, list[dict[str, Any]]] = {}
    if "irrelevance" not in category:
        answers = {row["id"]: row["ground_truth"] for row in _json_lines(data / "possible_answer" / f"{prefix}_{category}.json")}
    entries = []
    for row in _json_lines(data / f"{prefix}_{category}.json"):
        if len(row["question"]) != 1:
            raise ConfigError(f"BFCL entry {row['id']} has {len(row['question'])} user turns: not a single-turn entry")
        if "irrelevance" not in category and row["id"] not in answers:
            raise ConfigError(f"BFCL entry {row['id']} has no ground truth in the package's possible_answer/")
        entries.append(
            Entry(
                id=row["id"],
                category=category,
                messages=tuple(row["question"][0]),
                functions=tuple(row["function"]),
                ground_truth=answers.get(row["id"]),
            )
        )
    return entries


def select(
    categories: Iterable[str], *, limit: int | None = None, only: Iterable[str] = (), offset: int = 0
) -> list[Entry]:
    """The entries to run: of each category a slice, ``limit`` entries from the ``offset``-th in BFCL's order (to the
    end without a limit; ``offset=100, limit=25``: entries 100-124, a held-out slice beside the first 25), or the
    ``only`` ids among them. An ``offset`` at or past a category's end is a ConfigError that says its size (a run of
    nothing is no measurement)."""
    categories, wanted = list(categories), set(only)
    chosen: list[Entry] = []
    for category in categories:
        everything = load_category(category)
        if offset and offset >= len(everything):
            raise ConfigError(f"--offset {offset}: bfcl:{category} has {len(everything)} entries (0-{len(everything) - 1})")
        entries = everything[offset:]
        if wanted:
            entries = [e for e in entries if e.id in wanted]
        chosen += entries[:limit] if limit is not None else entries
    if wanted and (missing := sorted(wanted - {e.id for e in chosen})):
        past = f" from entry {offset} on (--offset)" if offset else ""
        raise ConfigError(f"--only: no entry {', '.join(missing)} in bfcl:{','.join(categories)}{past}")
    return chosen


def _multi_turn(category: str) -> list[Entry]:
    data, prefix = data_dir(), version_prefix()
    answers = {row["id"]: row["ground_truth"] for row in _json_lines(data / "possible_answer" / f"{prefix}_{category}.json")}
    files, docs = func_doc_files(), {}
    entries = []
    for row in _json_lines(data / f"{prefix}_{category}.json"):
        if row["id"] not in answers or len(answers[row["id"]]) != len(row["question"]):
            raise ConfigError(f"BFCL entry {row['id']} has no ground truth for each of its turns in possible_answer/")
        functions = []
        for name in row["involved_classes"]:
            if name not in docs:
                docs[name] = _json_lines(data / "multi_turn_func_doc" / files[name])
            functions += docs[name]
        turns = tuple(tuple(turn) for turn in row["question"])
        entries.append(
            Entry(
                id=row["id"],
                category=category,
                messages=turns[0],
                functions=tuple(functions),
                ground_truth=answers[row["id"]],
                turns=turns,
                initial_config=row.get("initial_config") or {},
                involved_classes=tuple(row["involved_classes"]),
            )
        )
    return entries


def _text(messages: tuple[dict[str, str], ...]) -> str:
    if len(messages) == 1:
        return messages[0]["content"]
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def _json_lines(path: Any) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except OSError as exc:
        raise ConfigError(f"BFCL data file not readable: {path} ({exc})") from None
