"""act through the real graph: retries, timeouts, error kinds, the circuit breaker, the cache, concurrency."""

from __future__ import annotations

import threading

from reactgraph import AgentConfig, ReActAgent, build_graph
from reactgraph import TerminationReason as R
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls
from reactgraph.tools import ToolPolicy, ToolRegistry


def test_a_flaky_tool_recovers_and_the_error_history_says_so():
    sleeps: list[float] = []
    attempts = []

    def fetch(city: str) -> str:
        """Fetch the population of a city."""
        attempts.append(city)
        if len(attempts) <= 2:
            raise ConnectionError("connection reset by peer")
        return f"{city}: 700000"

    registry = ToolRegistry()
    registry.register(fetch, policy=ToolPolicy(sleep=sleeps.append))
    model = ScriptedChatModel(responses=[tool_call("fetch", {"city": "Oslo"}, thought="Look it up."), "About 700000."])
    result = ReActAgent(model=model, tools=registry).run("How many people live in Oslo?")
    assert result.termination_reason is R.SUCCESS
    assert attempts == ["Oslo"] * 3 and sleeps == [0.1, 0.2]
    obs = result.trace.steps[0].observations[0]
    assert (obs.status, obs.retries, obs.content) == ("ok", 2, "Oslo: 700000")
    [entry] = result.error_history
    assert entry["tool"] == "fetch" and entry["recovered"] is True and entry["retries"] == 2
    assert entry["error"] == "ConnectionError: connection reset by peer" and entry["error_type"] == "ConnectionError"
    assert set(entry) >= {"tool", "error", "error_type", "retries", "recovered", "timestamp"}


def test_error_kinds_reach_the_model_as_observations_and_the_run_goes_on():
    release = threading.Event()

    def hang(x: int) -> str:
        """Never answers until released."""
        release.wait(30)
        return "late"

    def area(width: float, height: float) -> float:
        """Area of a rectangle."""
        return width * height

    registry = ToolRegistry([area])
    registry.register(hang, policy=ToolPolicy(timeout=0.2))
    turn = tool_calls([("nope", {}), ("area", {"width": "big", "height": 2}), ("hang", {"x": 1})], thought="Try all.")
    model = ScriptedChatModel(responses=[turn, tool_call("area", {"width": 3, "height": 2}, thought="Fixed."), "6"])
    result = ReActAgent(model=model, tools=registry, allow_clarification=False).run("Is a 3 by 2 rectangle big? What is its area?")
    release.set()
    first, second, _ = result.trace.steps
    assert [o.error_kind for o in first.observations] == ["tool_not_found", "invalid_parameters", "timeout"]
    assert "the tools are: area, hang" in first.observations[0].content
    assert "width: Input should be a valid number" in first.observations[1].content
    assert first.observations[2].content.startswith("Error (timeout): hang gave no result within 0.2s")
    assert second.observations[0].content == "6.0" and result.final_answer == "6"
    assert [(e["tool"], e["error_kind"], e["recovered"]) for e in result.error_history] == [
        ("nope", "tool_not_found", False),
        ("area", "invalid_parameters", False),
        ("hang", "timeout", False),
    ]
    # the second prompt showed the model what went wrong
    prompt = "\n".join(str(m.content) for m in model.calls[1]["messages"])
    assert "Error (invalid_parameters)" in prompt and "Error (timeout)" in prompt


def test_the_circuit_breaker_takes_a_failing_tool_out_of_the_run():
    calls = []

    def broken(x: int) -> str:
        """Always fails."""
        calls.append(x)
        raise RuntimeError(f"backend down for {x}")

    def backup(x: int) -> str:
        """Works."""
        return f"backup {x}"

    turns = [tool_call("broken", {"x": n}, thought=f"Try {n}.") for n in (1, 2, 3, 4)]
    model = ScriptedChatModel(responses=[*turns, tool_call("backup", {"x": 5}, thought="Use backup."), "done"])
    agent = ReActAgent(model=model, tools=[broken, backup], max_tool_failures=3, allow_clarification=False, summary_every=0)
    result = agent.run("Run broken on 1, 2, 3 and 4, then backup on 5.")
    assert calls == [1, 2, 3]  # the 4th call was refused, not run
    steps = result.trace.steps
    assert "broken has now failed 3 times and is disabled for the rest of this run" in steps[2].observations[0].content
    refused = steps[3].observations[0]
    assert refused.error_kind == "disabled" and refused.content.startswith("Error (disabled): broken failed 3 times")
    assert [c["tools"] for c in model.calls] == [["broken", "backup"]] * 3 + [["backup"]] * 3
    assert result.tool_usage == {"broken": 3, "backup": 1}  # the refused call did not run
    assert result.final_answer == "done"


def test_the_call_that_disables_a_tool_gets_a_reply_before_a_stall_is_counted():
    """Three identical failing calls trip the breaker and would be a stall: the model is told the tool
    is gone and may still give up honestly; repeating the disabled call stalls two turns later."""

    def search(query: str) -> str:
        """Search."""
        raise RuntimeError("backend down")

    same = tool_call("search", {"query": "panels"}, thought="Search.")
    gives_up = ScriptedChatModel(responses=[same, same, same, "I cannot complete the task: the search is down."])
    result = ReActAgent(model=gives_up, tools=[search], allow_clarification=False, summary_every=0).run("How many panels?")
    assert result.termination_reason.value == "failure" and [s.kind for s in result.trace.steps] == ["tools"] * 3 + ["final"]
    insists = ScriptedChatModel(responses=[same], repeat_last=True)
    result = ReActAgent(model=insists, tools=[search], allow_clarification=False, summary_every=0).run("How many panels?")
    assert result.termination_reason.value == "stalled" and [s.kind for s in result.trace.steps] == ["tools"] * 5 + ["partial_answer"]
    assert result.trace.steps[3].observations[0].error_kind == "disabled"


def test_identical_calls_of_cacheable_tools_run_once_per_run():
    runs: list[str] = []

    def capital(country: str) -> str:
        """The capital of a country."""
        runs.append(country)
        return {"france": "Paris", "italy": "Rome"}.get(country.lower(), "unknown")

    def roll(sides: int) -> str:
        """Not cacheable: every call counts."""
        runs.append(f"roll{sides}")
        return str(sides)

    registry = ToolRegistry([roll])
    registry.register(capital, policy=ToolPolicy(cacheable=True))
    script = [
        tool_calls([("capital", {"country": "France"}), ("roll", {"sides": 6})], thought="First."),
        tool_calls([("capital", {"country": "France"}), ("capital", {"country": "Italy"}), ("roll", {"sides": 6})], thought="Again."),
        "Paris and Rome",
        tool_call("capital", {"country": "France"}, thought="The next run asks again."),
        "Paris",
    ]
    agent = ReActAgent(model=ScriptedChatModel(responses=script), tools=registry)
    result = agent.run("What are the capitals of France and Italy? And roll a 6-sided die.", thread_id="t1")  # the 6 given: roll is no premature calculation
    assert sorted(runs) == ["France", "Italy", "roll6", "roll6"]  # France ran once, roll twice
    second = result.trace.steps[1].observations
    assert [(o.content, o.cached) for o in second] == [("Paris", True), ("Rome", False), ("6", False)]
    cache = agent.graph.get_state({"configurable": {"thread_id": "t1"}}).values["tool_cache"]
    assert cache == {'["capital", {"country": "France"}]': "Paris", '["capital", {"country": "Italy"}]': "Rome"}
    # a new run on the same thread starts with an empty cache
    again = agent.run("capital of France?", thread_id="t1")
    assert runs.count("France") == 2 and again.trace.steps[0].observations[0].cached is False


def test_failed_calls_are_not_cached():
    attempts = []

    def lookup(key: str) -> str:
        """Fails the first time."""
        attempts.append(key)
        if len(attempts) == 1:
            raise KeyError(key)
        return "found"

    registry = ToolRegistry()
    registry.register(lookup, policy=ToolPolicy(cacheable=True))
    script = [tool_call("lookup", {"key": "k"}, thought="One."), tool_call("lookup", {"key": "k"}, thought="Two."), "found"]
    result = ReActAgent(model=ScriptedChatModel(responses=script), tools=registry).run("find k")
    assert attempts == ["k", "k"]
    assert [s.observations[0].status for s in result.trace.steps if s.kind == "tools"] == ["error", "ok"]


class Probe:
    """A tool body that records start/end and how many calls run at once."""

    def __init__(self, pair_up: bool) -> None:
        self.events: list[str] = []
        self.running = self.peak = 0
        self.lock = threading.Condition()
        self.barrier = threading.Barrier(2, timeout=5) if pair_up else None

    def __call__(self, label: str) -> str:
        """Record the call."""
        with self.lock:
            self.events.append(f"{label}-start")
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.lock.notify_all()
        if self.barrier is not None:
            self.barrier.wait()  # breaks (the call fails) unless two calls run at once
            with self.lock:  # give a third call every chance to start, if the limit let it
                self.lock.wait_for(lambda: self.running >= 3, timeout=0.3)
        with self.lock:
            self.running -= 1
            self.events.append(f"{label}-end")
        return label


def four_calls() -> ScriptedChatModel:
    calls = tool_calls([("probe", {"label": x}) for x in "abcd"], thought="Four at once.")
    return ScriptedChatModel(responses=[calls, "done"])


def test_calls_of_one_turn_overlap_up_to_max_parallel_tools():
    probe = Probe(pair_up=True)
    registry = ToolRegistry()
    registry.register("probe", probe)
    result = ReActAgent(model=four_calls(), tools=registry, max_parallel_tools=2).run("Probe a, b, c and d.")
    assert [o.status for o in result.trace.steps[0].observations] == ["ok"] * 4
    assert probe.peak == 2
    starts_before_first_end = probe.events.index(next(e for e in probe.events if e.endswith("-end")))
    assert starts_before_first_end == 2  # two calls started before any ended: they overlapped
    assert [o.content for o in result.trace.steps[0].observations] == ["a", "b", "c", "d"]  # call order kept


def test_the_limit_holds_for_a_bare_compiled_graph_too():
    probe = Probe(pair_up=True)
    registry = ToolRegistry()
    registry.register("probe", probe)
    graph = build_graph(four_calls(), registry, AgentConfig(max_parallel_tools=2, allow_clarification=False))
    state = graph.invoke({"query": "Probe a, b, c and d."}, {"configurable": {"thread_id": "bare"}})  # no max_concurrency given
    assert state["termination"]["reason"] == "success"
    assert probe.peak == 2 and len(probe.events) == 8


def test_max_parallel_tools_one_runs_the_calls_one_after_another():
    probe = Probe(pair_up=False)
    registry = ToolRegistry()
    registry.register("probe", probe)
    ReActAgent(model=four_calls(), tools=registry, max_parallel_tools=1).run("Probe a, b, c and d.")
    assert probe.peak == 1
    assert probe.events == [f"{x}-{e}" for x in "abcd" for e in ("start", "end")]
