"""The docs' and the results' links lead somewhere, on GitHub as in the site.

``mkdocs build --strict`` checks the links of the site; this checks them as GitHub reads them (a path relative to the
file, a heading's anchor as GitHub spells it, which must also be the site's), without building the site, and holds the
results' pages to their shape: each opens with its current figures and the command that makes them, and is listed in
benchmarks/RESULTS.md and in the site's navigation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
PAGES = sorted((ROOT / "benchmarks" / "results").glob("*.md"))
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    RESULTS,
    ROOT / "benchmarks" / "ROBUSTNESS.md",
    *PAGES,
]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`")


def prose(path: Path) -> str:
    """The document without its code blocks and code spans, where a bracket is no link."""
    return CODE.sub("", FENCE.sub("", path.read_text()))


def anchors(path: Path) -> set[str]:
    """The anchors of a document's headings that GitHub and the site (Python-Markdown's toc) both give."""
    found = set()
    for heading in re.findall(r"^#{1,6} (.+?)#*$", FENCE.sub("", path.read_text()), flags=re.MULTILINE):
        text = re.sub(r"[`*]", "", heading).strip().lower()
        github = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        site = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip())
        if github == site:
            found.add(github)
    return found


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor on GitHub and in the site")
    return broken


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_leads_to_a_file_and_heading(path):
    assert broken_links(path) == []


def test_a_link_to_a_moved_heading_is_found(tmp_path):
    (tmp_path / "page.md").write_text("# Results\n\n## Fault run (issue 27)\n\ntext\n")
    (tmp_path / "doc.md").write_text(
        "[ok](page.md#fault-run-issue-27), [moved](page.md#tool-isolation-overhead), [gone](old.md)\n"
        "`[not a link](nowhere.md)`\n"
    )
    assert broken_links(tmp_path / "doc.md") == [
        "page.md#tool-isolation-overhead: no heading with that anchor on GitHub and in the site",
        "old.md: no such file",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_results_page_opens_with_its_current_figures_and_command(page):
    text = page.read_text()
    sections = re.findall(r"^## .+$", text, flags=re.MULTILINE)
    opening = text.split("\n## ")[1]
    assert sections[0] == "## The current figures"
    assert re.search(r"^\| .+ \|$", opening, flags=re.MULTILINE), "a table of the current figures"
    assert "\n```\n" in opening, "the command that makes them"
    assert len(sections) > 1, "the history below"


def test_every_results_page_is_in_the_index_and_the_site():
    index = LINK.findall(RESULTS.read_text())
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in PAGES:
        assert f"results/{page.name}" in index
        assert f"benchmarks/results/{page.name}" in nav
