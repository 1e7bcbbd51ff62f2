"""mkdocs hooks: the site is the README (its home page), the pages of docs/ and the files of benchmarks/.

The pages are written to read on GitHub and in a clone as well: their links are relative to where each file lies
in the repository (``../benchmarks/results/bfcl.md`` from a page, ``docs/tools.md`` from the README). Here each link
that leads to a file the site holds is pointed at it in the site; any other relative link is left for mkdocs'
strict build to refuse.

The eval's records (benchmarks/eval/) are served as they are, not as pages: their Markdown is written from a model's
replies, where ``[Fennel] [Street]`` reads as a cross-reference to mkdocs-autorefs and fails the strict build.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
HOME = "index.md"
RECORDS = "benchmarks/eval/"
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


class AsItIs(File):
    """A file copied to the site as it is, Markdown too."""

    def is_documentation_page(self) -> bool:
        return False


def on_files(files: Files, config) -> Files:
    """The README as the home page, and every file of benchmarks/ at the same path (the eval's records as they are)."""
    files.append(File.generated(config, HOME, abs_src_path=str(ROOT / "README.md")))
    for path in sorted((ROOT / "benchmarks").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            uri = path.relative_to(ROOT).as_posix()
            kind = AsItIs if uri.startswith(RECORDS) else File
            files.append(kind(uri, str(ROOT), config.site_dir, config.use_directory_urls))
    return files


def in_repository(src_uri: str) -> str:
    """Where a page of the site lies in the repository."""
    if src_uri == HOME:
        return "README.md"
    return src_uri if src_uri.startswith("benchmarks/") else f"docs/{src_uri}"


def in_site(path: str) -> str | None:
    """Where a repository file lies in the site, if the site holds it."""
    if path == "README.md":
        return HOME
    if path.startswith("docs/"):
        return path.removeprefix("docs/")
    return path if path.startswith("benchmarks/") else None


def on_page_markdown(markdown: str, page, config, files) -> str:
    here = in_repository(page.file.src_uri)

    def relink(match: re.Match) -> str:
        start, target, anchor, end = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            return match.group(0)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(here), target))
        site = in_site(path)
        if site is None or not (ROOT / path).exists():
            return match.group(0)
        relative = posixpath.relpath(site, posixpath.dirname(page.file.src_uri) or ".")
        return f"{start}{relative}{anchor or ''}{end}"

    return LINK.sub(relink, markdown)
