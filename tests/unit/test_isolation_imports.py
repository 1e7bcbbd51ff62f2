"""What a worker process of an isolated tool loads (issue 30): the fork server preloads the worker's module, which
needs only the standard library, and the modules the main script's top-level imports load, which a worker re-running
the script would import again. Counted in a fresh process, so that the test run's own imports do not count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("langsmith", "langchain_core", "langgraph", "reactgraph.tools.base", "reactgraph.tools.registry")
SCRIPT = """{top}import json, sys


def loaded() -> str:
    \"\"\"Which of the heavy modules the worker has loaded.\"\"\"
    return json.dumps(sorted({{m.split(".")[0] if m.startswith("lang") else m for m in sys.modules if m.startswith({heavy})}}))


if __name__ == "__main__":
    from reactgraph.config import AgentConfig
    from reactgraph.tools import ToolPolicy, ToolRegistry
    from reactgraph.tools.execution import execute
    from reactgraph.tools.isolation.pool import main_imports

    registry = ToolRegistry()
    registry.register(loaded, policy=ToolPolicy(isolation="process"))
    outcome = execute({{"id": "c", "index": 0, "tool": "loaded", "args": {{}}}}, registry, AgentConfig())
    print(json.dumps({{"worker": json.loads(outcome["content"]), "preloaded": main_imports()}}))
"""


def run_script(tmp_path: Path, top: str) -> dict:
    script = tmp_path / "agent_script.py"
    script.write_text(SCRIPT.format(top=top, heavy=HEAVY))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process isolation needs Linux")
def test_a_worker_loads_neither_langchain_nor_langsmith_for_a_function_tool(tmp_path):
    found = run_script(tmp_path, "")
    assert found["worker"] == [] and found["preloaded"] == ["json", "sys"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process isolation needs Linux")
def test_the_fork_server_preloads_what_the_scripts_top_level_imports_load(tmp_path):
    found = run_script(tmp_path, "from reactgraph import ReActAgent  # noqa: F401\n")
    assert "reactgraph.agent" in found["preloaded"] and "langgraph" in found["worker"]
