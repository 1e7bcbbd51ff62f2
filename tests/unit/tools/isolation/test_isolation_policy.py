"""Isolation and resource limits as settings: ToolPolicy(isolation, limits) over the run's tool_execution.isolation
and resource_limits, the resource_limit error kind and its text, counted by the circuit breaker."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reactgraph import ErrorKind
from reactgraph.config import AgentConfig, ConfigError, ResourceLimits, make_config
from reactgraph.errors import error_text
from reactgraph.tools import ToolPolicy
from reactgraph.tools.breaker import count_failure, disabled_tools


def test_a_tool_runs_in_the_agents_process_unless_its_policy_or_the_run_says_process():
    assert ToolPolicy().resolve(AgentConfig()).isolation == "none"
    assert ToolPolicy().resolve(AgentConfig(tool_execution={"isolation": "process"})).isolation == "process"
    assert ToolPolicy(isolation="process").resolve(AgentConfig()).isolation == "process"
    assert ToolPolicy(isolation="none").resolve(AgentConfig(tool_execution={"isolation": "process"})).isolation == "none"


def test_a_tools_limits_replace_the_runs_and_imply_process_isolation():
    run_limits = ResourceLimits(memory_mb=512, cpu_seconds=10)
    cfg = AgentConfig(tool_execution={"resource_limits": run_limits})
    assert ToolPolicy().resolve(cfg).limits == run_limits
    own = ResourceLimits(output_bytes=4096)
    resolved = ToolPolicy(limits=own).resolve(cfg)
    assert resolved.limits == own and resolved.isolation == "process"


def test_limits_without_a_worker_process_are_refused():
    with pytest.raises(ValidationError, match="limits need isolation='process'"):
        ToolPolicy(isolation="none", limits=ResourceLimits(memory_mb=64))


@pytest.mark.parametrize("field", ["memory_mb", "cpu_seconds", "output_bytes", "file_size_bytes"])
def test_a_limit_must_be_positive(field):
    with pytest.raises(ValidationError, match=field):
        ResourceLimits(**{field: 0})


def test_the_run_config_checks_isolation_and_limits():
    with pytest.raises(ConfigError, match=r"tool_execution\.isolation: Input should be 'none' or 'process' \(got 'thread'\)"):
        make_config(tool_execution={"isolation": "thread"})
    with pytest.raises(ConfigError, match=r"tool_execution\.resource_limits\.processes"):
        make_config(tool_execution={"resource_limits": {"processes": -1}})
    limited = make_config(tool_execution={"resource_limits": {"memory_mb": 256}})
    assert limited.tool_execution.resource_limits == ResourceLimits(memory_mb=256)


def test_resource_limit_is_an_error_kind_whose_text_names_the_limit():
    assert ErrorKind.RESOURCE_LIMIT == "resource_limit"
    text = error_text(ErrorKind.RESOURCE_LIMIT, tool="hog", problem="it needed more than 256 MB of memory (memory_mb=256)")
    assert text.startswith("Error (resource_limit): hog was stopped at a limit: it needed more than 256 MB")
    assert "(memory_mb=256)" in text


def test_the_circuit_breaker_counts_resource_limit_breaches():
    failures: dict[str, int] = {}
    cfg = AgentConfig(max_tool_failures=2)
    outcome = {"tool": "hog", "status": "error", "error_kind": "resource_limit"}
    assert count_failure(failures, outcome, cfg) is None
    assert "disabled" in count_failure(failures, outcome, cfg)
    assert disabled_tools(failures, cfg) == {"hog"}
