"""Writing a benchmark's own section into its page of benchmarks/results/ (the scripts' ``--write``).

A page opens with "The current figures" (a table, the command), then its sections, newest first. ``--write`` puts the
new section first among them, in place of the one an earlier ``--write`` left under the same heading; the opening's
table is written by hand from it (the script says so).
"""

from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).with_name("results")
OPENING = "## The current figures"


def write_section(page: str, heading: str, text: str) -> Path:
    """Put ``text`` (starting with ``heading``) first below the opening of ``benchmarks/results/<page>``, replacing
    the section an earlier ``--write`` left there under the same heading; returns the page's path."""
    path = PAGES / page
    old = path.read_text()
    start = old.find(f"\n{heading}\n")
    if start != -1:
        end = old.find("\n## ", start + 1)
        old = old[:start] + (old[end:] if end != -1 else "\n")
    opening = old.index(f"\n{OPENING}\n")
    first = old.find("\n## ", opening + 1)
    head, rest = (old, "") if first == -1 else (old[:first], old[first + 1 :])
    path.write_text(head.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n" + ("\n" + rest if rest else ""))
    print(f"{heading} written to {path}: update its page's current figures (and benchmarks/RESULTS.md's line)")
    return path
