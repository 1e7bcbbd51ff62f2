"""Shared fixtures: simple typed tools whose calls are recorded; a throwaway PostgreSQL server.

The README's test command needs no model and no network. Tests that do run only when asked:

- ``e2e`` (a real model at OLLAMA_HOST): with ``REACTGRAPH_E2E=1``;
- ``server`` (the real ``langgraph dev`` server): with ``REACTGRAPH_TEST_SERVER=1`` (``.ci/run`` sets it);
- ``browser`` (Agent Chat UI in Chromium, on ``langgraph dev``): with ``REACTGRAPH_TEST_BROWSER=1`` (``.ci/run`` sets it).

Every other test sees an OLLAMA_HOST where nothing answers and no LangSmith tracing, so none can reach a
model or a service that happens to run on the machine.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator

import pytest

from tests.postgres import create_database, missing_reason, start_postgres

ASKED = {  # marker -> (the variable that asks for its tests, what they need)
    "e2e": ("REACTGRAPH_E2E", "a real model at OLLAMA_HOST"),
    "server": ("REACTGRAPH_TEST_SERVER", "the langgraph dev server"),
    "browser": ("REACTGRAPH_TEST_BROWSER", "Agent Chat UI built (REACTGRAPH_CHAT_UI) and Chromium"),
}
NOTHING_ANSWERS = "http://127.0.0.1:9"  # the discard port

# The fast subset, ``python -m pytest -m fast``: quick tests of every package, so that a change anywhere meets its
# package's tests at once (822 tests: 24 s on 2 cores idle, 64 s while a model server held one). A package's tests
# are in tests/unit/<package>. The full run stays the README's command.
FAST = (
    "tests/unit/test_architecture.py",  # the project: the layers, old module paths, this list, the docs
    "tests/unit/test_moved_modules.py",
    "tests/unit/test_fast_subset.py",
    "tests/unit/test_readme.py",
    "tests/unit/test_doc_links.py",
    "tests/unit/agent/test_core_runs.py",  # agent: runs on a thread, streaming
    "tests/unit/agent/test_streaming_callbacks.py",
    "tests/unit/state/test_query_input.py",  # state: the served graph's input
    "tests/unit/answers/test_answers.py",  # answers: which replies are answers, typed output, confidence
    "tests/unit/answers/test_typed_output.py",
    "tests/unit/answers/test_typed_answers.py",
    "tests/unit/answers/test_confidence.py",
    "tests/unit/graph/test_core_loop.py",  # graph: the loop, its stops, the trace, middleware, sub-agents, chat clients
    "tests/unit/graph/test_core_termination.py",
    "tests/unit/graph/test_middleware.py",
    "tests/unit/graph/test_custom_nodes.py",
    "tests/unit/graph/test_subagents.py",
    "tests/unit/graph/test_trace_record.py",
    "tests/unit/graph/test_chat_clients.py",
    "tests/unit/graph/checks/test_reply_checks.py",  # graph/checks: the reply checks
    "tests/unit/graph/checks/test_answer_checks.py",
    "tests/unit/graph/checks/test_fan_out.py",
    "tests/unit/tool_calling/test_parsing.py",  # tool_calling: the formats
    "tests/unit/tool_calling/test_formats_auto.py",
    "tests/unit/tools/test_approval.py",  # tools: registry, execution, built-ins, injection, MCP, approval, errors
    "tests/unit/tools/test_tools_registry.py",
    "tests/unit/tools/test_tools_execution.py",
    "tests/unit/tools/test_tools_builtins.py",
    "tests/unit/tools/test_tools_json_schema.py",
    "tests/unit/tools/test_tool_values.py",
    "tests/unit/tools/test_tool_content_blocks.py",
    "tests/unit/tools/test_injected_args.py",
    "tests/unit/tools/test_mcp_config.py",
    "tests/unit/tools/test_error_kinds.py",
    "tests/unit/tools/isolation/test_isolation_policy.py",  # tools/isolation: the policy (no worker process)
    "tests/unit/models/test_models.py",  # models: resolving, tokens
    "tests/unit/models/test_tokens.py",
    "tests/unit/persistence/test_checkpoints.py",  # persistence: the SQLite file, traces read back
    "tests/unit/queue/test_queue_settled.py",  # queue (without a database)
    "tests/unit/playbook/test_playbook.py",  # playbook
    "tests/unit/config/test_config_groups.py",  # config: the groups, the flat names
    "tests/unit/evaluation/test_evaluation.py",  # evaluation: the suite, reports, calibration, BFCL's bare agent
    "tests/unit/evaluation/test_calibration.py",
    "tests/unit/evaluation/bfcl/test_bfcl_bare.py",
    "tests/unit/cli/test_startup.py::test_help_and_usage_errors_load_no_heavy_package",  # cli and commands
    "tests/unit/cli/test_cli.py::test_help_lists_the_exit_codes",
    "tests/unit/cli/test_cli.py::test_usage_errors_exit_2[args0",
    "tests/unit/cli/test_cli.py::test_usage_errors_exit_2[args5",
    "tests/unit/cli/test_cli.py::test_live_view_shows_summary_updates_failed_calls_and_answers_sent_back",
)


def pytest_itemcollected(item):
    """Mark the fast subset (FAST: files, or tests by name), without Postgres: starting a server takes seconds."""
    postgres = "postgres_server" in getattr(item, "fixturenames", ()) or "[postgres" in item.nodeid  # run_db's too
    if item.nodeid.startswith(FAST) and not postgres:
        item.add_marker(pytest.mark.fast)


def pytest_collection_modifyitems(config, items):
    """Skip the tests of a marker in ASKED, saying how to run them, unless its variable is 1."""
    for marker, (variable, needs) in ASKED.items():
        if os.environ.get(variable) == "1":
            continue
        skip = pytest.mark.skip(reason=f"needs {needs}: run with {variable}=1")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def no_real_model(request, monkeypatch):
    """Outside the e2e tests, no model answers at OLLAMA_HOST and nothing is traced to LangSmith."""
    if "e2e" not in request.keywords:
        monkeypatch.setenv("OLLAMA_HOST", NOTHING_ANSWERS)
    for variable in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(autouse=True)
def isolated_checkpoints(tmp_path, monkeypatch):
    """Every test's agents checkpoint to their own SQLite file, never the working directory's: in a directory of its
    own, as the default ``.reactgraph/checkpoints.sqlite`` is (isolated tools do not see the directory of a database,
    nor make files in it: the test's tools write beside it)."""
    monkeypatch.setenv("REACTGRAPH_DB", str(tmp_path / ".reactgraph" / "checkpoints.sqlite"))


@pytest.fixture(scope="session")
def postgres_server():
    """The superuser URL of one PostgreSQL server started for the whole session.

    Skipped when none can start, unless ``REACTGRAPH_TEST_POSTGRES=required`` (as in CI): then it fails.
    """
    if reason := missing_reason():
        if os.environ.get("REACTGRAPH_TEST_POSTGRES") == "required":
            pytest.fail(reason)
        pytest.skip(reason)
    url, stop = start_postgres()
    yield url
    stop()


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A ``postgresql://`` URL of a fresh database of its own for this test."""
    return create_database(postgres_server)


@pytest.fixture(params=["sqlite", "postgres"])
def run_db(request, tmp_path) -> str:
    """Where a test's runs live, once per backend: a SQLite file, then a fresh Postgres database (a URL)."""
    if request.param == "sqlite":
        return str(tmp_path / "db.sqlite")
    return request.getfixturevalue("postgres_url")


class CallLog:
    """Records (tool, args) of every tool call, thread-safely."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self._lock = threading.Lock()

    def add(self, tool: str, **args) -> None:
        with self._lock:
            self.calls.append((tool, args))


@pytest.fixture
def conn(tmp_path) -> Iterator[sqlite3.Connection]:
    """A SQLite connection on a file of the test's own, for a SqliteSaver whose rows a test counts."""
    conn = sqlite3.connect(tmp_path / "runs.sqlite", check_same_thread=False)
    yield conn
    conn.close()


@pytest.fixture
def log() -> CallLog:
    return CallLog()


@pytest.fixture
def math_tools(log: CallLog):
    def add(a: int, b: int) -> int:
        """Add two integers."""
        log.add("add", a=a, b=b)
        return a + b

    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        log.add("multiply", a=a, b=b)
        return a * b

    def lookup(key: str) -> str:
        """Look a key up in a fixed table."""
        log.add("lookup", key=key)
        return {"paris": "France", "rome": "Italy"}.get(key.lower(), "not found")

    return [add, multiply, lookup]


@pytest.fixture
def workers() -> list:
    """Worker processes a test starts (objects with a ``proc``, as tests/integration/test_workers.py's Worker):
    the ones still running at its end are killed."""
    started: list = []
    yield started
    for worker in started:
        if worker.proc.poll() is None:
            worker.proc.kill()
            worker.proc.wait()
