"""reactgraph as a user installs it: the wheel built from this tree, installed into a new virtual
environment, run from a directory with no source tree or benchmarks/ folder around.

No network: the wheel is built with the current environment's hatchling (--no-build-isolation),
installed with --no-deps --no-index, and the new environment reaches the current one's
dependencies through a .pth file (which adds that site-packages directory, not its .pth files:
so not the editable install of reactgraph).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[2]

# A model for two shipped tasks whose answers are in the suite's own data: files-port (files/config/app.ini,
# read with read_file) and search-panels (docs/solar.txt, found with search_documents). It answers only
# with what a tool returned (search marks the words it matched: '412 [panels]'), so a missing data file
# makes the task fail.
MODELS = textwrap.dedent(
    """
    import re

    from reactgraph.testing import ScriptedChatModel, tool_call


    def reply(messages):
        text = "\\n".join(m.text for m in messages)
        for pattern in (r"port = (\\d+)", r"(\\d+) \\[panels\\]"):
            if found := re.search(pattern, text):
                return f"The answer is {found.group(1)}."
        if "config/app.ini" in text:
            return tool_call("read_file", {"path": "config/app.ini"})
        return tool_call("search_documents", {"query": "Harbor Lane solar panels"})


    def reader():
        return ScriptedChatModel(responses=[reply], repeat_last=True)
    """
)


def run(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS")}
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """The bin directory of a new virtual environment with the wheel of this tree installed."""
    work = tmp_path_factory.mktemp("wheel")
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                "-w", work / "dist", ROOT)
    assert built.returncode == 0, built.stderr
    wheel, = (work / "dist").glob("reactgraph-*.whl")
    assert run(sys.executable, "-m", "venv", "--without-pip", work / "venv").returncode == 0
    python = work / "venv" / "bin" / "python"
    installed = run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel)
    assert installed.returncode == 0, installed.stderr
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (site / "dependencies_of_the_test_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python.parent


def test_the_installed_package_is_the_wheel_not_the_source_tree(venv, tmp_path):
    found = run(venv / "python", "-c", "import reactgraph, langgraph; print(reactgraph.__file__)", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).is_relative_to(venv.parent)


def test_eval_runs_the_shipped_suite_from_an_install(venv, tmp_path):
    (tmp_path / "wheel_models.py").write_text(MODELS)
    done = run(venv / "reactgraph", "eval", "--model", "wheel_models:reader", "--only", "files-port,search-panels",
               "--set", "max_iterations=4", "--out", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "reactgraph files-port: ok (success" in done.stdout
    assert "reactgraph search-panels: ok (success" in done.stdout
    runs = json.loads((tmp_path / "out" / "eval.json").read_text())["runs"]
    assert [(r["task_id"], r["correct"], r["answer"]) for r in runs] == [
        ("files-port", True, "The answer is 8443."), ("search-panels", True, "The answer is 412.")
    ]
    assert not (tmp_path / "benchmarks").exists()
