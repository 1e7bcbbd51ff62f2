"""Measure the agent on a task suite: load tasks, inject faults, run, check, report."""

from reactgraph.evaluation.checkers import check_answer
from reactgraph.evaluation.report import SuiteReport
from reactgraph.evaluation.runner import run_suite
from reactgraph.evaluation.suite import Expectation, Fault, Task, load_suite, shipped_suite

__all__ = ["Expectation", "Fault", "SuiteReport", "Task", "check_answer", "load_suite", "run_suite", "shipped_suite"]
