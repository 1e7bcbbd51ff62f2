"""Run the suite's tasks through reactgraph, and optionally through its peers: LangGraph's prebuilt
``create_react_agent`` and LangChain's ``create_agent``."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from reactgraph.agent import ReActAgent
from reactgraph.answers.non_answers import non_answer
from reactgraph.answers.result import ReActResult, ReActStep
from reactgraph.config import AgentConfig, make_config
from reactgraph.errors import ErrorKind
from reactgraph.evaluation.building import task_agent, task_config, task_registry
from reactgraph.evaluation.checkers import check_answer
from reactgraph.evaluation.checks import fired
from reactgraph.evaluation.drivers import (
    CommandLine,
    Driven,
    drive_agent,
    drive_chat,
    drive_cli,
    drive_graph,
    served_graph,
)
from reactgraph.evaluation.judging import shown, turn_problems
from reactgraph.evaluation.peers import PEERS
from reactgraph.evaluation.report import SuiteReport, TaskRun
from reactgraph.evaluation.suite import Outcome, Task
from reactgraph.graph.checks import find_phrase
from reactgraph.persistence.reading import thread_config
from reactgraph.prompts import STATUS_TEMPLATE

ModelFactory = Callable[[Task], BaseChatModel]


def run_reactgraph(
    task: Task,
    model: BaseChatModel,
    suite_dir: Path,
    overrides: dict[str, Any],
    playbook: BaseStore | None = None,
    command: CommandLine | None = None,
) -> TaskRun:
    """One task through reactgraph, driven as the task says (``evaluation.drivers``), each turn judged; with
    ``playbook`` (a store) the run uses and feeds the playbook in it; ``command`` runs a cli or chat task's command
    line in-process (reactgraph.cli.main)."""
    agent = task_agent(task, model, suite_dir, overrides, playbook) if task.driver in ("agent", "graph") else None
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="reactgraph-eval-") as workdir:
        if agent is not None and task.driver == "agent":
            driven = drive_agent(agent, task)
        elif agent is not None:
            driven = drive_graph(agent.graph, task, output_schema=agent.output_schema)
        elif task.driver == "served":
            context = make_config(**overrides).override(**task.config).model_dump(mode="json", exclude_unset=True)
            driven = drive_graph(served_graph(model, context), task, context=context)
        elif command is None:
            driven = [Driven(None, None, f"a {task.driver} task needs the command line (run it with reactgraph eval)")]
        else:
            drive = drive_cli if task.driver == "cli" else drive_chat
            driven = drive(task, model, suite_dir, Path(workdir) / "checkpoints.sqlite", command)
    seconds = time.perf_counter() - start
    config = agent.config if agent is not None else task_config(task, overrides)
    turns = task.turns()
    problems = [p for n, (turn, done) in enumerate(zip(turns, driven), 1) for p in turn_problems(n, turn, done)]
    problems += [f"turn {n} not run: {shown(turns[n - 1])}" for n in range(len(driven) + 1, len(turns) + 1)]
    ends = last_of_each_turn(driven)  # (the task's turn that ended it, the result) per turn of the thread
    ran = [result for _, result in ends]
    steps = [(result.turn, step) for result in ran for step in result.trace.steps]
    observations = [o for _, step in steps for o in step.observations]
    offered = set(agent.registry.names()) if agent is not None else {a.tool for _, step in steps for a in step.actions}
    last = next((d for d in reversed(driven) if d.result is not None), driven[-1])  # the last turn that ran
    shown_bullets = playbook_shown(agent, last.result) if agent is not None and last.result else []
    return _task_run(
        task,
        "reactgraph",
        answer=last.answer,
        reason=last.result.termination_reason.value if last.result else "error",
        correct=not problems,
        problems=problems,
        iterations=sum(r.trace.total_iterations for r in ran),
        max_iterations=config.limits.max_iterations * max(1, len(ran)),  # each turn of the thread has its own
        tool_errors=sum(len(r.error_history) for r in ran),
        tokens=sum(r.token_usage.total_tokens for r in ran),
        seconds=seconds,
        detail=last.result.termination_detail if last.result else last.note,
        acting_turns=sum(step.kind == "tools" for _, step in steps),
        acted_turns=sum(step.kind == "tools" and _acted(step, offered) for _, step in steps),
        copied_answer=is_copied(last.answer, [o.content for o in observations if o.status == "error"], config),
        non_answer_replies=sum(o.error_kind in (ErrorKind.NON_ANSWER, ErrorKind.EMPTY_REPLY) for o in observations),
        confidence=last.result.confidence if last.result else None,
        playbook=shown_bullets,
        checks=sum(step.kind == "check" for _, step in steps),
        steps=[brief_step(step) | ({"turn": n} if len(turns) > 1 else {}) for n, step in steps],
        fired=[f for place, result in ends for f in fired(result.trace.steps, partial(would_be_right, turns[place]))],
    )


def playbook_shown(agent: ReActAgent, result: ReActResult) -> list[str]:
    """The contents of the playbook bullets the last run was shown."""
    assert result.thread_id is not None  # the run was checkpointed
    values = agent.graph.get_state(thread_config(result.thread_id)).values
    return shown_contents(agent, (values.get("playbook") or {}).get("bullets") or [])


def last_of_each_turn(driven: list[Driven]) -> list[tuple[int, ReActResult]]:
    """Per turn of the thread, the last result driven, with the place of the task's turn that gave it (a resumed
    turn's result holds its steps before the pause too)."""
    by_turn: dict[int, tuple[int, ReActResult]] = {}
    for place, done in enumerate(driven):
        if done.result is not None:
            by_turn[done.result.turn] = (place, done.result)
    return list(by_turn.values())


def would_be_right(outcome: Outcome, text: str, kind: str) -> bool:
    """Whether a turn (a task's first, or a Turn) that ended with ``text`` as its answer (``kind`` answer) or give-up
    would be right."""
    reason = "success" if kind == "answer" else "failure"
    return reason == outcome.expected_reason.value and check_answer(outcome.expect, text)


def brief_step(step: ReActStep, limit: int = 400) -> dict[str, Any]:
    """A trace step as the eval keeps it, to read why a run missed: texts cut at ``limit`` characters."""
    return {
        "kind": step.kind,
        "thought": step.thought[:limit],
        "calls": [{"tool": a.tool, "args": a.args} for a in step.actions],
        "results": [{"status": o.status, "content": str(o.content)[:limit]} for o in step.observations],
        "checks": [{"check": c.check, "decision": c.decision, "detail": c.detail[:limit]} for c in step.checks],
    }


def shown_contents(agent: ReActAgent, ids: list[str]) -> list[str]:
    """The contents of the bullets a run was shown (one the run itself retired is left out)."""
    if not ids or agent.playbook is None:
        return []
    kept = {b.id: b.content for b in agent.playbook.list()}
    return [kept[i] for i in ids if i in kept]


def run_peer(
    task: Task, model: BaseChatModel, suite_dir: Path, overrides: dict[str, Any], *, peer: str, command: Any = None
) -> TaskRun:
    """The same task through a peer agent (``PEERS``) with the same tools and prompt; of the config it
    honours max_iterations (as its recursion limit: a model and a tools step per turn) and the failure phrases."""
    if task.then or task.driver != "agent" or task.subagents or task.middleware or task.reply_checks or task.output_schema:
        return _task_run(task, peer, answer=None, reason="error", correct=False, iterations=0, max_iterations=1,
                         tool_errors=0, tokens=0, seconds=0.0, detail=f"{peer} runs one-question agent tasks only")
    registry = task_registry(task, suite_dir)
    config = task_config(task, overrides)
    graph = PEERS[peer](model, [entry.tool for entry in registry.list()])
    start = time.perf_counter()
    messages, answer, reason, detail = invoke_peer(graph, task.question, config)
    seconds = time.perf_counter() - start
    ai = [m for m in messages if isinstance(m, AIMessage)]
    offered = {entry.name for entry in registry.list()}
    acting = [m for m in ai if m.tool_calls or m.invalid_tool_calls]
    return _task_run(
        task,
        peer,
        answer=answer,
        reason=reason,
        iterations=len(ai),
        max_iterations=config.limits.max_iterations,
        tool_errors=sum(1 for m in messages if isinstance(m, ToolMessage) and m.status == "error"),
        tokens=sum(m.usage_metadata.get("total_tokens", 0) for m in ai if m.usage_metadata),
        seconds=seconds,
        detail=detail,
        acting_turns=len(acting),
        acted_turns=sum(any(c["name"] in offered for c in m.tool_calls) for m in acting),
        copied_answer=is_copied(answer, [m.text for m in messages if isinstance(m, ToolMessage) and m.status == "error"], config),
    )


def invoke_peer(
    graph: CompiledStateGraph,
    question: str,
    config: AgentConfig,
    callbacks: list[BaseCallbackHandler] | None = None,
    thread_id: str | None = None,
    max_concurrency: int | None = None,
) -> tuple[list[BaseMessage], str | None, str, str]:
    """A peer's run of ``question``: its messages, its answer (the last AI message's text), the termination reason
    as reactgraph names it (success, failure by the failure phrases, max_iterations at the recursion limit of a
    model and a tools step per turn, error when it crashed) and a detail. With ``thread_id`` (a graph with a
    checkpointer) the question is the next turn of that thread, and the messages are the whole thread's;
    ``max_concurrency=1`` runs the calls of a reply one at a time, in order."""
    messages: list[BaseMessage] = []
    run: RunnableConfig = {"recursion_limit": 2 * config.limits.max_iterations + 1, "callbacks": callbacks or []}
    if thread_id is not None:
        run["configurable"] = {"thread_id": thread_id}
    if max_concurrency is not None:
        run["max_concurrency"] = max_concurrency
    try:
        out = graph.invoke({"messages": [("user", question)]}, run)
        messages = out["messages"]
        last = messages[-1]
        answer = last.text if isinstance(last, AIMessage) else None
        reason = "failure" if answer and find_phrase(answer, config.checks.failure_phrases) else "success"
        return messages, answer, reason, ""
    except GraphRecursionError as exc:  # the peers' only stop at a limit: an exception, no answer
        return messages, None, "max_iterations", f"GraphRecursionError: {str(exc)[:120]}"
    except Exception as exc:  # noqa: BLE001 — a crash is a measured outcome here
        return messages, None, "error", f"{type(exc).__name__}: {str(exc)[:160]}"


# Observations that mean the call itself could not be read (invalid_parameters may be the tool's own check).
UNREADABLE = frozenset(
    {ErrorKind.MALFORMED_OUTPUT, ErrorKind.TOOL_NOT_FOUND, ErrorKind.EMPTY_REPLY, ErrorKind.MISSING_ACTION, ErrorKind.NON_ANSWER}
)


def is_copied(answer: str | None, errors: list[str], cfg: AgentConfig) -> bool:
    """A final answer that is empty or repeats a tool error or the budget line (None: no answer, not a copy)."""
    if answer is None:
        return False
    budget = STATUS_TEMPLATE.format(status=f"{cfg.limits.max_iterations} of {cfg.limits.max_iterations} tool turns")
    return non_answer(answer, [("an error", e) for e in errors] + [("the budget line", budget)]) is not None


def _acted(step: ReActStep, offered: set[str]) -> bool:
    """The turn made at least one readable call to a tool on offer (the prebuilt agent's valid tool calls)."""
    kinds = {o.call_id: o.error_kind for o in step.observations}
    return any(a.tool in offered and kinds.get(a.id) not in UNREADABLE for a in step.actions)


def _task_run(
    task: Task, agent: str, *, answer: str | None, reason: str, correct: bool | None = None, **measured: Any
) -> TaskRun:
    """The run's record; ``correct`` as its turns were judged, else the answer and reason against the task; the reason
    is the last turn's."""
    reason_ok = reason == task.turns()[-1].expected_reason.value
    correct = reason_ok and check_answer(task.expect, answer) if correct is None else correct
    return TaskRun(
        task_id=task.id,
        category=task.category,
        agent=agent,
        correct=correct,
        reason=reason,
        expected_reason=task.expected_reason.value,
        reason_ok=reason_ok,
        faulted=task.fault is not None,
        recovered=task.fault is not None and correct,
        answer=answer,
        **measured,
    )


RUNNERS: dict[str, Callable[..., TaskRun]] = {  # (task, model, suite dir, overrides, command=...) -> the run
    "reactgraph": run_reactgraph,
    **{peer: partial(run_peer, peer=peer) for peer in PEERS},
}


def run_suite(
    tasks: Iterable[Task],
    model_factory: ModelFactory,
    suite_dir: str | Path,
    *,
    agents: Iterable[str] = ("reactgraph",),
    repeat: int = 1,
    overrides: dict[str, Any] | None = None,
    progress: Callable[[TaskRun], None] | None = None,
    command: CommandLine | None = None,
) -> SuiteReport:
    """Run every task ``repeat`` times with each agent; ``overrides`` are AgentConfig fields for
    every task (a task's own ``config`` wins; a cli or chat task takes its options only); ``progress`` is called after
    each run; ``command`` runs the command line in-process for cli and chat tasks (reactgraph.cli.main)."""
    tasks, runs = list(tasks), []
    for _ in range(repeat):
        for task in tasks:
            for agent in agents:
                run = RUNNERS[agent](task, model_factory(task), Path(suite_dir), overrides or {}, command=command)
                runs.append(run)
                if progress:
                    progress(run)
    return SuiteReport(runs=runs)

