"""files: read_file, list_directory and grep_search, confined to one root directory.

Every path is relative to the root the user names. Absolute paths, NUL bytes and any
path that resolves outside the root (``..``, symlinks pointing out) are refused; the
walks of list_directory and grep_search skip entries that lead outside. A path the file
system cannot take (too long, not encodable) and an OS error about the path (not there, not
allowed, a link loop) are the model's to fix: InvalidArguments, never a failure of the tool
(which would count towards its circuit breaker). Messages show paths relative to the root.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Annotated

from pydantic import Field

from reactgraph.tools.policy import InvalidArguments

MAX_READ_BYTES = 2_000_000
MAX_LISTED = 200
MAX_GREP_FILES = 2_000
# Caps on how much one call returns; a larger request gets the cap (asking for "all" is no error).
MAX_READ_LINES = 2_000
MAX_GREP_RESULTS = 500
SHOWN_PATH_CHARS = 60  # a path quoted in a message is shortened to this
# OS errors that say the path is wrong (the model can give another), not that the tool broke.
PATH_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ELOOP, errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EINVAL, errno.EACCES,
     errno.EPERM, errno.EILSEQ}
)


def quoted(path: str) -> str:
    """``path`` quoted for a message, its middle left out when it is long."""
    if len(path) > SHOWN_PATH_CHARS:
        path = f"{path[: SHOWN_PATH_CHARS - 20]}…{path[-15:]} ({len(path):,} characters)"
    return repr(path)


def _limit(root: Path, name: str, default: int) -> int:
    try:
        return int(os.pathconf(root, name))
    except (OSError, ValueError, AttributeError):  # not a POSIX system, or the file system does not say
        return default


class Sandbox:
    """A root directory and the rule that every path must stay inside it."""

    def __init__(self, root: str | Path) -> None:
        resolved = Path(root).expanduser().resolve()
        if not resolved.is_dir():
            raise NotADirectoryError(f"file tools: root {str(root)!r} is not a directory")
        self.root = resolved
        self.name_max = _limit(resolved, "PC_NAME_MAX", 255)  # bytes of one name
        self.path_max = _limit(resolved, "PC_PATH_MAX", 4096)  # bytes of a whole path

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` (relative to the root); InvalidArguments if it is outside the root
        or no file system could take it."""
        if not isinstance(path, str) or "\x00" in path:
            raise InvalidArguments("path must be text without NUL characters")
        try:
            encoded = path.encode()
        except UnicodeEncodeError:  # a lone surrogate
            raise InvalidArguments(f"path {quoted(path)} holds characters that cannot be in a file name") from None
        if len(encoded) + len(bytes(self.root)) >= self.path_max or any(len(n) > self.name_max for n in encoded.split(b"/")):
            raise InvalidArguments(
                f"path {quoted(path)} is too long: a name may have at most {self.name_max} bytes, "
                f"a path inside the root about {self.path_max - len(bytes(self.root)) - 1}"
            )
        given = path.strip().replace("\\", "/")  # a Windows-style path (recorded: '.\\config\\app.ini')
        relative = Path("." if given in ("", "/") else given)  # "/" alone: the root, as a model may say
        if relative.is_absolute() or relative.drive:
            raise InvalidArguments(
                f"absolute path {quoted(path)} refused; give a path relative to the root directory ('.' or '/' is the root)"
            )
        with self.guard(path):
            try:
                target = (self.root / relative).resolve()
            except RuntimeError:  # a symlink loop (Python 3.11)
                raise InvalidArguments(f"path {quoted(path)} cannot be resolved (a symlink loop)") from None
        if not self.contains(target):
            raise InvalidArguments(f"path {quoted(path)} is outside the root directory; only paths inside it can be used")
        return target

    @contextmanager
    def guard(self, path: str) -> Iterator[None]:
        """OS errors while using ``path``, as the model should see them: an error about the path (too
        long, not there, not allowed, a loop) is InvalidArguments, any other an OSError without the
        root's absolute path."""
        try:
            yield
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            if exc.errno in PATH_ERRNOS or exc.errno is None:
                raise InvalidArguments(f"{quoted(path)} cannot be used: {reason}") from None
            raise OSError(exc.errno, f"{reason} ({quoted(path)})") from None

    def contains(self, path: Path) -> bool:
        return path == self.root or path.is_relative_to(self.root)

    def real_inside(self, entry: Path) -> Path | None:
        """Where ``entry`` leads (its real path) when that is inside the root; None outside or for a link loop."""
        try:
            real = entry.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
            return None
        return real if self.contains(real) else None

    def shown(self, path: Path) -> str:
        """``path`` as the model should refer to it: relative to the root."""
        return path.relative_to(self.root).as_posix() or "."

    def nearest_listing(self, path: Path, limit: int = 20) -> str:
        """What the closest existing directory on ``path`` holds, for an error about a missing file."""
        folder = path if path.is_dir() else path.parent
        while not folder.is_dir() and folder != self.root:
            folder = folder.parent
        try:
            names = sorted(e.name + ("/" if e.is_dir() else "") for e in folder.iterdir() if self.real_inside(e))
        except OSError as exc:  # an unreadable folder
            return f"{self.shown(folder)}/ cannot be listed ({exc.strerror or exc})"
        more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
        return f"{self.shown(folder)}/ holds: {', '.join(names[:limit]) or 'nothing'}{more}"

    def walk(self, top: Path) -> Iterator[Path]:
        """Regular files under ``top`` (as walked, links by their own name), sorted, never leaving the root."""
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if self.real_inside(Path(dirpath, d)))
            for name in sorted(filenames):
                path = Path(dirpath, name)
                if (real := self.real_inside(path)) and real.is_file():
                    yield path


def read_text(path: Path) -> str | None:
    """The file's text (undecodable bytes replaced), or None for a binary file or one over MAX_READ_BYTES: what
    read_file, grep_search and the search index read."""
    if path.stat().st_size > MAX_READ_BYTES:
        return None
    data = path.read_bytes()
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="replace")


def readable_text(path: Path) -> str | None:
    """``read_text``, or None for a file that cannot be read."""
    try:
        return read_text(path)
    except OSError:
        return None


def make_file_tools(root: str | Path) -> list[Callable[..., str]]:
    """read_file, list_directory and grep_search over ``root``."""
    box = Sandbox(root)

    def read_file(
        path: Annotated[str, Field(description="File path relative to the root directory.")],
        start_line: Annotated[int, Field(description="First line to return (1-based).", ge=1)] = 1,
        max_lines: Annotated[int, Field(description=f"How many lines at most (up to {MAX_READ_LINES}).", ge=1)] = 200,
    ) -> str:
        """Read a text file inside the root directory; returns the requested lines with a header
        saying which lines of how many were shown."""
        target = box.resolve(path)
        with box.guard(path):
            if not target.is_file():
                raise InvalidArguments(f"{quoted(path)} is not a file; {box.nearest_listing(target)}")
            text = read_text(target)
        if text is None:
            raise InvalidArguments(f"{quoted(path)} is binary or larger than {MAX_READ_BYTES} bytes")
        lines = text.splitlines()
        chunk = lines[start_line - 1 : start_line - 1 + min(max_lines, MAX_READ_LINES)]
        last = start_line + len(chunk) - 1
        header = f"{box.shown(target)} (lines {start_line}-{last} of {len(lines)})"
        return "\n".join([header, *chunk])

    def list_directory(
        path: Annotated[str, Field(description="Directory relative to the root ('.' is the root).")] = ".",
    ) -> str:
        """List a directory inside the root directory: sub-directories end with '/', files show their size."""
        target = box.resolve(path)
        with box.guard(path):
            if not target.is_dir():
                raise InvalidArguments(f"{quoted(path)} is not a directory")
            entries = sorted(target.iterdir(), key=lambda p: p.name)
        lines = []
        for entry in entries[:MAX_LISTED]:
            real = box.real_inside(entry)
            if real is None:
                lines.append(f"{entry.name} (link outside the root or in a loop, not accessible)")
            elif real.is_dir():
                lines.append(f"{entry.name}/")
            elif real.is_file():
                with box.guard(path):
                    lines.append(f"{entry.name} ({real.stat().st_size} bytes)")
        more = len(entries) - MAX_LISTED
        if more > 0:
            lines.append(f"... and {more} more entries")
        return "\n".join([f"{box.shown(target)}/", *lines]) if lines else f"{box.shown(target)}/ is empty"

    def grep_search(
        text: Annotated[str, Field(description="The exact text to look for (not a regex).", min_length=1)],
        path: Annotated[str, Field(description="File or directory relative to the root.")] = ".",
        ignore_case: Annotated[bool, Field(description="Match regardless of case.")] = True,
        max_results: Annotated[int, Field(description=f"How many matching lines at most (up to {MAX_GREP_RESULTS}).", ge=1)] = 50,
    ) -> str:
        """Find lines containing `text` in the text files under a path inside the root directory;
        each result is 'file:line: content'."""
        target = box.resolve(path)
        with box.guard(path):
            bodies: Iterable[tuple[Path, str | None]] | None = [(target, read_text(target))] if target.is_file() else None
        if bodies is None:  # a directory: its text files, an unreadable one skipped like a binary one
            bodies = ((file, readable_text(file)) for file in islice(box.walk(target), MAX_GREP_FILES))
        needle = text.lower() if ignore_case else text
        max_results = min(max_results, MAX_GREP_RESULTS)
        results: list[str] = []
        for file, body in bodies:
            for number, line in enumerate((body or "").splitlines(), start=1):
                if needle in (line.lower() if ignore_case else line):
                    results.append(f"{box.shown(file)}:{number}: {line.strip()[:300]}")
                    if len(results) >= max_results:
                        return "\n".join([*results, f"(stopped at {max_results} results)"])
        return "\n".join(results) if results else f"No line contains {quoted(text)} under {box.shown(target)}."

    return [read_file, list_directory, grep_search]

