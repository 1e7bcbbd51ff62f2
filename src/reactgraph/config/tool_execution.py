"""``tool_execution``: how tool calls run: timeouts, retries, failures, concurrency, approval, isolation, limits."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from reactgraph.config.base import Group
from reactgraph.config.defaults import DEFAULT_ISOLATED_ENV, DEFAULT_RETRYABLE_PATTERNS


class ResourceLimits(BaseModel):
    """What one call of a tool in a worker process may use (``None``: no limit); passing one stops the
    call with a ``resource_limit`` error naming it (``reactgraph.tools.isolation``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int | None = Field(
        default=None, gt=0, description="Address space the call may add to its worker's, in MiB (RLIMIT_AS)."
    )
    cpu_seconds: int | None = Field(default=None, gt=0, description="CPU seconds the call may use (RLIMIT_CPU).")
    output_bytes: int | None = Field(
        default=None, gt=0, description="Bytes the call (and the processes it starts) may write to stdout and stderr."
    )
    file_size_bytes: int | None = Field(default=None, gt=0, description="Largest file the call may write (RLIMIT_FSIZE).")
    processes: int | None = Field(
        default=None, ge=0, description="Processes the call may have at once besides its worker (0: it may not start any)."
    )


class ToolExecution(Group):
    """How every tool call runs (``AgentConfig.tool_execution``); a tool's own ``ToolPolicy`` overrides these."""

    group: ClassVar[str] = "tool_execution"

    timeout_seconds: float = Field(default=30.0, gt=0, description="Seconds a tool call may take.")
    max_retries: int = Field(default=3, ge=0, description="Retries of a tool call that failed with a retryable error.")
    initial_delay_seconds: float = Field(default=0.1, ge=0, description="First wait before retrying a tool call.")
    backoff_multiplier: float = Field(default=2.0, ge=1, description="Each retry waits this many times longer.")
    max_delay_seconds: float = Field(default=5.0, ge=0, description="Longest wait between retries of a tool call.")
    retryable_errors: tuple[str, ...] = Field(
        default=DEFAULT_RETRYABLE_PATTERNS,
        description="A tool error whose message contains one of these (case-insensitive) is retried.",
    )
    retryable_exceptions: SkipJsonSchema[tuple[type[BaseException], ...]] = Field(
        default=(ConnectionError, TimeoutError),
        exclude=True,
        description="Exception types a tool may raise that are retried.",
    )
    max_tool_failures: int = Field(
        default=3, ge=1, description="A tool that failed this often in a run is taken out of the offered tools."
    )
    max_parallel_tools: int = Field(default=4, ge=1, description="Tool calls of one turn run concurrently up to this.")
    max_tool_output_bytes: int = Field(
        default=32_768,
        ge=1024,
        description="A tool's output (or error message) is cut to its first this many bytes (UTF-8), where the tool "
        "runs, with the cut marked: the run, its cache and its checkpoints keep no more than that.",
    )
    approve_tools: tuple[str, ...] = Field(
        default=(),
        description="Tools whose calls wait for a person to approve, edit or reject them before they run ('*' = "
        "every tool); the run pauses (interrupt) until they decide. A tool's own ToolPolicy(approve=True) always waits.",
    )
    isolation: Literal["none", "process"] = Field(
        default="none",
        description="Where user tools run: 'none' in the agent's process; 'process' in a worker process that is killed "
        "when the call times out, is cancelled or passes one of resource_limits. Built-ins, sub-agents and MCP tools "
        "stay in the agent's process; a tool's ToolPolicy(isolation=...) overrides this.",
    )
    isolated_env: tuple[str, ...] = Field(
        default=DEFAULT_ISOLATED_ENV,
        description="Environment variables a tool in a worker process sees (names; the agent's value at the call); "
        "nothing else of the agent's environment (API keys, database URLs) reaches it. A run can narrow this list, "
        "not widen it.",
    )
    resource_limits: ResourceLimits = Field(
        default_factory=ResourceLimits,
        description="Resource limits of each call in a worker process (memory, CPU seconds, output, file size, "
        "processes); a tool's ToolPolicy(limits=...) replaces them.",
    )

    def contained(self, update: dict[str, Any]) -> dict[str, Any]:
        """The containment options of ``update`` (a run's), made no looser than these: ``approve_tools`` the union of
        both, ``isolation`` the stricter, ``isolated_env`` the names both allow."""
        kept: dict[str, Any] = {}
        if "approve_tools" in update:
            kept["approve_tools"] = tuple(dict.fromkeys((*self.approve_tools, *update["approve_tools"])))
        if "isolation" in update and self.isolation == "process":
            kept["isolation"] = "process"
        if "isolated_env" in update:
            kept["isolated_env"] = tuple(name for name in update["isolated_env"] if name in self.isolated_env)
        return kept
