"""BFCL entries: a category's questions, functions and ground truth, read from the package's data files
(JSON lines), in the order BFCL lists them, so ``--limit N`` and ``--only`` pick the same entries every run."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reactgraph.config import ConfigError
from reactgraph.evaluation.bfcl.package import data_dir, version_prefix

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
# Each user turn is a turn of one conversation on one thread: waits for conversations (issue 26).
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")


@dataclass(frozen=True)
class Entry:
    """One BFCL entry: its id and category, the chat messages of its question, the functions on offer (BFCL's
    own descriptions, which the checker reads) and the possible answers (None for irrelevance)."""

    id: str
    category: str
    messages: tuple[dict[str, str], ...]
    functions: tuple[dict[str, Any], ...]
    ground_truth: list[dict[str, Any]] | None = field(default=None, compare=False)

    @property
    def irrelevance(self) -> bool:
        return "irrelevance" in self.category

    @property
    def question(self) -> str:
        """The question as one text, the same for every agent: a single user message as it is; with a system
        message or earlier turns, each message on its own paragraph, named by its role."""
        if len(self.messages) == 1:
            return self.messages[0]["content"]
        return "\n\n".join(f"{m['role']}: {m['content']}" for m in self.messages)


def categories(spec: str) -> list[str]:
    """The categories of ``bfcl:CAT[,CAT...]`` (the part after ``bfcl:``), checked."""
    names = list(dict.fromkeys(c.strip() for c in spec.split(",") if c.strip()))
    if not names:
        raise ConfigError(f"--suite bfcl: names no category; choose from {', '.join(SINGLE_TURN)}")
    for name in names:
        if name in MULTI_TURN:
            raise ConfigError(
                f"--suite bfcl:{name}: the multi-turn categories need conversations on one thread (issue 26) and are not "
                f"offered yet; the single-turn ones are {', '.join(SINGLE_TURN)}"
            )
        if name not in SINGLE_TURN:
            raise ConfigError(f"--suite bfcl: unknown category {name!r}; choose from {', '.join(SINGLE_TURN)}")
    return names


def load_category(category: str) -> list[Entry]:
    """Every entry of ``category``, with its ground truth, in BFCL's order."""
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


def select(categories: Iterable[str], *, limit: int | None = None, only: Iterable[str] = ()) -> list[Entry]:
    """The entries to run: of each category its first ``limit`` (all without one), or the ``only`` ids among them."""
    categories, wanted = list(categories), set(only)
    chosen: list[Entry] = []
    for category in categories:
        entries = load_category(category)
        if wanted:
            entries = [e for e in entries if e.id in wanted]
        chosen += entries[:limit] if limit is not None else entries
    if wanted and (missing := sorted(wanted - {e.id for e in chosen})):
        raise ConfigError(f"--only: no entry {', '.join(missing)} in bfcl:{','.join(categories)}")
    return chosen


def _json_lines(path: Any) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except OSError as exc:
        raise ConfigError(f"BFCL data file not readable: {path} ({exc})") from None
