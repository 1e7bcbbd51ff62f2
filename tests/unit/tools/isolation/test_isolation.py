"""Tool calls in worker processes (reactgraph.tools.isolation): where they run, what crosses, how a call that
hangs or crashes is stopped, and that nothing it started is left behind."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from langchain_core.tools import StructuredTool

from reactgraph.config import AgentConfig
from reactgraph.tools import ToolPolicy, ToolRegistrationError, ToolRegistry
from reactgraph.tools.execution import execute
from reactgraph.tools.isolation import WORKERS
from reactgraph.tools.isolation.processes import running
from tests.unit.tools.isolation import isolated_tools as tools
from tests.unit.tools.isolation.isolated_tools import me

WAIT = 20.0  # seconds: a bound on a wait, not an assertion on timing


def action(tool: str, **args) -> dict:
    return {"id": "call_1", "index": 0, "tool": tool, "args": args}


def isolated(*functions, **policy) -> ToolRegistry:
    registry = ToolRegistry()
    for function in functions:
        registry.register(function, policy=ToolPolicy(isolation="process", **policy))
    return registry


def recorded(pids: Path) -> set[str]:
    """The processes a tool noted, as ``isolated_tools.me`` names them."""
    return set(pids.read_text().split()) if pids.exists() else set()


def host_pid(process: str) -> int | None:
    """The pid in this (the agent's) PID namespace of a process named as ``isolated_tools.me`` does, while it
    exists: a worker's are found by their namespace and their pid in it (the last of /proc's NSpid)."""
    pid, namespace, started = process.split("@")
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") != namespace:
                continue
            with open(f"/proc/{entry}/status") as status:
                nspid = next(line for line in status if line.startswith("NSpid:")).split()
            with open(f"/proc/{entry}/stat") as stat:
                same = stat.read().rsplit(")", 1)[1].split()[19] == started
        except (OSError, StopIteration):
            continue
        if nspid[-1] == pid and same:
            return int(entry)
    return None


def alive(process: str) -> bool:
    """Whether the process named so runs (a zombie does not)."""
    pid = host_pid(process)
    return pid is not None and running(pid)


def ended(process: str) -> bool:
    """Whether the process named so has ended, or does within WAIT seconds: a call's own process has replied when the
    call returns, and is exiting (its worker reaps it before the next call)."""
    deadline = time.monotonic() + WAIT
    while alive(process) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not alive(process)


def open_fds() -> int:
    """The file handles this process holds, once what is unreachable is collected. In a CI run the count after a call
    fell 12 below the one before it: handles earlier tests had left unreachable, closed (most likely by a collection)
    in between."""
    gc.collect()
    return len(os.listdir("/proc/self/fd"))


def tool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tool-")]


def pid_in(content: str) -> str:
    """The process a ``where`` call names (``isolated_tools.me``)."""
    return content.split("pid ")[1].split(",")[0].split(")")[0]


@pytest.fixture
def quiet_pool():
    """A running fork server and no idle worker: what a test leaves can be counted against this."""
    execute(action("where", label="warm-up"), isolated(tools.where), AgentConfig())
    WORKERS.close()
    yield
    WORKERS.close()


def test_a_call_runs_in_a_worker_process_in_the_agents_directory_and_the_environment_it_allows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOL_NOTE", "from the agent")
    allowed = AgentConfig(isolated_env=(*AgentConfig().isolated_env, "TOOL_NOTE"))
    outcome = execute(action("where", label="first"), isolated(tools.where), allowed)
    assert outcome["status"] == "ok", outcome["content"]
    assert pid_in(outcome["content"]) != me()
    assert outcome["content"].endswith(f"cwd {tmp_path}, note from the agent")
    by_default = execute(action("where", label="second"), isolated(tools.where), AgentConfig())
    assert by_default["content"].endswith("note None")  # not in isolated_env: not seen


def test_a_worker_is_reused_by_the_next_call_which_runs_in_a_fork_of_its_own():
    registry = isolated(tools.served_by)
    first = execute(action("served_by", label="a"), registry, AgentConfig())
    second = execute(action("served_by", label="b"), registry, AgentConfig())
    (first_call, first_worker), (second_call, second_worker) = (
        outcome["content"].split("pid ", 1)[1].split(" of ") for outcome in (first, second)
    )
    assert first_worker == second_worker and first_call != second_call
    assert host_pid(second_worker) in WORKERS.idle_pids() and ended(second_call)


def test_async_functions_langchain_tools_and_callable_objects_run_in_workers():
    registry = isolated(tools.async_where, tools.shout)
    registry.register("count", tools.counter, policy=ToolPolicy(isolation="process"))
    for call, expected in (
        (action("async_where", label="x"), "x (async): pid "),
        (action("shout", text="hi"), "HI! (pid "),
        (action("count", step=3), "counted 3 in pid "),
    ):
        outcome = execute(call, registry, AgentConfig())
        assert outcome["status"] == "ok" and outcome["content"].startswith(expected), outcome["content"]
        assert pid_in(outcome["content"]) != me()


def test_a_json_result_is_observed_as_json_and_a_result_that_is_not_json_data_is_a_clear_error():
    registry = isolated(tools.structured, tools.returns_a_set)
    assert execute(action("structured", n=3), registry, AgentConfig())["content"] == '{"n": 3, "squares": [0, 1, 4]}'
    outcome = execute(action("returns_a_set", n=3), registry, AgentConfig())
    assert outcome["error_kind"] == "execution_failed" and outcome["error_type"] == "TypeError"
    assert "returned a set, which cannot cross from its worker process" in outcome["content"]


def test_a_long_result_is_cut_in_the_worker_to_max_tool_output_bytes():
    outcome = execute(action("structured", n=2000), isolated(tools.structured), AgentConfig(max_tool_output_bytes=2048))
    assert outcome["status"] == "ok" and len(outcome["content"].encode()) < 2400
    assert outcome["content"].endswith("showing the first 1,536 and the last 512]")


def test_the_tools_exceptions_cross_with_their_kind(tmp_path):
    sleeps: list[float] = []
    registry = isolated(tools.refuses, tools.unreachable, tools.missing, sleep=sleeps.append)
    refused = execute(action("refuses", n=3), registry, AgentConfig())
    assert refused["error_kind"] == "invalid_parameters" and "n must be even, got 3" in refused["content"]

    attempts = tmp_path / "attempts"
    unreachable = execute(action("unreachable", attempts=str(attempts)), registry, AgentConfig(max_retries=2))
    assert unreachable["error_kind"] == "network_error" and unreachable["error_type"] == "ConnectionRefusedError"
    assert attempts.read_text().split() == ["attempt"] * 3 and sleeps == [0.1, 0.2]

    missing = execute(action("missing", key="k"), registry, AgentConfig())
    assert missing["error_kind"] == "execution_failed" and missing["failures"] == ["KeyError: 'k'"]

    garbled = execute(action("garbled", n=3), isolated(tools.garbled), AgentConfig())
    assert garbled["error_type"] == "ValueError" and garbled["failures"] == ["ValueError: byte 3 is ?"]


def test_a_tool_that_a_worker_cannot_import_is_refused_when_registered():
    def inner(x: int) -> str:
        """A closure."""
        return str(x)

    registry = ToolRegistry()
    with pytest.raises(ToolRegistrationError, match=r"tool 'inner': cannot run in a worker process: it is defined inside"):
        registry.register(inner, policy=ToolPolicy(isolation="process"))
    echo = StructuredTool.from_function(func=lambda text: text, name="echo", description="Echo the text.")
    with pytest.raises(ToolRegistrationError, match="it is a lambda"):
        registry.register(echo, policy=ToolPolicy(limits={"memory_mb": 64}))  # limits imply a worker process
    registry.register(inner)  # in the agent's process: fine
    assert registry.names() == ["inner"]


@pytest.mark.parametrize("tool", [tools.busy, tools.backtracking])
def test_a_cpu_bound_tool_is_killed_at_its_timeout_and_leaves_no_process_thread_or_file_handle(tool, tmp_path, quiet_pool):
    fds, pids = open_fds(), tmp_path / "pids"
    outcome = execute(action(tool.__name__, pids=str(pids)), isolated(tool), AgentConfig(tool_execution={"timeout_seconds": 1}))
    assert outcome["error_kind"] == "timeout"
    assert f"{tool.__name__} gave no result within 1s (its process was killed)" in outcome["content"]
    [worker] = recorded(pids)
    assert worker != me() and not alive(worker)
    assert WORKERS.idle_pids() == [] and tool_threads() == [] and open_fds() == fds


def test_a_crashing_tool_is_an_error_and_the_next_call_gets_a_new_worker(tmp_path):
    registry = isolated(tools.exits, tools.segfault, tools.where)
    exited = execute(action("exits", code=3), registry, AgentConfig())
    assert exited["error_kind"] == "execution_failed" and exited["error_type"] == "ToolCrashed"
    assert "the tool's process exited with code 3 before it returned a result" in exited["content"]

    pids = tmp_path / "pids"
    crashed = execute(action("segfault", pids=str(pids)), registry, AgentConfig())
    assert crashed["error_kind"] == "execution_failed" and "was killed by SIGSEGV" in crashed["content"]
    [worker] = recorded(pids)
    assert not alive(worker)
    after = execute(action("where", label="after"), registry, AgentConfig())
    assert after["status"] == "ok" and pid_in(after["content"]) != worker


def test_processes_a_call_leaves_running_are_killed_with_its_worker(tmp_path):
    pids = tmp_path / "pids"
    outcome = execute(action("leaves_a_child", pids=str(pids)), isolated(tools.leaves_a_child), AgentConfig())
    assert outcome["status"] == "ok" and outcome["content"] == "started"
    started = recorded(pids)
    assert len(started) == 2 and not any(alive(pid) for pid in started)


def test_tools_run_isolated_from_a_main_module_that_is_no_file():
    # workers do not import the main module (here <stdin>): a tool of a module crosses by reference, one defined
    # in the session by value
    script = (
        "import os\n"
        "from reactgraph.config import AgentConfig\n"
        "from reactgraph.tools import ToolPolicy, ToolRegistry\n"
        "from reactgraph.tools.execution import execute\n"
        "from tests.unit.tools.isolation.isolated_tools import where\n"
        "def pid(label: str) -> str:\n"
        "    'Say which process ran the call.'\n"
        "    return f'{label} {os.getpid()}'\n"
        "registry = ToolRegistry()\n"
        "for tool in (where, pid):\n"
        "    registry.register(tool, policy=ToolPolicy(isolation='process'))\n"
        "for name, label in (('where', 'module'), ('pid', 'stdin')):\n"
        "    print(execute({'id': 'c', 'index': 0, 'tool': name, 'args': {'label': label}}, registry, AgentConfig())['content'])\n"
        "print(os.getpid())\n"
    )
    root = Path(__file__).resolve().parents[4]
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, cwd=root, timeout=120)
    by_reference, by_value, agent = done.stdout.strip().splitlines()
    assert by_reference.startswith("module: pid "), done.stderr
    label, worker = by_value.split()
    assert label == "stdin" and worker != agent, done.stderr


def test_an_agent_process_that_exits_during_a_call_stops_the_worker_instead_of_waiting_for_it(tmp_path):
    pids = tmp_path / "pids"
    script = tmp_path / "exits_mid_call.py"
    script.write_text(
        "import threading, time\n"
        "from pathlib import Path\n"
        "from reactgraph.config import AgentConfig\n"
        "from reactgraph.tools import ToolPolicy, ToolRegistry\n"
        "from reactgraph.tools.execution import execute\n"
        "from tests.unit.tools.isolation.isolated_tools import busy\n"
        "if __name__ == '__main__':\n"
        "    registry = ToolRegistry()\n"
        "    registry.register(busy, policy=ToolPolicy(isolation='process'))\n"
        f"    call = {{'id': 'c', 'index': 0, 'tool': 'busy', 'args': {{'pids': {str(pids)!r}}}}}\n"
        "    threading.Thread(target=execute, args=(call, registry, AgentConfig(tool_execution={\"timeout_seconds\": 600})), daemon=True).start()\n"
        # the noted line, whole: the file exists from the worker's open(), before its write (CI once read it empty)
        f"    while not (Path({str(pids)!r}).exists() and Path({str(pids)!r}).read_text().endswith('\\n')):\n"
        "        time.sleep(0.02)\n"
    )
    root = Path(__file__).resolve().parents[4]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=root, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    [worker] = recorded(pids)
    assert not alive(worker)
