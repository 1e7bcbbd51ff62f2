"""What the CLI and the package import before they do any work: help, usage errors and `reactgraph tools`
must not wait for LangGraph or LangChain to load (their speed is measured in benchmarks/cli_startup.py).

Each case runs in a fresh interpreter and reports the top-level packages in sys.modules afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

HEAVY = {"langgraph", "langchain_core", "langchain", "langsmith", "pydantic", "rich"}


def loaded_after(code: str) -> tuple[set[str], str]:
    """The top-level packages loaded after ``code`` runs in a new interpreter, and its stdout and stderr."""
    script = textwrap.dedent(
        """
        import json, sys
        try:
        {body}
        finally:
            print("\\nLOADED " + json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
        """
    ).replace("{body}", textwrap.indent(code, "    "))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    marker = done.stdout.rindex("\nLOADED ")
    return set(json.loads(done.stdout[marker + len("\nLOADED "):])), done.stdout[:marker] + done.stderr


def main_exits(argv: list[str]) -> str:
    """Code that runs the CLI's main with ``argv`` and prints how it exited."""
    return textwrap.dedent(
        f"""
        from reactgraph.cli import main
        try:
            main({argv!r})
        except SystemExit as end:
            print("exit", end.code)
        """
    )


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["--help"], "exit 0"),
        (["--version"], "reactgraph 0."),
        (["run", "--help"], "--max-iterations"),
        (["resume", "--help"], "--answer"),
        (["eval", "--help"], "--suite"),
        (["trace", "--help"], "--format"),
        (["run"], "the following arguments are required: question"),
        (["no-such-command"], "invalid choice"),
    ],
)
def test_help_and_usage_errors_load_no_heavy_package(argv, shown):
    loaded, output = loaded_after(main_exits(argv))
    assert shown in output
    assert loaded & HEAVY == set()


def test_tools_loads_no_langgraph():
    loaded, output = loaded_after("from reactgraph.cli import main\nmain(['tools', '--json'])")
    assert '"name": "calculator"' in output
    assert "langgraph" not in loaded and "langchain" not in loaded
    assert "langchain_core" in loaded  # the registry's tools are langchain_core tools


def test_import_reactgraph_loads_the_agent_only_when_asked():
    loaded, _ = loaded_after("import reactgraph")
    assert loaded & HEAVY == set()
    loaded, output = loaded_after("from reactgraph import ReActAgent, TerminationReason\nprint(ReActAgent.__module__)")
    assert "reactgraph.agent" in output and "langgraph" in loaded


def test_the_version_is_the_installed_distribution_s():
    from importlib.metadata import version

    import reactgraph

    assert reactgraph.__version__ == version("reactgraph")
    _, output = loaded_after(main_exits(["--version"]))
    assert output.splitlines()[0] == f"reactgraph {reactgraph.__version__}"


def test_every_public_name_of_the_package_resolves():
    import reactgraph

    for name in reactgraph.__all__:
        value = getattr(reactgraph, name)
        assert getattr(value, "__name__", name) == name and value is not None
    with pytest.raises(AttributeError, match="no_such_name"):
        reactgraph.no_such_name  # noqa: B018


def test_python_m_reactgraph_cli_reports_usage_errors_as_the_command_does():
    """Run as ``python -m reactgraph.cli``, a usage error raised by a command module is still exit 2."""
    done = subprocess.run([sys.executable, "-m", "reactgraph.cli", "tools", "--tools", "nosuch"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "reactgraph: usage error: --tools: no tool named 'nosuch'" in done.stderr and "Traceback" not in done.stderr
