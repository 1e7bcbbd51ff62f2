"""AgentConfig: every limit, budget and policy of a run.

Precedence is per-run override (``run(**overrides)`` or the LangGraph runtime
``context``) > per-agent config > the defaults below. Only the fields a run sets
explicitly override the agent's config (pydantic's ``model_fields_set``). Containment is the
exception (``merge``): the agent's ``approve_tools`` and ``tool_isolation`` are floors a run can
raise but not lower, and its ``isolated_env`` a ceiling a run can narrow but not widen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from reactgraph.errors import did_you_mean

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
    "said_already",
    "asked_before",
    "one_question",
    "thought_required",
    "fan_out",
    "premature_call",
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


ALWAYS_ON = {  # option of the design documents -> why reactgraph has no such switch
    "enable_scratchpad": "the scratchpad cannot be turned off: every turn's prompt is rebuilt from the question, the "
    "running summary and the last keep_recent_steps steps (agent.get_current_scratchpad() shows it; keep_recent_steps "
    "and summary_every shape it)",
}

# What a tool in a worker process sees of the agent's environment by default: where programs and files are,
# the locale and time zone, the virtualenv. Nothing that holds a secret.
DEFAULT_ISOLATED_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC",
    "TZ", "TMPDIR", "TERM", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONIOENCODING",
)


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the field and the problem."""


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


class AgentConfig(BaseModel):
    """Limits, budgets and policies of a ReAct run (also the graph's context schema)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: Annotated[str, Field(json_schema_extra={"__template_metadata__": {"kind": "llm"}})] = Field(
        default=DEFAULT_MODEL,
        description="Chat model as 'provider:model' (e.g. 'ollama:qwen2.5:7b'). "
        "Ignored when the agent was given a model instance and the run does not set it.",
    )
    max_iterations: int = Field(default=10, ge=1, description="Model turns with tool calls before the run stops.")
    token_budget: int | None = Field(
        default=None, gt=0, description="Stop before total tokens (prompt + completion) would pass this."
    )
    timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Wall-clock budget of the run: bounds every model call and tool wait, and is checked after every step.",
    )
    partial_answer_timeout: float = Field(
        default=10.0,
        gt=0,
        description="With timeout_seconds: seconds the partial-answer call at a limit may take, and never more than "
        "half a second past the time budget (the run ends within timeout_seconds + 1 s).",
    )
    stall_threshold: int = Field(
        default=3, ge=2, description="Consecutive repeats of the same action, or of the same observation, that stop a run."
    )
    summary_every: int = Field(
        default=3, ge=0, description="Summarize the run every N iterations (1 = every step, 0 = never)."
    )
    keep_recent_steps: int = Field(
        default=3, ge=1, description="Steps shown verbatim in the prompt; older ones live in the summary."
    )
    keep_recent_turns: int = Field(
        default=4,
        ge=1,
        description="Earlier turns of the thread's conversation shown verbatim (question and answer); when more "
        "have gathered, all but the last half are folded into the conversation's notes (one model call).",
    )
    new_conversation: bool = Field(
        default=False,
        description="This turn starts the model's context anew: the thread's earlier turns stay in its history "
        "but are not shown.",
    )
    max_observation_tokens: int = Field(
        default=500, ge=16, description="Longer observations are truncated head-and-tail with a marker."
    )
    early_stopping: Literal["generate", "force"] = Field(
        default="generate",
        description="At a limit: 'generate' makes one last model call for a partial answer; 'force' does not.",
    )
    success_phrases: tuple[str, ...] = Field(
        default=DEFAULT_SUCCESS_PHRASES,
        description="A model reply with a line that starts with one of these ends the run with success; the text after it is the answer.",
    )
    failure_phrases: tuple[str, ...] = Field(
        default=DEFAULT_FAILURE_PHRASES,
        description="A final reply containing one of these ends the run with reason 'failure'.",
    )
    system_prompt: str | None = Field(default=None, description="Replaces the default system prompt.")
    thought_prompt: str | None = Field(
        default=None, description="Appended to every think prompt (e.g. 'Think step by step before acting')."
    )
    ask_confidence: bool = Field(
        default=False,
        description="Ask the model to end its final answer with a line 'Confidence: <0 to 1>'; the line is cut from "
        "the answer and its value blended into result.confidence.",
    )
    playbook: bool = Field(
        default=False,
        description="Show bullets learnt from earlier runs (the graph's store) in the prompt, and learn from each "
        "finished run (reactgraph.playbook).",
    )
    playbook_name: str = Field(
        default="default", min_length=1, pattern=r"^[^.]+$",
        description="The playbook to use: one per agent or domain (no '.': the store's namespaces separate with it).",
    )
    playbook_top_k: int = Field(default=3, ge=1, description="Bullets retrieved for a question.")
    playbook_max_tokens: int = Field(
        default=200, ge=20, description="Cap on the playbook block in the prompt (estimated tokens)."
    )
    playbook_lessons: bool = Field(
        default=False,
        description="After a run, also ask the model for a lesson in words (written in the background; "
        "agent.playbook.wait() waits for it).",
    )
    reply_checks: tuple[str, ...] = Field(
        default=DEFAULT_REPLY_CHECKS,
        description="The checks that judge each model reply, in order (reactgraph.graph.checks): the built-in ones "
        "by name, and the agent's own (ReActAgent(reply_checks=[..., my_check]) or @agent.reply_check). Leave a "
        "name out to switch that check off.",
    )
    answer_checks: int = Field(
        default=1,
        ge=0,
        description="How often a turn's final answers (or give-ups) may be sent back by a reply check to be checked "
        "with a tool (an answer no tool result backs, a give-up before trying the tools, your own checks' send-backs); "
        "past that, the answer stands. 0 = never.",
    )
    require_thought: bool = Field(
        default=False, description="A tool call without reasoning is not run; the model is asked for its reasoning."
    )
    min_thought_chars: int = Field(default=10, ge=0, description="Shortest thought accepted when require_thought is on.")
    output_mode: Literal["simple", "structured"] = Field(
        default="structured", description="'simple': run() returns the answer string; 'structured': the ReActResult."
    )
    tools: tuple[str, ...] | None = Field(
        default=None, description="Names of the registered tools to offer in this run (None = all)."
    )
    approve_tools: tuple[str, ...] = Field(
        default=(),
        description="Tools whose calls wait for a person to approve, edit or reject them before they run ('*' = "
        "every tool); the run pauses (interrupt) until they decide. A tool's own ToolPolicy(approve=True) always waits.",
    )
    allow_clarification: bool = Field(
        default=True, description="Offer the model an ask_user tool; the run pauses (interrupt) until the user answers."
    )
    # Tool execution (defaults for every tool; a tool's own policy overrides).
    tool_timeout: float = Field(default=30.0, gt=0, description="Seconds a tool call may take.")
    max_retries: int = Field(default=3, ge=0, description="Retries of a tool call that failed with a retryable error.")
    initial_delay: float = Field(default=0.1, ge=0, description="First retry delay in seconds.")
    backoff_multiplier: float = Field(default=2.0, ge=1, description="Each retry waits this many times longer.")
    max_delay: float = Field(default=5.0, ge=0, description="Longest wait between retries, in seconds.")
    max_tool_failures: int = Field(
        default=3, ge=1, description="A tool that failed this often in a run is taken out of the offered tools."
    )
    max_parallel_tools: int = Field(default=4, ge=1, description="Tool calls of one turn run concurrently up to this.")
    tool_isolation: Literal["none", "process"] = Field(
        default="none",
        description="Where user tools run: 'none' in the agent's process; 'process' in a worker process that is killed "
        "when the call times out, is cancelled or passes a limit of tool_limits. Built-ins, sub-agents and MCP tools "
        "stay in the agent's process; a tool's ToolPolicy(isolation=...) overrides this.",
    )
    isolated_env: tuple[str, ...] = Field(
        default=DEFAULT_ISOLATED_ENV,
        description="Environment variables a tool in a worker process sees (names; the agent's value at the call); "
        "nothing else of the agent's environment (API keys, database URLs) reaches it. A run can narrow this list, "
        "not widen it.",
    )
    tool_limits: ResourceLimits = Field(
        default_factory=ResourceLimits,
        description="Resource limits of each call in a worker process (memory, CPU seconds, output, file size, "
        "processes); a tool's ToolPolicy(limits=...) replaces them.",
    )
    max_tool_output_bytes: int = Field(
        default=32_768,
        ge=1024,
        description="A tool's output (or error message) is cut to its first this many bytes (UTF-8), where the tool "
        "runs, with the cut marked: the run, its cache and its checkpoints keep no more than that.",
    )
    retryable_errors: tuple[str, ...] = Field(
        default=DEFAULT_RETRYABLE_PATTERNS,
        description="A tool error whose message contains one of these (case-insensitive) is retried.",
    )
    retryable_exceptions: SkipJsonSchema[tuple[type[BaseException], ...]] = Field(
        default=(ConnectionError, TimeoutError),
        exclude=True,
        description="Exception types a tool may raise that are retried.",
    )
    # Models and parsing
    tool_calling: Literal["auto", "native", "text", "json"] = Field(
        default="auto",
        description="'auto': native tool calling, switching the run (and the agent's later runs) to 'text' once the "
        "model writes its calls as text; 'native': the model's tool-calling API; 'text': tools described in the "
        "prompt, replies as Thought/Action text; 'json': calls as JSON objects in the reply.",
    )
    thought_tag: str = Field(default="Thought", min_length=1, description="Tag of the reasoning line in the text format.")
    action_tag: str = Field(default="Action", min_length=1, description="Tag of the action line ('Action: tool[input]').")
    observation_tag: str = Field(default="Observation", min_length=1, description="Tag of tool results in the text format.")
    final_answer_tag: str = Field(default="Final Answer", min_length=1, description="Tag of the answer in the text format.")
    max_parse_retries: int = Field(
        default=3, ge=1, description="Consecutive unreadable replies (bad format, unknown tool, empty) that end the run."
    )
    max_output_retries: int = Field(
        default=2,
        ge=0,
        description="With an output schema: final answers that do not fit it sent back to the model (with the "
        "validation error) before the run ends with failure, the text answer kept.",
    )
    summary_token_threshold: int | None = Field(
        default=None, gt=0, description="Also summarize when the next prompt would pass this many tokens (None = off)."
    )
    summarize_observations: bool = Field(
        default=False, description="Summarize observations longer than max_observation_tokens with the model instead of truncating."
    )
    num_ctx: int | None = Field(default=8192, gt=0, description="Ollama context window in tokens (None = the server's default).")
    temperature: float | None = Field(default=0.0, ge=0, description="Sampling temperature (None = the model's default).")
    max_output_tokens: int | None = Field(
        default=1024,
        gt=0,
        description="Longest reply of a model made from its name, in tokens (Ollama num_predict, max_tokens elsewhere; "
        "None = no cap): one runaway generation cannot take minutes.",
    )
    keep_alive: str | None = Field(default=None, description="How long Ollama keeps the model loaded, e.g. '5m' (None = server default).")
    fallback_models: tuple[str, ...] = Field(
        default=(), description="'provider:model' names tried in order when the model keeps failing."
    )
    model_retries: int = Field(default=2, ge=0, description="Retries of a model call that failed with a transient error.")
    model_retry_delay: float = Field(default=1.0, ge=0, description="First wait before retrying a model call, in seconds.")
    model_retry_max_delay: float = Field(default=10.0, ge=0, description="Longest wait between model call retries, in seconds.")
    durability: Literal["sync", "async", "exit"] = Field(
        default="sync",
        description="When the run's checkpoints are written (LangGraph's durability): 'sync' before the next step "
        "starts (a crash loses at most the step running); 'async' while the next step runs (a crash can lose the "
        "last step: a tool call that finished may run again on resume); 'exit' only when the run ends or waits (a "
        "crash loses the whole run, and its history has no steps to fork from).",
    )
    termination_callback: SkipJsonSchema[Callable[[Any], bool] | None] = Field(
        default=None,
        exclude=True,
        description="Called with each completed ReActStep; returning True ends the run with reason 'custom'.",
    )

    @model_validator(mode="before")
    @classmethod
    def _known_options(cls, values: Any) -> Any:
        """An unknown option is an error naming the close matches (a typo is never dropped silently). The options
        of the design documents reactgraph grew from that it does another way (``ALWAYS_ON``) are taken when they
        ask for what reactgraph does anyway, and refused, saying why, when they ask for something else."""
        if isinstance(values, dict) and ALWAYS_ON.keys() & values.keys():
            for name in ALWAYS_ON.keys() & values.keys():
                if values[name] is not True:
                    raise PydanticCustomError("always_on", f"{name}={values[name]!r}: {ALWAYS_ON[name]}")
            values = {k: v for k, v in values.items() if k not in ALWAYS_ON}
        if isinstance(values, dict):
            unknown = [k for k in values if k not in cls.model_fields]
            if unknown:
                raise PydanticCustomError(
                    "unknown_option",
                    "; ".join(f"unknown option {str(k)!r}{did_you_mean(str(k), cls.model_fields)}" for k in unknown),
                )
        return values

    @model_validator(mode="after")
    def _phrases_not_blank(self) -> AgentConfig:
        for name in ("success_phrases", "failure_phrases"):
            if any(not p.strip() for p in getattr(self, name)):
                raise ValueError(f"{name} must not contain blank phrases")
        return self

    def deadline(self, started_at: float | None) -> float | None:
        """When a run that started at ``started_at`` (epoch seconds) runs out of time; None without a time budget."""
        if self.timeout_seconds is None or started_at is None:
            return None
        return started_at + self.timeout_seconds

    def override(self, **values: Any) -> AgentConfig:
        """A copy with ``values`` applied on top (validated): the operator's own settings, containment
        included (a run's go through ``merge``)."""
        given = make_config(**values)
        return self.model_copy(update={k: getattr(given, k) for k in given.model_fields_set})

    def merge(self, run: AgentConfig | None) -> AgentConfig:
        """A copy with the fields that ``run`` set explicitly applied on top, except that a run cannot
        loosen containment: ``approve_tools`` is the union of both, ``tool_isolation`` the stricter,
        ``isolated_env`` the names both allow (``contained``)."""
        if run is None or run is self:
            return self
        update = {k: getattr(run, k) for k in run.model_fields_set}
        return self.model_copy(update=update | self.contained(update))

    def contained(self, update: dict[str, Any]) -> dict[str, Any]:
        """The containment fields of ``update``, made no looser than this config's."""
        kept: dict[str, Any] = {}
        if "approve_tools" in update:
            kept["approve_tools"] = tuple(dict.fromkeys((*self.approve_tools, *update["approve_tools"])))
        if "tool_isolation" in update and self.tool_isolation == "process":
            kept["tool_isolation"] = "process"
        if "isolated_env" in update:
            kept["isolated_env"] = tuple(name for name in update["isolated_env"] if name in self.isolated_env)
        return kept


def make_config(**values: Any) -> AgentConfig:
    """Build an AgentConfig, turning validation errors into a ConfigError that names each bad field."""
    try:
        return AgentConfig(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']} (got {err.get('input')!r})" if err["loc"] else err["msg"]
            for err in exc.errors()
        )
        raise ConfigError(f"invalid reactgraph config: {problems}") from None
