"""How a tool is run: one policy object per tool, with agent-wide defaults from AgentConfig.

Like LangGraph's ``ToolNode`` takes its error handling as a value, the act node takes a
``ToolPolicy`` per tool instead of spreading ``if`` branches through the node. Fields left
``None`` fall back to the run's ``AgentConfig.tool_execution`` (``timeout_seconds``, ``max_retries``, ``isolation``,
``resource_limits``, ...).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from reactgraph.config import AgentConfig, ResourceLimits
from reactgraph.errors import is_network_error


class ToolTimeout(Exception):
    """The tool did not finish within its time budget (never retried: the budget is per call)."""


class InvalidArguments(ValueError):
    """The arguments are wrong: they do not match the schema, a before_call hook refused them, or the
    tool itself refused its input (raise it from a tool). Reported as invalid_parameters, never retried,
    and not counted by the circuit breaker: the model can fix it."""


class ResourceLimitExceeded(Exception):
    """A call in a worker process passed one of its resource limits (``limit``: the ResourceLimits field); its
    worker was stopped. Reported as resource_limit, never retried (the same call would pass it again)."""

    def __init__(self, limit: str, problem: str) -> None:
        super().__init__(problem)
        self.limit = limit


class ToolCancelled(Exception):
    """The run was cancelled while the call ran in a worker process, which was stopped (never retried)."""


NEVER_RETRIED: tuple[type[BaseException], ...] = (ToolTimeout, InvalidArguments, ResourceLimitExceeded, ToolCancelled)


class ToolPolicy(BaseModel):
    """Timeout, retries, caching, approval, isolation and resource limits of one tool; ``None`` means "the run's
    AgentConfig value"."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    timeout: float | None = Field(default=None, gt=0, description="Seconds one attempt may take.")
    max_retries: int | None = Field(default=None, ge=0, description="Retries after a retryable failure.")
    initial_delay: float | None = Field(default=None, ge=0, description="First retry delay in seconds.")
    backoff_multiplier: float | None = Field(default=None, ge=1, description="Each retry waits this many times longer.")
    max_delay: float | None = Field(default=None, ge=0, description="Longest wait between retries.")
    retryable_errors: tuple[type[BaseException] | str, ...] | None = Field(
        default=None,
        description="Exception types and message patterns (case-insensitive substrings) worth a retry; None = the "
        "run's retryable_exceptions and retryable_errors, and network errors. A list of the tool's own is all that "
        "is retried (() = no retries): a tool that must not run twice says so.",
    )
    cacheable: bool = Field(
        default=False, description="Identical calls in one run reuse the first result (read-only tools only)."
    )
    approve: bool = Field(
        default=False,
        description="Each call waits for a person to approve, edit or reject it before it runs (see reactgraph.tools.approval).",
    )
    isolation: Literal["none", "process"] | None = Field(
        default=None,
        description="'process': each call runs in a worker process (reactgraph.tools.isolation); 'none': in the "
        "agent's process; None: 'process' when limits are set, else the run's tool_execution.isolation.",
    )
    limits: ResourceLimits | None = Field(
        default=None, description="Resource limits of each call (in a worker process); None = the run's tool_execution.resource_limits."
    )
    sleep: Callable[[float], None] | None = Field(
        default=None, exclude=True, description="How retries wait (default time.sleep); inject one to count delays."
    )

    @model_validator(mode="after")
    def _limits_need_a_worker(self) -> ToolPolicy:
        if self.limits is not None and self.isolation == "none":
            raise ValueError("limits need isolation='process' (they hold in a worker process, not in the agent's)")
        return self

    def isolation_in(self, run_isolation: str) -> str:
        """Where calls run ('none' or 'process') in a run whose tool_execution.isolation is ``run_isolation``."""
        if self.isolation is not None:
            return self.isolation
        return "process" if self.limits is not None else run_isolation

    def resolve(self, cfg: AgentConfig) -> ExecutionPolicy:
        """The concrete policy for a run: this tool's settings over the run's config."""

        def pick(own: float | None, default: float) -> float:
            return default if own is None else own

        errors = self.retryable_errors
        if errors is None:
            errors = (*cfg.tool_execution.retryable_exceptions, *cfg.tool_execution.retryable_errors)
        return ExecutionPolicy(
            timeout=float(pick(self.timeout, cfg.tool_execution.timeout_seconds)),
            max_retries=int(pick(self.max_retries, cfg.tool_execution.max_retries)),
            initial_delay=float(pick(self.initial_delay, cfg.tool_execution.initial_delay_seconds)),
            backoff_multiplier=float(pick(self.backoff_multiplier, cfg.tool_execution.backoff_multiplier)),
            max_delay=float(pick(self.max_delay, cfg.tool_execution.max_delay_seconds)),
            retryable_types=tuple(e for e in errors if isinstance(e, type)),
            retryable_patterns=tuple(e.lower() for e in errors if isinstance(e, str)),
            retry_network=self.retryable_errors is None,
            sleep=self.sleep or time.sleep,
            isolation=self.isolation_in(cfg.tool_execution.isolation),
            limits=self.limits if self.limits is not None else cfg.tool_execution.resource_limits,
            env=cfg.tool_execution.isolated_env,
        )


@dataclass(frozen=True)
class ExecutionPolicy:
    """A ToolPolicy resolved against a run's config: every value concrete."""

    timeout: float
    max_retries: int
    initial_delay: float
    backoff_multiplier: float
    max_delay: float
    retryable_types: tuple[type[BaseException], ...]
    retryable_patterns: tuple[str, ...]
    retry_network: bool  # network errors are retried (unless the tool listed its own retryable errors)
    sleep: Callable[[float], None]
    isolation: str  # 'none' or 'process'
    limits: ResourceLimits  # what a call in a worker process may use
    env: tuple[str, ...] = ()  # the environment variables a call in a worker process sees (isolated_env)

    def is_retryable(self, exc: BaseException) -> bool:
        """A network error (unless the tool listed its own retryable errors), a listed exception type,
        or a message containing a listed pattern; never our own timeout or bad arguments."""
        if isinstance(exc, NEVER_RETRIED):
            return False
        if isinstance(exc, self.retryable_types) or (self.retry_network and is_network_error(exc)):
            return True
        text = f"{type(exc).__name__}: {exc}".lower()
        return any(pattern in text for pattern in self.retryable_patterns)

    def retrying(self) -> Retrying:
        """tenacity's Retrying for this policy: exponential backoff, retryable errors only, re-raise the last."""
        return Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential(multiplier=self.initial_delay, exp_base=self.backoff_multiplier, max=self.max_delay),
            retry=retry_if_exception(self.is_retryable),
            sleep=self.sleep,
            reraise=True,
        )

    def attempt_timeout(self, deadline: float | None, now: float) -> float:
        """Seconds one attempt may take: the tool's timeout, cut to what is left of the run's deadline."""
        if deadline is None:
            return self.timeout
        return max(0.01, min(self.timeout, deadline - now))

