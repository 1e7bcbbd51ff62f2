"""What a worker process of an isolated tool loads and runs (issue 30): the fork server preloads the worker's module,
which needs only the standard library and pydantic, and the tools' modules; a worker does not import the main script
(a tool defined there crosses by value), so neither the script's imports nor its side effects run again there. Counted
in a fresh process running a script, so that the test run's own imports do not count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process isolation needs Linux")

HEAVY = ("langsmith", "langchain_core", "langgraph", "reactgraph.agent", "reactgraph.tools.base", "reactgraph.tools.registry")
SCRIPT = """{top}import json, os, sys
from pathlib import Path

Path(sys.argv[1]).open("a").write(f"{{os.getpid()}}\\n")  # a side effect of the script's top level


def loaded() -> str:
    \"\"\"Which of the heavy modules this process has loaded, and the file of its main module.\"\"\"
    heavy = {{m.split(".")[0] if m.startswith("lang") else m for m in sys.modules if m.startswith({heavy})}}
    return json.dumps({{"heavy": sorted(heavy), "main": getattr(sys.modules["__main__"], "__file__", None)}})


{guard}from reactgraph.config import AgentConfig
{indent}from reactgraph.tools import ToolPolicy, ToolRegistry
{indent}from reactgraph.tools.execution import execute
{indent}from reactgraph.tools.isolation import crossing

{indent}registry = ToolRegistry()
{indent}registry.register(loaded, policy=ToolPolicy(isolation="process"))
{indent}registry.check(AgentConfig())
{indent}outcome = execute({{"id": "c", "index": 0, "tool": "loaded", "args": {{}}}}, registry, AgentConfig())
{indent}print(json.dumps({{"worker": json.loads(outcome["content"]), "preloaded": crossing(loaded).modules}}))
"""


def run_script(tmp_path: Path, top: str = "", guarded: bool = True) -> dict:
    """The script's report, and the processes that ran its top level (``ran``)."""
    script, marks = tmp_path / "agent_script.py", tmp_path / "top_level_ran"
    guard, indent = ('if __name__ == "__main__":\n    ', "    ") if guarded else ("", "")
    script.write_text(SCRIPT.format(top=top, heavy=HEAVY, guard=guard, indent=indent))
    done = subprocess.run([sys.executable, str(script), str(marks)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"ran": marks.read_text().split()}


def test_a_worker_loads_neither_langchain_nor_langsmith_for_a_function_tool(tmp_path):
    found = run_script(tmp_path)
    assert found["worker"]["heavy"] == []
    assert found["preloaded"][0] == "cloudpickle" and "json" in found["preloaded"]  # the copy's modules
    assert not {"os", "pathlib"} & set(found["preloaded"])  # what the script imports and the tool does not use


def test_a_worker_does_not_run_the_main_script_again_nor_load_what_it_imports_at_its_top(tmp_path):
    found = run_script(tmp_path, "from reactgraph import ReActAgent  # noqa: F401\n")
    assert found["worker"] == {"heavy": [], "main": None}  # not LangGraph, not LangChain, not the script
    assert len(found["ran"]) == 1  # the script's top level ran in the agent's process only
    assert "reactgraph.agent" not in found["preloaded"]


def test_a_script_without_a_main_guard_runs_isolated_tools_once(tmp_path):
    found = run_script(tmp_path, "from reactgraph import ReActAgent  # noqa: F401\n", guarded=False)
    assert found["worker"] == {"heavy": [], "main": None} and len(found["ran"]) == 1
