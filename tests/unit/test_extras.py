"""reactgraph itself is light (SQLite and Ollama); a feature that needs an extra that is not installed says which
to install. Each case runs in a new interpreter whose import of the extra's packages fails, as in an environment
without them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
EXTRA_PACKAGES = {  # the extra -> modules its packages provide
    "postgres": ("psycopg", "psycopg_pool", "procrastinate", "langgraph.checkpoint.postgres"),
    "openai": ("langchain_openai",),
    "mcp": ("langchain_mcp_adapters", "mcp"),
}


def without(extra: str, code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter where the packages of ``extra`` cannot be imported."""
    blocked = EXTRA_PACKAGES[extra]
    script = textwrap.dedent(
        f"""
        import sys
        class Missing:
            def find_spec(self, name, path=None, target=None):
                if any(name == b or name.startswith(b + ".") for b in {blocked!r}):
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        sys.meta_path.insert(0, Missing())
        """
    ) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_the_base_install_holds_no_extra_s_package():
    base = " ".join(PYPROJECT["project"]["dependencies"])
    for name in ("psycopg", "procrastinate", "langgraph-checkpoint-postgres", "langchain-openai", "mcp", "langgraph-cli"):
        assert name not in base
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"postgres", "server", "openai", "mcp", "bench"} <= set(extras)
    assert "reactgraph[postgres,server,openai,mcp,bench]" in extras["dev"]  # what .ci/run installs: every feature is tested


def test_a_sqlite_run_and_its_listing_need_no_extra(tmp_path):
    done = without("postgres", """
        from reactgraph import ReActAgent
        from reactgraph.testing import ScriptedChatModel
        agent = ReActAgent(ScriptedChatModel(responses=["42"]), [], checkpointer="runs.sqlite")
        print(agent.run("6*7?").final_answer, [r.status for r in agent.list_runs()])
        from reactgraph.cli import main
        sys.exit(main(["runs", "--db", "runs.sqlite"]))
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "42 ['finished']" in done.stdout


@pytest.mark.parametrize(
    ("extra", "argv", "message"),
    [
        ("postgres", ["runs", "--db", "postgresql://u:p@127.0.0.1:9/db"],
         "reactgraph: a PostgreSQL database (a postgresql:// URL) needs reactgraph's 'postgres' extra (psycopg is not "
         "installed): pip install 'reactgraph[postgres]'"),
        ("postgres", ["worker", "--db", "postgresql://u:p@127.0.0.1:9/db"],
         "reactgraph: queued runs (submit, worker, the queue of a postgresql:// database) needs reactgraph's 'postgres' "
         "extra (procrastinate is not installed): pip install 'reactgraph[postgres]'"),
        ("openai", ["run", "hi", "--model", "openai:gpt-4o-mini", "--db", "runs.sqlite"], "pip install 'reactgraph[openai]'"),
        ("mcp", ["tools", "--mcp", "servers.json"], "pip install 'reactgraph[mcp]'"),
    ],
)
def test_a_feature_without_its_extra_names_the_extra(tmp_path, extra, argv, message):
    (tmp_path / "servers.json").write_text('{"mcpServers": {"calc": {"command": "python", "args": ["server.py"]}}}')
    done = without(extra, f"from reactgraph.cli import main\nsys.exit(main({argv!r}))", tmp_path)
    assert done.returncode == 1, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
