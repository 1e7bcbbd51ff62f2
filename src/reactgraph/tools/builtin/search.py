"""search: full-text search over documents the user supplies, with SQLite FTS5 (no network).

    index = DocumentIndex.from_sources(["notes/", Path("report.md"), "a plain text document"])
    index.search("solar panel efficiency")      # documents, best (bm25) first, each with its best passage

Sources: a ``Path`` or an existing file/directory path string is read from disk (a
directory recursively, text files only); any other string is a document itself; a
mapping is ``{title: text}``. A document is searched by passages (its paragraphs, a heading with the paragraph
below it, packed to a few sentences): a long document's hit is its best passage, whole.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from reactgraph.tools.builtin.files import read_text

MAX_RESULTS = 20
DESCRIBED_NAMES, DESCRIBED_CHARACTERS = 12, 300  # the most of the documents' titles the tool's description names
SNIPPET_TOKENS = 64  # the longest snippet FTS5 makes: enough to hold the sentence around a match
# A passage is packed to at most this many words and shown whole, its matches marked; a longer one (a sentence or a
# table row that long) is shown as FTS5's snippet of it. Whole passages, because FTS5's snippet of a longer text starts
# where a sentence starts and may cut off the one with the match: "# Architecture ... in 13 layers" lost to "... the
# same layers as the table below".
PASSAGE_WORDS = 80
# A word of the query in a document's title counts for each of its passages, a fifth of a word in the passage itself:
# "architecture" finds ARCHITECTURE.md's passages that say it before its table rows that do not.
TITLE_WEIGHT = 0.2
HEADING = re.compile(r"#+ .*")  # a Markdown heading line, alone
# English words a question is made of that say nothing of its subject: left out of a query that has other words, so
# the ranking and the snippet follow "layers architecture", not "how ... the ... have" (a question is often the query).
FUNCTION_WORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it many much of on or should "
    "that the their there these this to was were what when where which who why will with would you your".split()
)


@dataclass(frozen=True)
class Hit:
    """One search result: the document's title, its rank score (lower is better) and a snippet."""

    title: str
    score: float
    snippet: str


class DocumentIndex:
    """An in-memory SQLite FTS5 index of documents' passages (porter stemming, unicode tokens); safe to share across
    threads."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE TABLE documents (title TEXT)")
        self._db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, doc UNINDEXED, tokenize='porter unicode61')")
        self._lock = threading.Lock()

    @classmethod
    def from_sources(cls, sources: Any) -> DocumentIndex:
        """An index of ``sources``: paths (files or directories), document strings, or a {title: text} mapping."""
        index = cls()
        if isinstance(sources, Mapping):
            for title, body in sources.items():
                index.add(str(title), str(body))
            return index
        if isinstance(sources, str | Path):
            sources = [sources]
        for n, source in enumerate(sources, start=1):
            path = Path(source) if isinstance(source, Path) or _looks_like_path(source) else None
            if path is None:
                index.add(f"document {n}", str(source))
            elif path.is_dir():
                index.add_directory(path)
            elif path.is_file():
                index.add_file(path)
            else:
                raise FileNotFoundError(f"search documents: no file or directory {str(path)!r}")
        return index

    def add(self, title: str, body: str) -> None:
        """Index the document ``body`` under ``title``, passage by passage."""
        with self._lock, self._db:
            doc = self._db.execute("INSERT INTO documents (title) VALUES (?)", (title,)).lastrowid
            rows = [(title, passage, doc) for passage in passages(body)]
            self._db.executemany("INSERT INTO docs (title, body, doc) VALUES (?, ?, ?)", rows)

    def add_file(self, path: Path, title: str | None = None) -> bool:
        """Index a text file (False, and nothing indexed, for binary or oversized files)."""
        body = read_text(path)
        if body is None:
            return False
        self.add(title or str(path), body)
        return True

    def add_directory(self, root: Path) -> int:
        """Index every text file under ``root`` (not following symlinks out of it); how many were indexed."""
        base = root.resolve()
        count = 0
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.resolve().is_relative_to(base):
                count += self.add_file(path, str(path.relative_to(root)))
        return count

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM documents").fetchone()[0]

    def titles(self, limit: int) -> list[str]:
        """The first ``limit`` documents' titles, in the order they were added."""
        with self._lock:
            rows = self._db.execute("SELECT title FROM documents ORDER BY rowid LIMIT ?", (limit,))
            return [title for (title,) in rows]

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """Documents matching any word of ``query`` (its function words left out when it has others), best (bm25, by
        their best passage) first, each with that passage whole as its snippet (FTS5's snippet of one too long)."""
        words = re.findall(r"\w+", query)
        if not words:
            return []
        words = [w for w in words if w.lower() not in FUNCTION_WORDS] or words
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in words)
        with self._lock:
            best: dict[int, tuple[int, str, float]] = {}  # each document's best passage, best documents first
            for rowid, doc, title, score in self._db.execute(
                f"SELECT rowid, doc, title, bm25(docs, {TITLE_WEIGHT}, 1.0) AS score FROM docs WHERE docs MATCH ? "
                "ORDER BY score",
                (match,),
            ):
                best.setdefault(doc, (rowid, title, score))
            found = list(best.values())[: max(1, min(limit, MAX_RESULTS))]
            shown = dict(
                (rowid, whole if _words(whole) <= PASSAGE_WORDS else snippet)
                for rowid, whole, snippet in self._db.execute(
                    f"SELECT rowid, highlight(docs, 1, '[', ']'), snippet(docs, 1, '[', ']', ' ... ', {SNIPPET_TOKENS}) "
                    f"FROM docs WHERE docs MATCH ? AND rowid IN ({','.join('?' * len(found))})",
                    (match, *(rowid for rowid, _, _ in found)),
                )
            )
        return [Hit(title, score, " ".join(shown[rowid].split())) for rowid, title, score in found]


def passages(text: str) -> list[str]:
    """``text`` in passages: its paragraphs (a heading starts a passage and joins the paragraph below it), packed in
    order while a passage stays within PASSAGE_WORDS words; a longer paragraph is cut between its sentences (between
    its lines, for a table or a list). Text of one short paragraph is one passage, as it is."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        if _words(paragraph) <= PASSAGE_WORDS:
            pieces.append(paragraph)
        elif re.match(r"\s*([|*+-]|\d+\.)\s", paragraph):
            pieces.extend(paragraph.splitlines())
        else:
            pieces.extend(re.split(r"(?<=[.!?])\s+(?=\S)", paragraph))
    packed: list[str] = []
    for piece in pieces:
        if packed and (HEADING.fullmatch(packed[-1]) or (not HEADING.fullmatch(piece) and _words(packed[-1], piece) <= PASSAGE_WORDS)):
            packed[-1] = f"{packed[-1]}\n{piece}"
        else:
            packed.append(piece)
    return packed


def _words(*texts: str) -> int:
    return sum(len(re.findall(r"\w+", text)) for text in texts)


def _looks_like_path(source: Any) -> bool:
    """A string that names an existing file or directory (and is short enough to be a path)."""
    if not isinstance(source, str) or len(source) > 1024 or "\n" in source or "\x00" in source:
        return False
    try:
        return Path(source).exists()
    except OSError:
        return False


def make_search_tool(index: DocumentIndex) -> Callable[..., str]:
    """The ``search_documents`` tool over ``index``."""

    def search_documents(
        query: Annotated[str, Field(description="Words to look for.", min_length=1, max_length=500)],
        limit: Annotated[int, Field(description="How many results at most.", ge=1, le=MAX_RESULTS)] = 5,
    ) -> str:
        """Full-text search of the user's documents (ranked, best first); each hit is a line with the document's
        title and a snippet with the matching words in [brackets]. Searches only what the user supplied."""
        hits = index.search(query, limit)
        if not hits:
            return f"No document matches {query!r} ({len(index)} documents searched). Try other words."
        return "\n".join(f"{h.title}: {h.snippet}" for h in hits)

    search_documents.__doc__ = f"{search_documents.__doc__} {held(index)}"
    return search_documents


def held(index: DocumentIndex) -> str:
    """What the search reads, for its description: the first titles, as many as fit the bounds (a model that sees
    "ARCHITECTURE.md" there knows that "the architecture" of a question is in the documents), and how many more."""
    count, shown, length = len(index), [], 0
    for title in index.titles(DESCRIBED_NAMES):
        if length + len(title) > DESCRIBED_CHARACTERS:
            break
        shown.append(title)
        length += len(title) + 2
    rest = f", and {count - len(shown)} more" if len(shown) < count else ""
    return f"The documents ({count}): {', '.join(shown)}{rest}." if count else "The documents: none yet."


def index_of(documents: Any) -> DocumentIndex:
    """``documents`` as an index: an existing DocumentIndex, or sources for DocumentIndex.from_sources."""
    return documents if isinstance(documents, DocumentIndex) else DocumentIndex.from_sources(documents)

