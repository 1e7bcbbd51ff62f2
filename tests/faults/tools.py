"""Fault cases: tools.

Tools that raise (every common exception type, and the ones that are not ``Exception``), hang,
flood (50 MB), return values that are not text, or lose the network; typos in tool names and
options; invalid paths to the file tools. Every run is checkpointed to a SQLite file in the case's
working directory and read back from it: the run must end with a clear error observation (or the
call must fail with a clear error before anything runs), and the stored result must be the one
returned.
"""

from __future__ import annotations

import asyncio
import errno
import importlib.util
import itertools
import socket
import threading
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reactgraph import AgentConfig, ConfigError, ErrorKind, ReActAgent, ReActResult
from reactgraph.testing import ScriptedChatModel, tool_call
from reactgraph.tools import ToolPolicy, ToolRegistry, UnknownToolError
from tests.faults import Case, Lost

FIFTY_MB = 50 * 1024 * 1024
MAX_DB_BYTES = 5_000_000
_runs = itertools.count()


def expect(condition: bool, problem: str) -> None:
    if not condition:
        raise Lost(problem)


def run_checked(tools: ToolRegistry, replies: list[Any], question: str = "Use the tool and answer.",
                **options: Any) -> tuple[ReActResult, ScriptedChatModel, Path]:
    """Run on a fresh SQLite file in the working directory; the result read back from the file
    must be the one returned."""
    db = Path(f"tools-{next(_runs)}.sqlite")
    model = ScriptedChatModel(responses=replies)
    options = {"allow_clarification": False, "summary_every": 0} | options
    with ReActAgent(model, tools, checkpointer=db, **options) as agent:
        result = agent.run(question)
    with ReActAgent(ScriptedChatModel(responses=[]), tools, checkpointer=db) as reader:
        stored = reader.get_result(result.thread_id)
    expect(stored.model_dump() == result.model_dump(), "the result stored in the checkpoint differs from the one returned")
    expect(result.success, f"the run did not end with the model's answer: {result.termination_reason} {result.termination_detail}")
    return result, model, db


def observations(result: ReActResult) -> list[Any]:
    return [o for step in result.trace.steps for o in step.observations]


def one_tool(fn: Callable[..., Any], **policy: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(fn, policy=ToolPolicy(**policy))
    return registry


def database_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


# -- tools that raise ----------------------------------------------------------------------------


class BrokenMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")


def recurse(n: int) -> int:
    return recurse(n + 1)


RAISED: dict[str, Callable[[], BaseException]] = {
    "ValueError": lambda: ValueError("bad value"),
    "TypeError": lambda: TypeError("unsupported operand"),
    "KeyError": lambda: KeyError("missing"),
    "IndexError": lambda: IndexError("list index out of range"),
    "ZeroDivisionError": lambda: ZeroDivisionError("division by zero"),
    "AttributeError": lambda: AttributeError("'NoneType' object has no attribute 'x'"),
    "RuntimeError": lambda: RuntimeError("something broke"),
    "AssertionError": lambda: AssertionError(),
    "NotImplementedError": lambda: NotImplementedError("later"),
    "MemoryError": lambda: MemoryError(),
    "OverflowError": lambda: OverflowError("math range error"),
    "FileNotFoundError": lambda: FileNotFoundError(errno.ENOENT, "No such file or directory", "/srv/data/x.csv"),
    "PermissionError": lambda: PermissionError(errno.EACCES, "Permission denied", "/srv/data/x.csv"),
    "UnicodeDecodeError": lambda: UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    "StopIteration": lambda: StopIteration(),
    "ExceptionGroup": lambda: ExceptionGroup("two failures", [ValueError("a"), KeyError("b")]),
    "SystemExit": lambda: SystemExit(3),
    "KeyboardInterrupt": lambda: KeyboardInterrupt(),
    "CancelledError": lambda: asyncio.CancelledError(),
    "GeneratorExit": lambda: GeneratorExit(),
    "broken __str__": lambda: BrokenMessage(),
    "50 MB message": lambda: ValueError("y" * FIFTY_MB),
}


def raising_case(name: str, make: Callable[[], BaseException]) -> Case:
    def run() -> None:
        def boom(x: int) -> str:
            """Compute something."""
            raise make()

        result, model, _ = run_checked(one_tool(boom), [tool_call("boom", {"x": 1}, thought="Try it."), "It failed."])
        [obs] = observations(result)
        expect(obs.error_kind == ErrorKind.EXECUTION_FAILED, f"kind {obs.error_kind!r}")
        expect(obs.content.startswith("Error (execution_failed) in boom"), f"observation {obs.content[:200]!r}")
        expect(len(obs.content) < 40_000, f"a {len(obs.content):,}-character error observation")
        expect("Error (execution_failed)" in "\n".join(m.text for m in model.calls[-1]["messages"]), "the model never saw the error")

    return Case("tools", f"raises {name}", run)


def recursion_case() -> Case:
    def run() -> None:
        def deep(n: int) -> int:
            """Recurse without end."""
            return recurse(n)

        result, _, _ = run_checked(one_tool(deep), [tool_call("deep", {"n": 1}, thought="Go deep."), "Too deep."])
        [obs] = observations(result)
        expect(obs.error_kind == ErrorKind.EXECUTION_FAILED and "RecursionError" in obs.content, obs.content[:200])

    return Case("tools", "raises RecursionError (real recursion)", run)


# -- tools that hang -----------------------------------------------------------------------------


def hang_case(asynchronous: bool) -> Case:
    def run() -> None:
        release = threading.Event()
        if asynchronous:

            async def wait(x: int) -> str:
                """Wait for an answer."""
                await asyncio.sleep(30)
                return "late"

        else:

            def wait(x: int) -> str:
                """Wait for an answer."""
                release.wait(30)
                return "late"

        try:
            result, _, _ = run_checked(one_tool(wait, timeout=0.2), [tool_call("wait", {"x": 1}, thought="Wait."), "No answer."])
        finally:
            release.set()
        [obs] = observations(result)
        expect(obs.error_kind == ErrorKind.TIMEOUT, f"kind {obs.error_kind!r}")
        expect(obs.content.startswith("Error (timeout): wait gave no result within 0.2s"), obs.content[:200])

    return Case("tools", f"hangs ({'async' if asynchronous else 'sync'}, 0.2 s timeout)", run)


# -- tools that flood ----------------------------------------------------------------------------


def flood_case(name: str, make: Callable[[], Any], *, cacheable: bool = False) -> Case:
    def run() -> None:
        def dump(part: int) -> Any:
            """Dump a part of the archive."""
            return make()

        replies = [tool_call("dump", {"part": 1}, thought="Dump it."), "Mostly x."]
        result, model, db = run_checked(one_tool(dump, cacheable=cacheable), replies)
        size = database_bytes(db)
        expect(size < MAX_DB_BYTES, f"the checkpoint database holds {size:,} bytes after one 50 MB tool result")
        [obs] = observations(result)
        expect(obs.status == "ok", f"status {obs.status}")
        seen = "\n".join(m.text for m in model.calls[-1]["messages"])
        expect("[cut: " in seen and "bytes, showing the first 24,576 and the last 8,192]" in seen, "the model did not see the marked cut")

    return Case("tools", f"returns 50 MB ({name})", run)


# -- tools that return values that are not text --------------------------------------------------


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ is broken")


class BrokenContent:
    @property
    def content(self) -> str:
        raise RuntimeError("content is broken")

    def __str__(self) -> str:
        return "the object itself"


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def circular() -> list:
    value: list = []
    value.append(value)
    return value


ODD_VALUES: dict[str, tuple[Callable[[], Any], Callable[[str], bool]]] = {
    "None": (lambda: None, lambda text: text == "null"),
    "bytes": (lambda: b"caf\xc3\xa9 \xff", lambda text: text == "café \ufffd"),
    "int": (lambda: 42, lambda text: text == "42"),
    "nan": (lambda: float("nan"), lambda text: text == "NaN"),
    "set": (lambda: {1}, lambda text: text == '"{1}"'),
    "tuple keys": (lambda: {(1, 2): 3}, lambda text: text == "{(1, 2): 3}"),
    "broken __str__ and __repr__": (Unprintable, lambda text: text == "(a Unprintable value that cannot be shown as text)"),
    "broken .content": (BrokenContent, lambda text: text == '"the object itself"'),
    "nested 100,000 deep": (lambda: nested(100_000), lambda text: text == "(a list value that cannot be shown as text)"),
    "circular": (circular, lambda text: text == "[[...]]"),
    "lone surrogate": (lambda: "ab\ud800cd", lambda text: text.startswith("ab") and text.endswith("cd")),
}
# values that are no result at all (the tool's work not done yet): an error observation saying so, never their repr
NOT_RESULTS: dict[str, Callable[[], Any]] = {
    "generator": lambda: (n for n in range(3)),
    "iterator": lambda: iter([1, 2]),
}


def odd_value_case(name: str, make: Callable[[], Any], shown: Callable[[str], bool]) -> Case:
    def run() -> None:
        def odd(x: int) -> Any:
            """Return something."""
            return make()

        result, _, _ = run_checked(one_tool(odd), [tool_call("odd", {"x": 1}, thought="Look."), "Done."])
        [obs] = observations(result)
        expect(obs.status == "ok", f"status {obs.status}: {obs.content[:200]!r}")
        expect(shown(obs.content), f"shown as {obs.content[:200]!r}")

    return Case("tools", f"returns {name}", run)


def not_a_result_case(name: str, make: Callable[[], Any]) -> Case:
    def run() -> None:
        def odd(x: int) -> Any:
            """Return something."""
            return make()

        result, _, _ = run_checked(one_tool(odd), [tool_call("odd", {"x": 1}, thought="Look."), "Done."])
        [obs] = observations(result)
        expect(obs.status == "error" and "not its result" in obs.content, f"status {obs.status}: {obs.content[:200]!r}")

    return Case("tools", f"returns a {name}", run)


# -- network errors ------------------------------------------------------------------------------


def network_errors() -> dict[str, Callable[[], BaseException]]:
    errors: dict[str, Callable[[], BaseException]] = {
        "connection refused": lambda: ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
        "connection reset": lambda: ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
        "DNS": lambda: socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        "unreachable": lambda: OSError(errno.ENETUNREACH, "Network is unreachable"),
        "socket timeout": lambda: TimeoutError(errno.ETIMEDOUT, "Connection timed out"),
        "urllib": lambda: urllib.error.URLError(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")),
    }
    if importlib.util.find_spec("httpx"):
        import httpx

        errors["httpx"] = lambda: httpx.ConnectError("All connection attempts failed")
    if importlib.util.find_spec("requests"):
        import requests

        errors["requests"] = lambda: requests.exceptions.ConnectionError("Max retries exceeded")
    return errors


def network_case(name: str, make: Callable[[], BaseException]) -> Case:
    def run() -> None:
        sleeps: list[float] = []
        calls: list[str] = []

        def fetch(url: str) -> str:
            """Fetch a page."""
            calls.append(url)
            raise make()

        replies = [tool_call("fetch", {"url": "http://example.invalid/"}, thought="Fetch."), "The site is down."]
        question = "What does http://example.invalid/ say?"
        result, _, _ = run_checked(one_tool(fetch, sleep=sleeps.append), replies, question, max_retries=2)
        [obs] = observations(result)
        expect(obs.error_kind == ErrorKind.NETWORK_ERROR, f"kind {obs.error_kind!r}: {obs.content[:200]!r}")
        expect(len(calls) == 3 and sleeps == [0.1, 0.2], f"{len(calls)} attempts, waits {sleeps}")
        expect(obs.content.startswith("Error (network_error) in fetch (after 2 retries)"), obs.content[:200])

    return Case("tools", f"network error ({name})", run)


# -- typos ---------------------------------------------------------------------------------------


def calculator_tools() -> ToolRegistry:
    return ToolRegistry.with_builtins(["calculator", "text"])


def refused(call: Callable[[], Any], error: type[BaseException], *needles: str) -> None:
    """``call`` must fail with ``error`` whose message holds every needle; running on is a loss."""
    try:
        call()
    except error as exc:
        expect(all(n in str(exc) for n in needles), f"unclear error: {exc}")
        return
    raise Lost("the typo passed silently: the call went on")


def typo_cases() -> list[Case]:
    def model_calls_a_misspelt_tool() -> None:
        replies = [tool_call("calculater", {"expression": "6*7"}, thought="Compute."), "42", "42"]  # no result backs 42: checked once
        result, _, _ = run_checked(calculator_tools(), replies)
        obs = observations(result)[0]
        expect(obs.error_kind == ErrorKind.TOOL_NOT_FOUND and "calculator" in obs.content, obs.content[:200])

    def agent_tools() -> None:
        config = AgentConfig(tools=("calculater",))
        refused(lambda: ReActAgent(ScriptedChatModel(responses=["42"]), calculator_tools(), config, checkpointer=None),
                UnknownToolError, "'calculater'", "did you mean 'calculator'")

    def run_tools() -> None:
        agent = ReActAgent(ScriptedChatModel(responses=["42"]), calculator_tools(), checkpointer=None)
        refused(lambda: agent.run("6*7?", tools=["calculater"]), UnknownToolError, "did you mean 'calculator'")

    def cli_tools() -> None:
        from reactgraph.loading import load_tools

        refused(lambda: load_tools("calculator,txt"), ConfigError, "--tools", "'txt'", "did you mean 'text'")

    def run_option() -> None:
        agent = ReActAgent(ScriptedChatModel(responses=["42"]), calculator_tools(), checkpointer=None)
        refused(lambda: agent.run("6*7?", max_iteratons=3), ConfigError, "did you mean 'max_iterations'")

    def server_context() -> None:
        from langgraph.store.memory import InMemoryStore
        from langgraph_sdk.runtime import _ExecutionRuntime

        from reactgraph import server

        def serve(context: dict[str, Any]) -> str:
            """The closing message of a turn asked of the graph the server hands over for ``context``."""
            runtime = _ExecutionRuntime(access_context="threads.create_run", store=InMemoryStore(), context=context)
            graph = asyncio.run(server.serve(runtime))
            out = graph.invoke({"query": "6*7?"})
            if out["termination"]["reason"] != "failure":
                raise Lost("the typo passed silently: the run went on")
            return out["messages"][-1].text

        for context, needle in [({"max_iteratons": 3}, "did you mean 'max_iterations'"), ({"tools": ["calculater"]}, "did you mean 'calculator'")]:
            said = serve(context)
            expect(needle in said and "the run's context" in said, f"unclear error: {said}")

    return [
        Case("tools", "typo: the model calls a misspelt tool", model_calls_a_misspelt_tool),
        Case("tools", "typo: agent tools", agent_tools),
        Case("tools", "typo: run tools", run_tools),
        Case("tools", "typo: CLI --tools", cli_tools),
        Case("tools", "typo: run option", run_option),
        Case("tools", "typo: server context key and tools", server_context),
    ]


# -- invalid paths to the file tools -------------------------------------------------------------

BAD_PATHS = {
    "a 300-character name": "n" * 300,
    "a 6,000-character path": "a/" * 3000,
    "a NUL byte": "notes\x00.txt",
    "a lone surrogate": "bad\udc80.txt",
    "an absolute path": "/etc/passwd",
    "a path outside the root": "../outside.txt",
}


def paths_case() -> Case:
    def run() -> None:
        root = Path("root").resolve()
        root.mkdir()
        (root / "notes.txt").write_text("alpha\n")
        Path("outside.txt").write_text("SECRET\n")
        calls = [tool_call("read_file", {"path": path}, thought="Read it.") for path in BAD_PATHS.values()]
        calls.append(tool_call("read_file", {"path": "notes.txt"}, thought="Read the notes."))
        replies = [*(call for call in calls for _ in range(2)), "alpha"]  # each made again: held back once (unfounded_call)
        registry = ToolRegistry.with_builtins(["read_file"], root=root)
        result, _, _ = run_checked(registry, replies, max_iterations=len(replies), stall_threshold=len(replies))
        held = [obs for obs in observations(result) if obs.error_kind == ErrorKind.UNFOUNDED_CALL]
        expect(len(held) == len(calls), f"{len(held)} of {len(calls)} calls on paths nothing gave held back once")
        *refusals, last = [obs for obs in observations(result) if obs.error_kind != ErrorKind.UNFOUNDED_CALL]
        for name, obs in zip(BAD_PATHS, refusals, strict=True):
            expect(obs.error_kind == ErrorKind.INVALID_PARAMETERS, f"{name}: kind {obs.error_kind!r}: {obs.content[:200]!r}")
            expect(str(root) not in obs.content, f"{name}: the root's absolute path is shown: {obs.content[:300]!r}")
            expect(len(obs.content) < 600 and "SECRET" not in obs.content, f"{name}: {obs.content[:300]!r}")
        expect(last.status == "ok" and last.content.startswith("notes.txt (lines 1-1 of 1)"), f"the good path gave {last.content!r}")

    return Case("tools", "invalid paths to read_file, then a good one", run)


CASES: list[Case] = [
    *(raising_case(name, make) for name, make in RAISED.items()),
    recursion_case(),
    hang_case(asynchronous=False),
    hang_case(asynchronous=True),
    flood_case("text", lambda: "x" * FIFTY_MB),
    flood_case("text, cacheable tool", lambda: "x" * FIFTY_MB, cacheable=True),
    flood_case("a list", lambda: ["x" * 1023] * (FIFTY_MB // 1024)),
    *(odd_value_case(name, make, shown) for name, (make, shown) in ODD_VALUES.items()),
    *(not_a_result_case(name, make) for name, make in NOT_RESULTS.items()),
    *(network_case(name, make) for name, make in network_errors().items()),
    *typo_cases(),
    paths_case(),
]
