"""Deprecated: ``reactgraph.workers`` is now ``reactgraph.queue``. Re-exported here, with a DeprecationWarning,
until reactgraph 0.2.0."""

from warnings import warn

from reactgraph.queue import QueueConfigError, queue_url, run_worker, submit

__all__ = ["QueueConfigError", "queue_url", "run_worker", "submit"]

warn(
    "Importing from reactgraph.workers is deprecated and stops working in reactgraph 0.2.0: import from "
    "reactgraph.queue instead.",
    DeprecationWarning,
    stacklevel=2,
)
