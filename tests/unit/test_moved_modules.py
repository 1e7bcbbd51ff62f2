"""The old paths of moved modules: plain modules that re-export the new ones with a versioned DeprecationWarning;
no import hook."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import reactgraph

MOVED = {  # old path -> (the new path, the names it re-exports)
    "reactgraph.checkpoints": {
        "reactgraph.persistence.base": ["CheckpointStoreError", "RunNotFoundError"],
        "reactgraph.persistence": ["HistoryEntry", "RunInfo", "format_trace"],
        "reactgraph.persistence.sqlite": ["async_sqlite_saver", "sqlite_saver"],
    },
    "reactgraph.confidence": {
        "reactgraph.answers.confidence": ["Confidence", "ConfidenceSignal", "confidence_of", "read_estimate"],
    },
    "reactgraph.nodes": {
        "reactgraph.graph.nodes": ["make_act", "make_observe", "make_summarize", "make_terminate", "make_think"],
    },
    "reactgraph.workers": {"reactgraph.queue": ["QueueConfigError", "queue_url", "run_worker", "submit"]},
}


def test_import_reactgraph_installs_no_import_hook():
    """In a fresh interpreter: ``import reactgraph`` leaves sys.meta_path as it was."""
    script = (
        "import sys; before = list(sys.meta_path); import reactgraph; "
        "print(len(sys.meta_path) - len(before), [type(f).__name__ for f in sys.meta_path if f not in before])"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "[]"]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_warns_and_gives_the_new_objects(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    [warning] = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    message = str(warning.message)
    assert old in message and "0.2.0" in message and reactgraph.__version__ != "0.2.0"
    for home, names in MOVED[old].items():
        assert home in message or home.rsplit(".", 1)[0] in message
        new = importlib.import_module(home)
        for name in names:
            assert getattr(module, name) is getattr(new, name), f"{old}.{name} is a second copy"
    assert sorted(module.__all__) == sorted(name for names in MOVED[old].values() for name in names)


def test_a_module_that_moved_without_being_documented_is_gone():
    """Old paths no README named go without a stub (reactgraph.formats is reactgraph.tool_calling)."""
    sys.modules.pop("reactgraph.formats", None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("reactgraph.formats")
