"""AgentConfig and its groups: every limit, budget and policy of a run (``reactgraph.config.agent_config``).

The groups: ``limits`` (when a run stops), ``prompt`` (what the model is shown), ``checks`` (what judges a reply),
``tool_execution`` (how tool calls run), ``text_format`` (calls written as text), ``model_settings`` (how the model
is called) and ``learning`` (the playbook). ``names.FLAT`` says where each flat name of reactgraph 0.1 went."""

from reactgraph.config.agent_config import GROUPS, AgentConfig, is_option, make_config, option_names
from reactgraph.config.base import ConfigError, Group
from reactgraph.config.checks import Checks
from reactgraph.config.defaults import (
    DEFAULT_FAILURE_PHRASES,
    DEFAULT_ISOLATED_ENV,
    DEFAULT_MODEL,
    DEFAULT_REPLY_CHECKS,
    DEFAULT_RETRYABLE_PATTERNS,
    DEFAULT_SUCCESS_PHRASES,
)
from reactgraph.config.learning import Learning
from reactgraph.config.limits import Limits
from reactgraph.config.model_settings import ModelSettings
from reactgraph.config.names import ALWAYS_ON, FLAT, RENAMED
from reactgraph.config.prompt import Prompt
from reactgraph.config.text_format import TextFormat
from reactgraph.config.tool_execution import ResourceLimits, ToolExecution

__all__ = [
    "ALWAYS_ON",
    "DEFAULT_FAILURE_PHRASES",
    "DEFAULT_ISOLATED_ENV",
    "DEFAULT_MODEL",
    "DEFAULT_REPLY_CHECKS",
    "DEFAULT_RETRYABLE_PATTERNS",
    "DEFAULT_SUCCESS_PHRASES",
    "FLAT",
    "GROUPS",
    "RENAMED",
    "AgentConfig",
    "Checks",
    "ConfigError",
    "Group",
    "Learning",
    "Limits",
    "ModelSettings",
    "Prompt",
    "ResourceLimits",
    "TextFormat",
    "ToolExecution",
    "is_option",
    "make_config",
    "option_names",
]
