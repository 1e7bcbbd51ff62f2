"""Running one call: argument validation, hooks, timeouts, retries with backoff, error kinds."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from reactgraph.config import AgentConfig, ToolExecution
from reactgraph.tools import InvalidArguments, ToolPolicy, ToolRegistry
from reactgraph.tools.execution import CallSlots, call_key, execute


def action(tool: str, **args) -> dict:
    return {"id": "call_1", "index": 0, "tool": tool, "args": args}


class Flaky:
    """A tool body that fails ``failures`` times with ``error``, then answers."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self, city: str) -> str:
        """Look up the weather station of a city."""
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return f"station for {city}"


def flaky_registry(flaky: Flaky, sleeps: list[float], **policy) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register("station", flaky, policy=ToolPolicy(sleep=sleeps.append, **policy))
    return registry


def test_two_failures_then_success_recovers_after_exactly_two_retries_with_the_configured_delays():
    flaky, sleeps = Flaky(2, ConnectionError("connection refused")), []
    outcome = execute(action("station", city="Oslo"), flaky_registry(flaky, sleeps), AgentConfig())
    assert outcome["status"] == "ok" and outcome["content"] == "station for Oslo"
    assert outcome["retries"] == 2 and flaky.calls == 3
    assert sleeps == [0.1, 0.2]  # initial_delay_seconds 0.1, backoff_multiplier 2.0
    assert outcome["failures"] == ["ConnectionError: connection refused"] * 2


def test_backoff_follows_the_config_and_is_capped_by_max_delay():
    flaky, sleeps = Flaky(10, RuntimeError("upstream timed out")), []
    cfg = AgentConfig(tool_execution=ToolExecution(max_retries=5, initial_delay_seconds=1.0, backoff_multiplier=3.0, max_delay_seconds=10.0))
    outcome = execute(action("station", city="Oslo"), flaky_registry(flaky, sleeps), cfg)
    assert sleeps == [1.0, 3.0, 9.0, 10.0, 10.0]
    assert outcome["status"] == "error" and outcome["error_kind"] == "execution_failed"
    assert outcome["retries"] == 5 and flaky.calls == 6
    assert "after 5 retries" in outcome["content"] and "RuntimeError: upstream timed out" in outcome["content"]
    assert "The error looks temporary: the same call may work if you make it again" in outcome["content"]


def test_errors_that_are_not_retryable_are_not_retried():
    flaky, sleeps = Flaky(1, KeyError("no such city")), []
    outcome = execute(action("station", city="Oslo"), flaky_registry(flaky, sleeps), AgentConfig())
    assert outcome["error_kind"] == "execution_failed" and outcome["error_type"] == "KeyError"
    assert flaky.calls == 1 and sleeps == [] and outcome["retries"] == 0
    assert "Check the arguments, or try another approach" in outcome["content"]


def test_a_tool_policy_overrides_the_agent_defaults():
    flaky, sleeps = Flaky(5, ValueError("HTTP 503 temporarily unavailable")), []
    registry = flaky_registry(flaky, sleeps, max_retries=1, initial_delay=0.5, retryable_errors=("503",))
    outcome = execute(action("station", city="Oslo"), registry, AgentConfig(max_retries=3))
    assert flaky.calls == 2 and sleeps == [0.5] and outcome["retries"] == 1

    typed, sleeps = Flaky(1, LookupError("missing")), []
    registry = flaky_registry(typed, sleeps, retryable_errors=(LookupError,))
    assert execute(action("station", city="Oslo"), registry, AgentConfig())["status"] == "ok"
    assert typed.calls == 2 and sleeps == [0.1]


def test_the_run_config_sets_retry_patterns_and_types():
    flaky, sleeps = Flaky(1, RuntimeError("quota exhausted, try later")), []
    registry = flaky_registry(flaky, sleeps)
    assert execute(action("station", city="A"), registry, AgentConfig())["status"] == "error"
    flaky.calls = 0
    cfg = AgentConfig(retryable_errors=("quota exhausted",))
    assert execute(action("station", city="A"), registry, cfg)["status"] == "ok" and flaky.calls == 2
    flaky.calls = 0
    cfg = AgentConfig(retryable_errors=(), retryable_exceptions=(RuntimeError,))
    assert execute(action("station", city="A"), registry, cfg)["status"] == "ok" and flaky.calls == 2


def test_a_hanging_sync_tool_ends_in_its_time_budget_without_being_retried():
    release = threading.Event()
    calls = []

    def hang(x: int) -> str:
        """Never answers until released."""
        calls.append(x)
        release.wait(30)
        return "late"

    registry = ToolRegistry()
    registry.register(hang, policy=ToolPolicy(timeout=0.2))
    outcome = execute(action("hang", x=1), registry, AgentConfig())
    still_running = not release.is_set()
    release.set()
    assert still_running  # execute returned while the tool was still blocked
    assert outcome["status"] == "error" and outcome["error_kind"] == "timeout" and outcome["error_type"] == "ToolTimeout"
    assert calls == [1] and outcome["retries"] == 0
    assert outcome["content"].startswith("Error (timeout): hang gave no result within 0.2s")


def test_a_hanging_async_tool_is_cancelled():
    cancelled = threading.Event()

    async def slow(x: int) -> str:
        """Waits far too long."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    registry = ToolRegistry()
    registry.register(slow, policy=ToolPolicy(timeout=0.2))
    outcome = execute(action("slow", x=1), registry, AgentConfig())
    assert outcome["error_kind"] == "timeout"
    assert cancelled.wait(5)


def test_the_run_deadline_cuts_the_tool_timeout():
    release = threading.Event()

    def hang(x: int) -> str:
        """Never answers until released."""
        release.wait(30)
        return "late"

    registry = ToolRegistry([hang])
    outcome = execute(action("hang", x=1), registry, AgentConfig(tool_execution={"timeout_seconds": 30}), deadline=time.time() - 1)
    release.set()
    assert outcome["error_kind"] == "timeout" and "within 0.01s" in outcome["content"]


def test_async_tools_run_and_return_their_value():
    async def double(x: int) -> int:
        """Double x."""
        await asyncio.sleep(0)
        return 2 * x

    outcome = execute(action("double", x=21), ToolRegistry([double]), AgentConfig())
    assert outcome["status"] == "ok" and outcome["content"] == "42"


def test_invalid_arguments_say_what_was_expected_and_never_run_the_tool():
    calls = []

    def area(width: float, height: float = 1.0) -> float:
        """Area of a rectangle."""
        calls.append(width)
        return width * height

    registry = ToolRegistry([area])
    outcome = execute(action("area", width="wide", colour="red"), registry, AgentConfig())
    assert outcome["error_kind"] == "invalid_parameters" and calls == []
    assert "unexpected argument 'colour'" in outcome["content"]
    assert "width: Input should be a valid number" in outcome["content"]
    assert "Expected arguments: width: float, height: float (optional, leave it out for 1.0)" in outcome["content"]
    assert outcome["content"].endswith("Fix the arguments and call again.")
    missing = execute(action("area"), registry, AgentConfig())
    assert "width: Field required" in missing["content"]


def test_unknown_tool_lists_the_available_ones():
    registry = ToolRegistry.with_builtins(["calculator", "text"])
    outcome = execute(action("weather", city="Oslo"), registry, AgentConfig())
    assert outcome["error_kind"] == "tool_not_found"
    assert "there is no tool 'weather'; the tools are: calculator, text; if none of them fits the question, call none" in outcome["content"]
    close = execute(action("calculater", expression="1+1"), registry, AgentConfig())
    assert close["content"].endswith("the closest name is calculator.")  # a likely typo: no way out offered
    hidden = execute(action("text", operation="upper", text="a"), registry, AgentConfig(tools=("calculator",)))
    assert hidden["error_kind"] == "tool_not_found"  # registered but not offered in this run


def test_hooks_rewrite_arguments_or_refuse_the_call():
    seen = []

    def normalise(tool: str, args: dict) -> dict:
        seen.append((tool, dict(args)))
        return {**args, "text": args["text"].strip()}

    def no_secrets(tool: str, args: dict) -> dict:
        if "password" in args["text"]:
            raise ValueError("the text mentions a password")
        return args

    registry = ToolRegistry.with_builtins(["text"])
    registry.add_hook(normalise)
    registry.add_hook(no_secrets)
    ok = execute(action("text", operation="length", text="  abc  "), registry, AgentConfig())
    assert ok["content"] == "3" and seen == [("text", {"operation": "length", "text": "  abc  "})]
    refused = execute(action("text", operation="length", text="my password"), registry, AgentConfig())
    assert refused["error_kind"] == "invalid_parameters"
    assert "refused by a check: the text mentions a password" in refused["content"]

    registry.add_hook(lambda tool, args: {"operation": 7})
    broken = execute(action("text", operation="length", text="x"), registry, AgentConfig())
    assert broken["error_kind"] == "invalid_parameters" and "operation: Input should be" in broken["content"]


def test_a_tool_that_raises_invalid_arguments_gets_invalid_parameters_without_retry():
    calls = []

    def pick(n: int) -> str:
        """Pick item n."""
        calls.append(n)
        raise InvalidArguments(f"there is no item {n}; items are 1..3")

    outcome = execute(action("pick", n=9), ToolRegistry([pick]), AgentConfig())
    assert outcome["error_kind"] == "invalid_parameters" and calls == [9]
    assert "there is no item 9; items are 1..3" in outcome["content"]


def test_structured_results_become_json_text():
    def info(name: str) -> dict:
        """Info about a name."""
        return {"name": name, "letters": len(name)}

    outcome = execute(action("info", name="Ada"), ToolRegistry([info]), AgentConfig())
    assert outcome["content"] == '{"name": "Ada", "letters": 3}'


def test_call_key_ignores_argument_order_but_not_values():
    assert call_key("t", {"a": 1, "b": 2}) == call_key("t", {"b": 2, "a": 1})
    assert call_key("t", {"a": 1}) != call_key("t", {"a": 2}) != call_key("u", {"a": 2})


def test_call_slots_bound_concurrent_holders_per_run():
    slots, running, peak, lock = CallSlots(), [0], [0], threading.Lock()
    barrier = threading.Barrier(2, timeout=5)

    def work() -> None:
        with slots.hold("run-1", 2):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            barrier.wait()  # pairs: only possible when two hold a slot at once
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert peak[0] == 2 and not barrier.broken
    assert slots._runs == {}  # released runs are forgotten


@pytest.mark.parametrize("bad", [["not", "a", "dict"], "text"])
def test_arguments_that_are_not_an_object_are_invalid(bad):
    registry = ToolRegistry.with_builtins(["text"])
    outcome = execute({"id": "c", "index": 0, "tool": "text", "args": bad}, registry, AgentConfig())
    assert outcome["error_kind"] == "invalid_parameters" and "arguments must be an object" in outcome["content"]


def test_an_unknown_tool_that_is_an_option_of_a_tool_on_offer_is_pointed_to_it():
    """Small models call an operation as if it were a tool (Qwen2.5-Coder-1.5B called 'count')."""
    registry = ToolRegistry.with_builtins(["calculator", "text"])
    outcome = execute({"id": "1", "tool": "count", "args": {}, "index": 0}, registry, AgentConfig())
    assert outcome["content"].endswith("'count' is an option (operation) of text: call text with operation='count'.")
    outcome = execute({"id": "2", "tool": "calculater", "args": {}, "index": 0}, registry, AgentConfig())
    assert outcome["content"].endswith("; the closest name is calculator.")


def test_an_exception_group_is_reported_as_the_error_inside_it():
    """anyio's task groups (the MCP client's) wrap a tool's failure in an ExceptionGroup."""
    sleeps: list[float] = []

    async def fetch(url: str) -> str:
        """Fetch a page."""
        raise ExceptionGroup("unhandled errors in a TaskGroup", [ConnectionRefusedError("connection refused")])

    registry = ToolRegistry()
    registry.register(fetch, policy=ToolPolicy(sleep=sleeps.append))
    outcome = execute(action("fetch", url="http://x"), registry, AgentConfig(max_retries=1))
    assert outcome["error_kind"] == "network_error" and outcome["retries"] == 1 and len(sleeps) == 1
    assert outcome["failures"] == ["ConnectionRefusedError: connection refused"] * 2
