"""Writing a benchmark's own section of benchmarks/RESULTS.md (the scripts' ``--write``)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def write_section(heading: str, text: str) -> None:
    """Put ``text`` (starting with ``heading``) at the end of RESULTS.md, replacing the section an
    earlier ``--write`` left there under the same heading."""
    old = RESULTS.read_text()
    start = old.find(f"\n{heading}\n")
    if start != -1:
        end = old.find("\n## ", start + 1)
        old = old[:start] + (old[end:] if end != -1 else "")
    RESULTS.write_text(old.rstrip("\n") + "\n\n" + text)
