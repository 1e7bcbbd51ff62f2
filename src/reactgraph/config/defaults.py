"""The defaults of the options that are lists (phrases, checks, patterns, names) and the default model."""

from __future__ import annotations

DEFAULT_MODEL = "ollama:qwen2.5:7b"

# How models say they cannot do a task (matched case-insensitively anywhere in a final reply). Only
# wordings that say the question is not answered: "the tool is not available, so I computed 42" is
# an answer.
DEFAULT_FAILURE_PHRASES = (
    "cannot complete the task",
    "cannot complete this task",
    "can't complete the task",
    "can't complete this task",
    "unable to complete the task",
    "unable to complete this task",
    "I give up",
    "cannot be answered",
    "can't be answered",
    "cannot be determined",
    "can't be determined",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "unable to determine",
    "not enough information",
    "does not provide any information",
    "do not provide any information",
    "does not contain any information",
)
DEFAULT_SUCCESS_PHRASES = ("Final Answer:",)
# The built-in reply checks, in the order think runs them (each one's rule: reactgraph.graph.checks).
DEFAULT_REPLY_CHECKS = (
    "answer_stands",
    "no_answer",
    "null_answer",
    "announced_call",
    "made_up_output",
    "unsupported_number",
    "unfounded_name",
    "answers_each",
    "unfinished_plan",
    "said_already",
    "guessed_values",
    "one_question",
    "repeated_plan",
    "thought_required",
    "fan_out",
    "premature_call",
    "dotted_thousands",
    "unfounded_call",
    "unfounded_options",
    "output_schema",
)
DEFAULT_RETRYABLE_PATTERNS = (
    "timeout",
    "timed out",
    "connection refused",
    "connection reset",
    "temporarily unavailable",
    "rate limit",
)

# What a tool in a worker process sees of the agent's environment by default: where programs and files are,
# the locale and time zone, the virtualenv. Nothing that holds a secret.
DEFAULT_ISOLATED_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC",
    "TZ", "TMPDIR", "TERM", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONIOENCODING",
)
