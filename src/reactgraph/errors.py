"""Error kinds: every way a tool call or a model reply can fail, and the text the model sees for each.

An error reaches the model as an observation ``Error (<kind>): ...`` that says what it can do
about it; the kind is kept with the observation (``Observation.error_kind``) and in the error
history. ``ErrorKind`` is a ``StrEnum``: a kind equals its string (``ErrorKind.TIMEOUT ==
"timeout"``). The state and its checkpoints hold the plain string (``kind.value``), so a
checkpoint needs no enum type to be read.

A tool's exception becomes a kind in ``tools.execution.kind_of``. A connection failure
(``is_network_error``) is ``network_error``: it is taken as transient, so it is retried (``max_retries``,
with backoff; not when the tool's policy lists its own retryable errors) and, once the retries are used
up, counted by the circuit breaker.
"""

from __future__ import annotations

import difflib
import errno
import socket
import sys
import urllib.error
from collections.abc import Iterable
from enum import StrEnum


class ErrorKind(StrEnum):
    """Why an action did not give a result."""

    # a tool call
    TOOL_NOT_FOUND = "tool_not_found"  # no tool of that name is offered
    INVALID_PARAMETERS = "invalid_parameters"  # the arguments are wrong (the model can fix them)
    EXECUTION_FAILED = "execution_failed"  # the tool raised
    NETWORK_ERROR = "network_error"  # the tool could not reach its service
    TIMEOUT = "timeout"  # the tool gave no result within its time
    RESOURCE_LIMIT = "resource_limit"  # the tool's worker process passed a resource limit (memory, CPU, output, ...)
    DISABLED = "disabled"  # the circuit breaker took the tool out of the run
    REJECTED = "rejected"  # the user refused the call when asked to approve it (no failure of the tool)
    # a model reply (the formats' readers, think)
    MALFORMED_OUTPUT = "malformed_output"  # a call that cannot be read
    MISSING_ACTION = "missing_action"  # reasoning without an action or an answer
    MISSING_THOUGHT = "missing_thought"  # a call without reasoning (require_thought)
    EMPTY_REPLY = "empty_reply"  # nothing at all
    NON_ANSWER = "non_answer"  # a final reply that is no answer (a copy of an error, an announced call)
    INVALID_OUTPUT = "invalid_output"  # a final answer that does not fit the output schema (output_schema)
    UNVERIFIED_ANSWER = "unverified_answer"  # a final answer sent back once to be checked with a tool (answer_checks)
    PREMATURE_CALL = "premature_call"  # a call on numbers nothing gave yet, made beside the lookup that gives them
    REPEATED_PLAN = "repeated_plan"  # the step before's call made again on its own result, under the same reasoning
    UNFOUNDED_CALL = "unfounded_call"  # a call none of whose values anything the run was given holds (unfounded_call)


# The observation for each kind. Fields: problem (what went wrong; a rejection's reason), tool, tried (" (after 2 retries)"
# or ""), failures (max_tool_failures).
TEXTS: dict[str, str] = {  # keyed by ErrorKind (a StrEnum member and its string are the same key)
    ErrorKind.TOOL_NOT_FOUND: "Error (tool_not_found): {problem}.",
    ErrorKind.INVALID_PARAMETERS: "Error (invalid_parameters) calling {tool}: {problem}. Fix the arguments and call again.",
    ErrorKind.EXECUTION_FAILED: "Error (execution_failed) in {tool}{tried}: {problem}. {advice}",
    ErrorKind.NETWORK_ERROR: "Error (network_error) in {tool}{tried}: {problem}. The tool could not reach its service: "
    "the same call may work later, or try another approach.",
    ErrorKind.TIMEOUT: "Error (timeout): {tool} gave {problem}{tried}. Try simpler arguments or another tool.",
    ErrorKind.RESOURCE_LIMIT: "Error (resource_limit): {tool} was stopped at a limit: {problem}. Ask for less (a smaller "
    "input, fewer results) or try another approach.",
    ErrorKind.DISABLED: "Error (disabled): {tool} failed {failures} times in this run and is no longer available. "
    "Use another tool or answer from what you have.",
    ErrorKind.REJECTED: "Error (rejected): the user did not allow this call of {tool}, so it was not run. Their reason: "
    "{problem}. Do not make the same call again unless the user asks for it; take their reason into account, "
    "try another approach or answer from what you have.",
    ErrorKind.INVALID_OUTPUT: "Error (invalid_output): your final answer does not fit the answer's schema: {problem}.",
    ErrorKind.UNVERIFIED_ANSWER: "Not accepted yet (unverified_answer): {problem}.",
    ErrorKind.PREMATURE_CALL: "Not run yet (premature_call): {problem}.",
    ErrorKind.REPEATED_PLAN: "Not run (repeated_plan): {problem}.",
    ErrorKind.UNFOUNDED_CALL: "Not run (unfounded_call): {problem}.",
}
DEFAULT_TEXT = "Error ({kind}): {problem}."  # the reply kinds: the prompt adds the expected format
ADVICE = "Check the arguments, or try another approach."
TRANSIENT_ADVICE = "The error looks temporary: the same call may work if you make it again, or try another approach."


def error_text(
    kind: ErrorKind | str,
    *,
    problem: str = "",
    tool: str = "",
    tried: str = "",
    failures: int = 0,
    transient: bool = False,
) -> str:
    """The observation the model sees for an error of ``kind``; ``transient``: an execution failure
    that a retry may get past (the model is told so). A problem that ends its sentence (a check's message) gets
    no second period."""
    text = TEXTS.get(kind, DEFAULT_TEXT)  # a StrEnum member and its string are the same key
    if problem.endswith((".", "!", "?")) and "{problem}." in text:
        text = text.replace("{problem}.", "{problem}")
    return text.format(
        kind=str(kind), problem=problem, tool=tool, tried=tried, failures=failures,
        advice=TRANSIENT_ADVICE if transient else ADVICE,
    )


# OSError numbers that mean the network, not the tool, failed.
NETWORK_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ENETDOWN", "ENETUNREACH", "ENETRESET",
        "EHOSTDOWN", "EHOSTUNREACH", "ETIMEDOUT", "EPIPE",
    )
    if hasattr(errno, name)
)
# Connection errors of HTTP libraries, by module and class; checked only when the library is already
# imported (an exception of a library nobody imported cannot occur), so none of them is a dependency.
LIBRARY_NETWORK_ERRORS = (
    ("httpx", "NetworkError"),  # ConnectError, ReadError, WriteError, CloseError
    ("httpx", "TimeoutException"),
    ("httpx", "RemoteProtocolError"),
    ("requests", "ConnectionError"),
    ("requests", "Timeout"),
    ("urllib3.exceptions", "MaxRetryError"),
    ("urllib3.exceptions", "NewConnectionError"),
    ("urllib3.exceptions", "ProtocolError"),
    ("urllib3.exceptions", "TimeoutError"),
    ("aiohttp", "ClientConnectionError"),
)


def is_network_error(exc: BaseException) -> bool:
    """Whether ``exc`` says a service could not be reached (refused, reset, unreachable, no DNS
    answer, timed out), as opposed to an answer that says no (an HTTP 404 is not a network error)."""
    if isinstance(exc, urllib.error.HTTPError):
        return False
    if isinstance(exc, urllib.error.URLError):
        return isinstance(exc.reason, BaseException) and is_network_error(exc.reason)
    if isinstance(exc, ConnectionError | socket.gaierror | socket.herror):
        return True  # a bare TimeoutError (asyncio.wait_for in the tool, say) is the tool's own: not the network
    if isinstance(exc, OSError) and exc.errno in NETWORK_ERRNOS:
        return True
    for module_name, class_name in LIBRARY_NETWORK_ERRORS:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'a' or 'b'?)`` for the choices close to a misspelt ``name``; '' when none is."""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.8)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


class MissingExtraError(ImportError):
    """A feature needs an optional part of reactgraph that is not installed; the message names the extra to
    install (``pip install 'reactgraph[postgres]'``)."""


def missing_extra(extra: str, feature: str, exc: ImportError) -> MissingExtraError:
    """The error for ``feature``, which needs the extra ``extra``, when importing its packages raised ``exc``."""
    missing = exc.name or str(exc)
    return MissingExtraError(f"{feature} needs reactgraph's {extra!r} extra ({missing} is not installed): pip install 'reactgraph[{extra}]'")
