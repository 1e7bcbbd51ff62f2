"""Deprecated: ``reactgraph.checkpoints`` is now ``reactgraph.persistence`` (``persistence.sqlite`` and
``persistence.base``). Re-exported here, with a DeprecationWarning, until reactgraph 0.2.0."""

from warnings import warn

from reactgraph.persistence import HistoryEntry, RunInfo, format_trace
from reactgraph.persistence.base import CheckpointStoreError, RunNotFoundError
from reactgraph.persistence.sqlite import async_sqlite_saver, sqlite_saver

__all__ = [
    "CheckpointStoreError",
    "HistoryEntry",
    "RunInfo",
    "RunNotFoundError",
    "async_sqlite_saver",
    "format_trace",
    "sqlite_saver",
]

warn(
    "Importing from reactgraph.checkpoints is deprecated and stops working in reactgraph 0.2.0: import from "
    "reactgraph.persistence.sqlite (sqlite_saver, async_sqlite_saver) or reactgraph.persistence instead.",
    DeprecationWarning,
    stacklevel=2,
)
