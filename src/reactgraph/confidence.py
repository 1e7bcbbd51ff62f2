"""Deprecated: ``reactgraph.confidence`` is now ``reactgraph.answers.confidence``. Re-exported here, with a
DeprecationWarning, until reactgraph 0.2.0."""

from warnings import warn

from reactgraph.answers.confidence import Confidence, ConfidenceSignal, confidence_of, read_estimate

__all__ = ["Confidence", "ConfidenceSignal", "confidence_of", "read_estimate"]

warn(
    "Importing from reactgraph.confidence is deprecated and stops working in reactgraph 0.2.0: import from "
    "reactgraph.answers.confidence instead.",
    DeprecationWarning,
    stacklevel=2,
)
