"""Where each option of reactgraph 0.1's flat ``AgentConfig`` lives now: ``FLAT`` maps each flat name to its group
and name there. A flat name still works as a keyword (``AgentConfig(max_iterations=6)``), in a run's overrides, in
a served run's context, in ``--set`` and as an attribute (``config.max_iterations``); one whose name changed in its
group (``tool_timeout`` is ``tool_execution.timeout_seconds``) also warns (DeprecationWarning) naming the new one.
The options a config has at its top (``model``, ``tool_calling``, ...) are not in the table: they did not move."""

from __future__ import annotations

import difflib
import sys
import warnings

FLAT: dict[str, str] = {
    # limits: when a run stops
    "max_iterations": "limits.max_iterations",
    "token_budget": "limits.token_budget",
    "timeout_seconds": "limits.timeout_seconds",
    "partial_answer_timeout": "limits.partial_answer_timeout_seconds",
    "stall_threshold": "limits.stall_threshold",
    "max_parse_retries": "limits.max_parse_retries",
    "early_stopping": "limits.early_stopping",
    # prompt: what the model is shown each turn
    "system_prompt": "prompt.system_prompt",
    "thought_prompt": "prompt.thought_prompt",
    "keep_recent_steps": "prompt.keep_recent_steps",
    "keep_recent_turns": "prompt.keep_recent_turns",
    "new_conversation": "prompt.new_conversation",
    "summary_every": "prompt.summary_every",
    "summary_token_threshold": "prompt.summary_token_threshold",
    "max_observation_tokens": "prompt.max_observation_tokens",
    "summarize_observations": "prompt.summarize_observations",
    # text_format: the 'text' and 'json' tool-calling formats
    "thought_tag": "text_format.thought_tag",
    "action_tag": "text_format.action_tag",
    "observation_tag": "text_format.observation_tag",
    "final_answer_tag": "text_format.final_answer_tag",
    "success_phrases": "text_format.success_phrases",
    # checks: what judges a reply and its answer
    "reply_checks": "checks.reply_checks",
    "answer_checks": "checks.answer_checks",
    "require_thought": "checks.require_thought",
    "min_thought_chars": "checks.min_thought_chars",
    "failure_phrases": "checks.failure_phrases",
    "max_output_retries": "checks.max_output_retries",
    "ask_confidence": "checks.ask_confidence",
    # tool_execution: how tool calls run
    "tool_timeout": "tool_execution.timeout_seconds",
    "max_retries": "tool_execution.max_retries",
    "initial_delay": "tool_execution.initial_delay_seconds",
    "backoff_multiplier": "tool_execution.backoff_multiplier",
    "max_delay": "tool_execution.max_delay_seconds",
    "retryable_errors": "tool_execution.retryable_errors",
    "retryable_exceptions": "tool_execution.retryable_exceptions",
    "max_tool_failures": "tool_execution.max_tool_failures",
    "max_parallel_tools": "tool_execution.max_parallel_tools",
    "max_tool_output_bytes": "tool_execution.max_tool_output_bytes",
    "approve_tools": "tool_execution.approve_tools",
    "tool_isolation": "tool_execution.isolation",
    "isolated_env": "tool_execution.isolated_env",
    "tool_limits": "tool_execution.resource_limits",
    # model_settings: how the model made from its name is called
    "temperature": "model_settings.temperature",
    "max_output_tokens": "model_settings.max_output_tokens",
    "num_ctx": "model_settings.ollama_num_ctx",
    "keep_alive": "model_settings.ollama_keep_alive",
    "fallback_models": "model_settings.fallback_models",
    "model_retries": "model_settings.max_retries",
    "model_retry_delay": "model_settings.initial_delay_seconds",
    "model_retry_max_delay": "model_settings.max_delay_seconds",
    # learning: the playbook
    "playbook": "learning.playbook",
    "playbook_name": "learning.playbook_name",
    "playbook_top_k": "learning.playbook_top_k",
    "playbook_max_tokens": "learning.playbook_max_tokens",
    "playbook_lessons": "learning.playbook_lessons",
}
RENAMED = {old: new for old, new in FLAT.items() if old != new.split(".", 1)[1]}

ALWAYS_ON = {  # option of the design documents -> why reactgraph has no such switch
    "enable_scratchpad": "the scratchpad cannot be turned off: every turn's prompt is rebuilt from the question, the "
    "running summary and the last prompt.keep_recent_steps steps (agent.get_current_scratchpad() shows it; "
    "prompt.keep_recent_steps and prompt.summary_every shape it)",
}


def where(name: str) -> tuple[str, str]:
    """(group, name in the group) of the flat option ``name``, warning once per use when it was renamed."""
    path = FLAT[name]
    if name in RENAMED:
        warnings.warn(f"reactgraph option {name!r} is now {path!r}", DeprecationWarning, stacklevel=find_caller())
    group, leaf = path.split(".", 1)
    return group, leaf


def find_caller() -> int:
    """The stack level of the first frame outside reactgraph and pydantic (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("reactgraph", "pydantic")):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def unknown_option(name: str, here: str, known: list[str]) -> str:
    """The message for ``name``, no option of ``here`` ('' = the config's top, else a group): the close matches
    among ``known`` (at the top, the flat names too: a renamed one shown as its new place), or where ``name``
    lives when it is an option of another place."""
    if here and name in FLAT:
        return f"unknown option {name!r} of {here} (it is {FLAT[name]!r})"
    close = difflib.get_close_matches(name, [*known, *([] if here else FLAT)], n=3, cutoff=0.8)
    shown = list(dict.fromkeys(RENAMED.get(c, c) for c in close))
    return f"unknown option {name!r}" + (f" (did you mean {' or '.join(map(repr, shown))}?)" if shown else "")
