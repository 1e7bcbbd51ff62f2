"""Tools in worker processes through the real graph: a hung, crashing or greedy tool is an observation and the
run goes on; the run's tool_execution.isolation; a cancel stops the call's process."""

from __future__ import annotations

import threading
import time

import pytest

from reactgraph import ReActAgent
from reactgraph import TerminationReason as R
from reactgraph.config import ResourceLimits
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistrationError, ToolRegistry
from tests.unit.tools.isolation import isolated_tools as tools
from tests.unit.tools.isolation.isolated_tools import me
from tests.unit.tools.isolation.test_isolation import WAIT, alive, pid_in, recorded, tool_threads


def isolated(*functions, **policy) -> ToolRegistry:
    registry = ToolRegistry()
    for function in functions:
        registry.register(function, policy=ToolPolicy(isolation="process", **policy))
    return registry


@pytest.mark.parametrize("tool", [tools.busy, tools.backtracking])
def test_a_cpu_bound_tool_times_out_and_the_run_goes_on_with_nothing_left_running(tool, tmp_path):
    pids = tmp_path / "pids"
    model = ScriptedChatModel(responses=[
        tool_call(tool.__name__, {"pids": str(pids)}, thought="Try the tool."), "The tool gave nothing; no answer.",
    ])
    agent = ReActAgent(model=model, tools=isolated(tool), tool_execution={"timeout_seconds": 1}, limits={"timeout_seconds": 30})
    result = agent.run(f"Go, noting your pid in {pids}.")
    assert result.termination_reason is R.SUCCESS
    observation = result.trace.steps[0].observations[0]
    assert observation.error_kind == "timeout" and "(its process was killed)" in observation.content
    [worker] = recorded(pids)
    assert not alive(worker) and tool_threads() == []


def test_a_crashing_tool_is_an_error_observation_and_the_run_goes_on(tmp_path):
    pids = tmp_path / "pids"
    model = ScriptedChatModel(responses=[
        tool_calls([("segfault", {"pids": str(pids)}), ("exits", {"code": 7})], thought="Try both."),
        tool_call("where", {"label": "then"}, thought="Now this one."),
        "Done.",
    ])
    question = f"Crash (noting your pid in {pids}), exit with code 7, then say where you run."
    result = ReActAgent(model=model, tools=isolated(tools.segfault, tools.exits, tools.where)).run(question)
    assert result.termination_reason is R.SUCCESS and result.final_answer == "Done."
    crashed, exited = result.trace.steps[0].observations
    assert (crashed.error_kind, exited.error_kind) == ("execution_failed", "execution_failed")
    assert "killed by SIGSEGV" in crashed.content and "exited with code 7" in exited.content
    assert result.trace.steps[1].observations[0].content.startswith("then: pid ")


def test_resource_limit_breaches_count_toward_the_circuit_breaker(tmp_path):
    pids = str(tmp_path / "pids")
    registry = ToolRegistry()
    registry.register(tools.hog, policy=ToolPolicy(limits=ResourceLimits(memory_mb=128)))
    call = tool_call("hog", {"pids": pids, "megabytes": 1024}, thought="Hold a lot.")
    model = ScriptedChatModel(responses=[call, call, call, "Cannot hold that much."])
    result = ReActAgent(model=model, tools=registry, max_tool_failures=2).run("Hold 1 GB (1024 MB).")
    kinds = [step.observations[0].error_kind for step in result.trace.steps[:3]]
    assert kinds == ["resource_limit", "resource_limit", "disabled"]
    assert len(recorded(tmp_path / "pids")) == 2  # the disabled call did not run


def test_the_runs_tool_isolation_puts_user_tools_in_workers_and_keeps_built_ins_in_the_agent():
    registry = ToolRegistry.with_builtins(["calculator"], tools=[tools.where])
    model = ScriptedChatModel(responses=[
        tool_calls([("where", {"label": "w"}), ("calculator", {"expression": "6*7"})], thought="Both."), "42.",
    ])
    result = ReActAgent(model=model, tools=registry, tool_execution={"isolation": "process"}).run("Where, and 6*7?")
    where, calculator = result.trace.steps[0].observations
    assert pid_in(where.content) != me() and calculator.content == "42"


def test_the_runs_tool_isolation_refuses_a_tool_a_worker_cannot_import_and_says_how_to_opt_out():
    def local(x: int) -> str:
        """A closure."""
        return str(x)

    model = ScriptedChatModel(responses=["Nothing to do."])
    with pytest.raises(ToolRegistrationError, match=r"tool 'local' cannot run in a worker process: it is defined inside"):
        ReActAgent(model=model, tools=[local, tools.where], tool_execution={"isolation": "process"})
    agent = ReActAgent(model=model, tools=[local, tools.where])
    with pytest.raises(ToolRegistrationError, match=r"ToolPolicy\(isolation='none'\)"):
        agent.run("Go.", tool_execution={"isolation": "process"})
    registry = ToolRegistry()
    registry.register(local, policy=ToolPolicy(isolation="none"))
    assert ReActAgent(model=model, tools=registry, tool_execution={"isolation": "process"}).run("Go.").final_answer == "Nothing to do."


def test_a_cancel_kills_the_call_in_its_worker(tmp_path):
    pids = tmp_path / "pids"
    model = ScriptedChatModel(responses=[tool_call("busy", {"pids": str(pids)}, thought="Spin."), "Unused."])
    agent = ReActAgent(model=model, tools=isolated(tools.busy), tool_execution={"timeout_seconds": 600})
    results = []
    runner = threading.Thread(target=lambda: results.append(agent.run(f"Spin, noting your pid in {pids}.", thread_id="spin")))
    runner.start()
    deadline = time.monotonic() + WAIT
    while not recorded(pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    agent.cancel("spin")
    runner.join(WAIT)
    assert not runner.is_alive()
    [result] = results
    assert result.termination_reason is R.CANCELLED
    observation = result.trace.steps[0].observations[0]
    assert "ToolCancelled: stopped: the run was cancelled (its process was killed)" in observation.content
    [worker] = recorded(pids)
    assert not alive(worker)
