"""The fast subset (``pytest -m fast``) names tests that exist: a renamed file or test would drop out of it silently."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import FAST

ROOT = Path(__file__).resolve().parents[2]


def test_every_entry_of_the_fast_subset_names_a_test():
    missing = []
    for entry in FAST:
        path, _, name = entry.partition("::")
        file = ROOT / path
        test = re.match(r"\w+", name)
        if not file.is_file() or (test and not re.search(rf"^def {test.group()}\(", file.read_text(), re.M)):
            missing.append(entry)
    assert missing == []
