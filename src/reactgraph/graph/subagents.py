"""Sub-agents: a ReActAgent that another agent calls as a tool.

``agent.as_tool(name, description)`` (or ``ToolRegistry.register_agent``) gives an ``AgentTool``.
In a parent's run, act runs it as a LangGraph subgraph of the parent (``delegate``): the child's
checkpoints live in the parent's checkpointer under the act task's namespace, so a crash inside
the child resumes the child where it stopped, and a finished child is not run again. The child
gets what is left of the parent's time and tokens (split evenly between the turn's sub-agent
calls) under its own ``max_iterations``; its tokens count in the parent's usage; cancelling the
parent cancels it; its whole trace is the observation's ``trace``. A question it asks or a call it
needs approved pauses the parent run.

Called outside a reactgraph run (another framework's tool node), an AgentTool runs the agent as an
ordinary run of its own.

A handoff (``reactgraph.handoff_to(agent)``, a ``HandoffTool``: ``transfer_to_<name>``, as langgraph-swarm names
them) is a sub-agent call that hands the conversation over: the other agent takes the run's question (and the
model's note on what is done), within what is left of the run's time, tokens and iterations and under its
approvals, and its answer is the run's (``return_direct``); when it stops without one, the model hears why and
goes on. The next question on the thread comes to the first agent again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ConfigDict, Field

from reactgraph.answers.result import ReActTrace, TerminationReason, TokenUsage, steps_from_state
from reactgraph.config import AgentConfig, make_config
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph.deps import outer_cancel
from reactgraph.graph.middleware import hook_nodes
from reactgraph.graph.runtime import RunContext
from reactgraph.graph.stops import recursion_limit
from reactgraph.state import Action, Outcome, TokenCount, iteration_of, tokens_used
from reactgraph.tools.base import RegisteredTool
from reactgraph.tools.content import cut, exception_text
from reactgraph.tools.execution import error_outcome, ok_outcome, prepare_args
from reactgraph.tools.injection import task_state
from reactgraph.tools.isolation.reference import IN_PROCESS
from reactgraph.tools.policy import InvalidArguments
from reactgraph.tools.registry import ToolRegistry

IN_PROCESS_REASON = "it is a sub-agent (it runs as a subgraph of the run)"


class Delegation(BaseModel):
    """The one argument of a sub-agent call."""

    task: str = Field(description="The task for the sub-agent, stated in full: it sees nothing of this conversation.")


class Handoff(BaseModel):
    """The one argument of a handoff."""

    note: str = Field(default="", description="What the other agent should know: what is done so far, what is left.")


class AgentTool(BaseTool):
    """A ReActAgent offered as a tool (``ReActAgent.as_tool`` builds it, with the agent's graph)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    args_schema: type[BaseModel] = Delegation
    agent: Any = Field(exclude=True)  # the ReActAgent
    graph: Any = Field(exclude=True)  # its graph compiled without a checkpointer: a subgraph takes the parent's
    metadata: dict[str, Any] | None = Field(default_factory=lambda: {IN_PROCESS: IN_PROCESS_REASON})

    @property
    def delegates_to(self) -> ToolRegistry:
        """The registry whose tools this sub-agent calls: ``ToolRegistry.register`` follows it to refuse a cycle."""
        return self.agent.registry

    def _run(self, task: str, **_: Any) -> str:
        """An ordinary run of the agent (outside a reactgraph run): its answer, or what stopped it."""
        result = self.agent.run(task, output_mode="structured")
        return child_report(self.name, result.trace, result.termination_detail)[1]


class HandoffTool(AgentTool):
    """A ReActAgent the conversation is handed to (``reactgraph.handoff_to``): its answer is the run's."""

    args_schema: type[BaseModel] = Handoff
    return_direct: bool = True

    def _run(self, note: str = "", **_: Any) -> str:  # type: ignore[override]  # its args_schema (Handoff) names note
        """Outside a reactgraph run there is no conversation to hand over: the agent runs on the note."""
        return super()._run(note)


def handoff_task(question: str, note: str) -> str:
    """What the agent taking over is asked: the run's question, and the note of the agent handing over."""
    return f"{question}\n\nNote from the agent that handed this over: {note}" if note.strip() else question


def delegate(
    entry: RegisteredTool,
    action: Action,
    registry: ToolRegistry,
    cfg: AgentConfig,
    *,
    deadline: float | None,
    tokens_left: int | None,
    cancelled: Callable[[], bool],
    user: Any = None,
) -> tuple[Outcome, TokenCount | None]:
    """Run the sub-agent of ``entry`` on ``action``'s task as a subgraph of the current run (``cfg`` is the
    parent's run config, ``user`` its user context, which the child's tools see too): (the outcome — the child's
    answer, or an error saying what stopped it — with the child's trace; the child's token usage, None when it did
    not run). A handoff's task is the run's question with the model's note."""
    start = time.perf_counter()
    max_output_bytes = cfg.tool_execution.max_tool_output_bytes
    tool = entry.tool
    assert isinstance(tool, AgentTool)
    try:
        args = prepare_args(entry, action["args"], registry)  # the schema, and the registry's before_call hooks
        if not isinstance(tool, HandoffTool) and not args["task"].strip():
            raise InvalidArguments("task: empty; state the task for the sub-agent in full")
    except InvalidArguments as exc:
        text = error_text(ErrorKind.INVALID_PARAMETERS, tool=tool.name, problem=cut(str(exc), max_output_bytes))
        return error_outcome(action, ErrorKind.INVALID_PARAMETERS, text), None
    iterations_left, task = None, args.get("task", "")
    if isinstance(tool, HandoffTool):  # the run's question, within the iterations the run has left
        state = task_state(get_config())
        iterations_left = cfg.limits.max_iterations - iteration_of(state)
        task = handoff_task(state.get("question") or "", args.get("note", ""))
    limits, short = child_limits(tool.agent.config, deadline, tokens_left)
    if iterations_left is not None:  # a handoff: no more turns than the run has left
        limits["max_iterations"] = max(1, min(iterations_left, tool.agent.config.limits.max_iterations))
    if short is not None:
        kind, problem = short
        return error_outcome(action, kind, error_text(kind, tool=tool.name, problem=problem)), None
    options = {"limits": limits, "tool_execution": inherited_containment(cfg, registry, tool.agent.registry)}
    own_config = {"recursion_limit": recursion_limit(tool.agent.config.limits.max_iterations, hook_nodes(tool.agent.middleware))}
    with outer_cancel(cancelled):
        try:
            # every channel: the updates streamed to the parent show the child's thoughts and calls
            values = tool.graph.invoke(
                {"query": task}, own_config, context=RunContext(make_config(**options), user),
                output_keys=tool.graph.stream_channels_asis,
            )
        except GraphBubbleUp:  # a question or an approval inside the child: the parent run pauses
            raise
        except Exception as exc:
            problem = cut(f"the sub-agent failed: {exception_text(exc)}", max_output_bytes)
            text = error_text(ErrorKind.EXECUTION_FAILED, tool=tool.name, problem=problem)
            return error_outcome(action, ErrorKind.EXECUTION_FAILED, text, duration=time.perf_counter() - start), None
    trace = child_trace(values)
    ok, content = child_report(tool.name, trace, (values.get("termination") or {}).get("detail", ""))
    content = cut(content, max_output_bytes)
    outcome: Outcome = ok_outcome(action, content) if ok else error_outcome(action, ErrorKind.EXECUTION_FAILED, content)
    outcome |= {"ran": True, "duration": time.perf_counter() - start, "trace": trace.model_dump(mode="json")}
    return outcome, cast(TokenCount, trace.total_tokens.model_dump())


def is_agent(registry: ToolRegistry, name: str, cfg: AgentConfig) -> bool:
    """Whether ``name`` is a sub-agent the run offers."""
    entry = registry.get(name)
    return entry is not None and isinstance(entry.tool, AgentTool) and name in registry.select(cfg.tools, strict=False)


def inherited_containment(parent: AgentConfig, registry: ToolRegistry, child: ToolRegistry) -> dict[str, Any]:
    """What a child run takes of its parent's containment, on top of its own (``AgentConfig.merge`` keeps the
    stricter): the calls the parent would have asked about (``approve_tools``, or a parent tool's
    ``ToolPolicy(approve=True)``) of the tools the child has by the same name, ``isolation='process'``, and
    no more of the environment than the parent's ``isolated_env`` (options of ``tool_execution``)."""
    gated = {name for name in registry.names() if registry[name].policy.approve}
    approve = parent.tool_execution.approve_tools
    names = [n for n in child.names() if "*" in approve or n in approve or n in gated]
    inherited: dict[str, Any] = {"approve_tools": ("*",) if "*" in approve else tuple(names)}
    if parent.tool_execution.isolation == "process":
        inherited["isolation"] = "process"
    return inherited | {"isolated_env": parent.tool_execution.isolated_env}


def child_limits(
    child: AgentConfig, deadline: float | None, tokens_left: int | None
) -> tuple[dict[str, Any], tuple[ErrorKind, str] | None]:
    """(the child's time and token budgets (options of ``limits``): its own, or what the parent has left when that is less;
    the error kind and problem when nothing is left)."""
    limits: dict[str, Any] = {}
    if deadline is not None:
        left = deadline - time.time()
        if left <= 0:
            return {}, (ErrorKind.TIMEOUT, "no time: the run's time budget is used up")
        limits["timeout_seconds"] = min(left, child.limits.timeout_seconds or left)
    if tokens_left is not None:
        if tokens_left <= 0:
            return {}, (ErrorKind.EXECUTION_FAILED, "no tokens: the run's token budget is used up")
        limits["token_budget"] = min(tokens_left, child.limits.token_budget or tokens_left)
    return limits, None


def child_trace(values: dict[str, Any]) -> ReActTrace:
    """The child's trace from its final state."""
    termination = values.get("termination") or {}
    steps = steps_from_state(values.get("steps") or [])
    return ReActTrace(
        steps=steps,
        final_result=values.get("final_answer"),
        termination_reason=TerminationReason(termination.get("reason", "failure")),
        total_iterations=max((s.iteration for s in steps), default=0),
        total_tokens=TokenUsage.model_validate(tokens_used(values)),
    )


def child_report(name: str, trace: ReActTrace, detail: str) -> tuple[bool, str]:
    """(whether the child answered, what the parent's model sees): the answer, or why it stopped
    and its partial answer."""
    answer = trace.final_result
    if trace.termination_reason is TerminationReason.SUCCESS and answer:
        return True, answer
    reason = trace.termination_reason.value if trace.termination_reason else "failure"
    partial = f" Its partial answer: {answer}" if answer else " It gave no answer."
    problem = f"the sub-agent stopped ({reason}: {detail or 'no detail'}).{partial}"
    return False, error_text(ErrorKind.EXECUTION_FAILED, tool=name, problem=problem)
