"""Resource limits of a call in a worker process: memory, CPU seconds, output, file size, processes. Passing
one stops the call with a resource_limit error naming it; a call within its limits is not disturbed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reactgraph.config import AgentConfig, ResourceLimits
from reactgraph.tools import ToolPolicy, ToolRegistry
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation import WORKERS
from reactgraph.tools.isolation.processes import descendants
from tests.unit.tools.isolation import isolated_tools as tools
from tests.unit.tools.isolation.isolated_tools import me
from tests.unit.tools.isolation.test_isolation import action, alive, ended, host_pid, recorded

MiB = 1 << 20


def limited(function, **limits) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(function, policy=ToolPolicy(limits=ResourceLimits(**limits)))
    return registry


def test_a_tool_allocating_4_gb_is_stopped_by_a_256_mb_limit_and_its_process_ends(tmp_path):
    pids = tmp_path / "pids"
    outcome = execute(action("hog", pids=str(pids), megabytes=4096), limited(tools.hog, memory_mb=256), AgentConfig())
    assert outcome["error_kind"] == "resource_limit" and outcome["error_type"] == "ResourceLimitExceeded"
    assert outcome["content"] == (
        "Error (resource_limit): hog was stopped at a limit: it needed more than 256 MB of memory (memory_mb=256). "
        "Ask for less (a smaller input, fewer results) or try another approach."
    )
    assert outcome["retries"] == 0
    [call] = recorded(pids)  # the call's own process (a fork of the worker), which is exiting once it replied
    assert ended(call) and host_pid(call) not in WORKERS.idle_pids()


def test_a_call_within_its_memory_limit_runs_in_a_fork_and_the_worker_serves_the_next_call(tmp_path):
    """The limit is a hard one (the tool cannot raise it), set in the call's fork of the worker: the next call,
    without a limit, may then hold more than 256 MB."""
    registry = limited(tools.hog, memory_mb=256)
    registry.register("big_hog", tools.hog, policy=ToolPolicy(isolation="process"))
    registry.register(tools.served_by, policy=ToolPolicy(isolation="process"))
    pids = tmp_path / "pids"
    assert execute(action("hog", pids=str(pids), megabytes=64), registry, AgentConfig())["content"] == "held 64 MiB"
    assert execute(action("big_hog", pids=str(pids), megabytes=400), registry, AgentConfig())["content"] == "held 400 MiB"
    limited_call, unlimited_call = pids.read_text().split()
    assert limited_call != unlimited_call and ended(limited_call) and ended(unlimited_call)
    worker = execute(action("served_by", label="next"), registry, AgentConfig())["content"].split(" of ")[1]
    assert host_pid(worker) in WORKERS.idle_pids()  # the worker serves on


def test_a_tool_past_its_cpu_seconds_is_stopped(tmp_path):
    pids = tmp_path / "pids"
    registry = limited(tools.spin_cpu, cpu_seconds=1)
    outcome = execute(action("spin_cpu", pids=str(pids), seconds=30), registry, AgentConfig(tool_execution={"timeout_seconds": 60}))
    assert outcome["error_kind"] == "resource_limit"
    assert "it used more than 1 s of CPU time (cpu_seconds=1)" in outcome["content"]
    [call] = recorded(pids)
    assert ended(call)
    # the limit is the call's own, not the worker's lifetime total
    again = execute(action("spin_cpu", pids=str(pids), seconds=0.6), registry, AgentConfig(tool_execution={"timeout_seconds": 60}))
    assert again["content"] == "spun 0.6s"
    assert execute(action("spin_cpu", pids=str(pids), seconds=0.6), registry, AgentConfig(tool_execution={"timeout_seconds": 60}))["status"] == "ok"


def test_a_tool_writing_1_gb_of_output_is_cut_at_its_limit(capsys):
    outcome = execute(action("chatter", kilobytes=1 << 20), limited(tools.chatter, output_bytes=MiB), AgentConfig())
    assert outcome["error_kind"] == "resource_limit"
    assert "it wrote more than 1,048,576 bytes of output (output_bytes=1048576)" in outcome["content"]
    relayed = capsys.readouterr().err
    assert len(relayed) == MiB and set(relayed) == {"x", "\n"}  # passed on to the agent's stderr up to the limit


def test_output_within_the_limit_reaches_the_agents_stderr(capsys):
    outcome = execute(action("chatter", kilobytes=2), limited(tools.chatter, output_bytes=MiB), AgentConfig())
    assert outcome["status"] == "ok" and outcome["content"] == "done"
    assert capsys.readouterr().err == ("x" * 1023 + "\n") * 2


def test_a_file_past_the_file_size_limit_is_not_written_beyond_it(tmp_path):
    path = tmp_path / "big.bin"
    outcome = execute(action("writes_file", path=str(path), megabytes=10), limited(tools.writes_file, file_size_bytes=MiB), AgentConfig())
    assert outcome["error_kind"] == "resource_limit"
    assert "it wrote a file larger than 1,048,576 bytes (file_size_bytes=1048576)" in outcome["content"]
    assert path.stat().st_size == MiB
    small = execute(action("writes_file", path=str(path), megabytes=1), limited(tools.writes_file, file_size_bytes=MiB), AgentConfig())
    assert small["content"] == f"wrote {MiB} bytes"


def test_a_tool_that_forks_in_a_loop_is_stopped_with_every_process_it_started(tmp_path):
    pids = tmp_path / "pids"
    outcome = execute(action("forks", pids=str(pids)), limited(tools.forks, processes=3), AgentConfig(tool_execution={"timeout_seconds": 30}))
    assert outcome["error_kind"] == "resource_limit"
    assert "it started more than 3 processes (processes=3)" in outcome["content"]
    started = recorded(pids)
    assert len(started) >= 4 and me() not in started
    assert [pid for pid in started if alive(pid)] == []


@pytest.mark.parametrize("limits", [{"memory_mb": 256, "cpu_seconds": 5, "file_size_bytes": MiB, "processes": 0, "output_bytes": MiB}])
def test_an_ordinary_call_is_not_disturbed_by_its_limits(limits):
    registry = limited(tools.structured, **limits)
    assert execute(action("structured", n=3), registry, AgentConfig())["content"] == '{"n": 3, "squares": [0, 1, 4]}'


@pytest.mark.skipif(not os.path.exists("/proc/self/autogroup"), reason="a kernel without autogroups")
def test_a_worker_keeps_the_scheduling_priority_of_its_agents_session():
    """A worker leads a session of its own, and so a scheduling group (autogroup) of its own, which Linux starts at
    nice 0: its call took the CPU from an agent run at nice 19, whose watch of the call's processes fell behind (a
    fork loop passed a limit of 3 processes by 20,000 under load). The worker's group keeps the agent's nice."""
    agent = (
        "from pathlib import Path; Path('/proc/self/autogroup').write_text('7'); print(Path('/proc/self/autogroup').read_text());"
        "from reactgraph.config import AgentConfig; from reactgraph.tools.execution import execute;"
        "from tests.unit.tools.isolation import isolated_tools as tools;"
        "from tests.unit.tools.isolation.test_isolation import action, isolated;"
        "print(execute(action('autogroup', n=1), isolated(tools.autogroup), AgentConfig())['content'])"
    )
    ran = subprocess.run([sys.executable, "-c", agent], cwd=Path(__file__).resolve().parents[4], capture_output=True,
                         text=True, start_new_session=True, timeout=300)
    lines = [line for line in ran.stdout.splitlines() if line]
    assert len(lines) == 2, ran
    mine, workers = lines
    assert mine.endswith(" nice 7") and workers.endswith(" nice 7"), ran
    assert mine.split()[0] != workers.split()[0]  # a group of its own: the worker leads its own session


def test_a_count_against_a_limit_reads_no_more_processes_than_it_needs():
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(4)]
    try:
        assert len(descendants(os.getpid())) >= 4
        assert len(descendants(os.getpid(), at_most=2)) == 2
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
