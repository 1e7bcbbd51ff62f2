"""Result records: what a run hands back to its caller (pydantic models)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SerializeAsAny

from reactgraph.answers.confidence import ConfidenceSignal
from reactgraph.answers.typed import stored_output
from reactgraph.errors import ErrorKind
from reactgraph.state import TerminationReason, iteration_of, sum_usage, tokens_used, tool_stats

SUB_INDENT = "    "  # a sub-agent's trace, under the action that called it


class TokenUsage(BaseModel):
    """Tokens used; ``estimated`` is True when the model reported none and they were counted by length."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False


class ToolAction(BaseModel):
    id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class Observation(BaseModel):
    """The outcome of one tool call as the model saw it."""

    call_id: str
    tool: str
    status: str
    # an ErrorKind; a kind this version does not know stays a string
    error_kind: Annotated[ErrorKind | str | None, Field(union_mode="left_to_right")] = None
    content: str
    duration: float = 0.0
    retries: int = 0
    cached: bool = False
    truncated: bool = False
    trace: ReActTrace | None = Field(default=None, description="A sub-agent's whole run, when the tool was a sub-agent.")
    middleware: list[str] = Field(default_factory=list, description="The wrap_tool_call middleware the call went through, outermost first.")
    value: Any = Field(
        default=None,
        description="What the tool returned when it was not text (a dict, a number, content blocks), as JSON data; "
        "``content`` is the text the model saw.",
    )

    def __str__(self) -> str:
        return self.content


class ModelCall(BaseModel):
    """One model call of the run: what it was for and the tokens it used."""

    purpose: Literal["think", "summarize", "conversation", "condense", "partial_answer", "structured_output", "sub_agent"]
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    middleware: list[str] = Field(default_factory=list, description="The wrap_model_call middleware the call went through, outermost first.")
    model: str | None = Field(default=None, description="The model that answered, when middleware wrapped the call (a fallback's name).")


class HookRun(BaseModel):
    """One run of a middleware's hook node (``PIIMiddleware.before_model``): the state fields it changed and where it jumped."""

    hook: str
    changed: list[str] = Field(default_factory=list)
    jump_to: str | None = None


class CheckRun(BaseModel):
    """A reply check that acted on the turn's reply (``reactgraph.graph.checks``): what it decided and why, and what it
    judged (the answer or give-up it sent back or stopped on, or the calls as the model made them before it rewrote
    them)."""

    check: str
    decision: Literal["send_back", "stop", "rewrite"]
    reply: Literal["answer", "give_up", "calls"] = Field(default="calls", description="What the reply it judged was.")
    detail: str = ""
    answer: str | None = None
    calls: list[dict[str, Any]] = Field(default_factory=list)


class ReActStep(BaseModel):
    """One iteration: the thought, the actions it chose and what they returned.

    ``kind`` is ``tools`` for a turn that called tools, ``check`` for a final answer sent back to be
    checked with a tool (``answer_checks``), ``final`` for the turn that ended the run (an answer, a
    give-up, an unreadable reply, a failed or cut model call) and ``partial_answer`` for the one call made
    after a limit stopped the run. ``calls`` are the model calls the step
    covers (the turn's, the summary before it, condensed observations, the partial answer);
    ``token_usage`` is their sum, so the steps add up to the run's usage. The state keeps each step as
    ``record()`` makes it."""

    iteration: int
    kind: Literal["tools", "check", "final", "partial_answer"] = "tools"
    thought: str = ""
    actions: list[ToolAction] = Field(default_factory=list)
    observations: list[Observation] = Field(default_factory=list)
    timestamp: float
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    duration: float = 0.0
    format: str | None = Field(default=None, description="The tool-calling format of the turn: native, text or json.")
    written: str | None = Field(default=None, description="The model's own text, when its calls were read from it.")
    answer: str | None = Field(default=None, description="A check step's final answer or give-up, sent back to be checked.")
    calls: list[ModelCall] = Field(default_factory=list)
    hooks: list[HookRun] = Field(default_factory=list, description="The middleware hooks that ran in the turn (before it, for the first).")
    checks: list[CheckRun] = Field(default_factory=list, description="The reply checks that acted on the turn's reply, in order.")
    left_out: list[str] = Field(
        default_factory=list, description="Images (or other media) the turn's text-only prompt left out, and where they came from."
    )

    @property
    def action(self) -> str:
        """The step's tool calls as text, ``tool[input]`` each ('; ' between several; '' for a step without one);
        ``actions`` has them as data (``step.actions[0].tool``, ``.args``)."""
        return "; ".join(f"{a.tool}[{_args_text(a.args)}]" if a.tool else str(a.args.get("written", "")) for a in self.actions)

    @property
    def observation(self) -> str:
        """What the step's tool calls returned, as text (one line-separated result per call; '' without one);
        ``observations`` has each result as data, in the order of ``actions``."""
        return "\n".join(o.content for o in self.observations)

    def record(self, **bookkeeping: Any) -> dict[str, Any]:
        """The step as the state keeps it (plain JSON data; the extras a step seldom has left out when it has none: no
        sub-agent trace, middleware and the model that answered, hooks, checks, written text or sent-back answer, a
        tool's value, media left out) with the run's ``bookkeeping``
        beside it (observe's tool statistics, the repeat mark)."""
        data = self.model_dump(mode="json")
        for key in ("hooks", "checks", "written", "answer", "left_out"):
            if not data[key]:
                del data[key]
        for entries, keys in ((data["observations"], ("trace", "middleware")), (data["calls"], ("middleware", "model"))):
            for entry in entries:
                for key in keys:
                    if not entry[key]:
                        del entry[key]
        for entry in data["observations"]:
            if entry["value"] is None:  # a value of 0, [] or {} is one
                del entry["value"]
        return data | bookkeeping


class Token(BaseModel):
    """A piece of a model reply as the model writes it (``ReActAgent.stream(..., tokens=True)``)."""

    node: str = Field(description="The node whose model call it is: think, summarize or terminate (a partial answer).")
    text: str
    depth: int = Field(default=0, description="0 for the run's own model, 1 for a sub-agent's, 2 for its sub-agent's.")


class Progress(BaseModel):
    """What a tool wrote while it ran (LangGraph's ``get_stream_writer()``, a ``ToolRuntime``'s ``stream_writer``), as
    ``ReActAgent.stream`` yields it: the data as written (LangGraph's ``custom`` stream)."""

    data: Any
    depth: int = Field(default=0, description="0 for the run's own tools, 1 for a sub-agent's, 2 for its sub-agent's.")


class ReActTrace(BaseModel):
    steps: list[ReActStep] = Field(default_factory=list)
    final_result: str | None = None
    termination_reason: TerminationReason | None = None
    total_iterations: int = 0
    total_tokens: TokenUsage = Field(default_factory=TokenUsage)

    def scratchpad(self, indent: str = "") -> str:
        """The trace as Thought / Action / Observation text; a sub-agent's run indented under its action."""
        lines: list[str] = []
        for step in self.steps:
            if step.thought:
                lines.append(f"Thought: {step.thought}")
            for action, obs in zip(step.actions, step.observations, strict=False):
                written = action.args.get("written") or "(unreadable)"  # a rejected action: as the model wrote it
                lines.append(f"Action: {action.tool}[{_args_text(action.args)}]" if action.tool else f"Action: {written}")
                if obs.trace is not None:
                    lines.append(obs.trace.scratchpad(SUB_INDENT))
                lines.append(f"Observation: {obs.content}")
        if self.final_result is not None:
            lines.append(f"Final Answer: {self.final_result}")
        return "\n".join(indent + line for text in lines for line in text.split("\n"))


class PendingApproval(BaseModel):
    """A tool call waiting for a person's decision: answer it with ``ReActAgent.resume(thread_id,
    approval=...)`` (or ``approvals={call_id: ...}`` when several wait)."""

    call_id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    description: str = ""
    problem: str | None = Field(default=None, description="Why the last answer to this call could not be used, if any.")
    interrupt_id: str = Field(default="", description="The LangGraph interrupt that shows it (resume it by this id).")


class ReActResult(BaseModel):
    """Everything a run produced. ``partial`` is True when a limit cut it short."""

    success: bool
    final_answer: str | None
    trace: ReActTrace
    termination_reason: TerminationReason
    termination_detail: str = ""
    partial: bool = False
    confidence: float | None = Field(
        default=None,
        description="How likely the answer is right, in [0, 1]; None without an answer (reactgraph.answers.confidence says how).",
    )
    confidence_signals: dict[str, ConfidenceSignal] = Field(
        default_factory=dict, description="The signals behind the confidence, by name, each with its effect and why."
    )
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    execution_time: float = 0.0
    tool_usage: dict[str, int] = Field(default_factory=dict)
    error_history: list[dict[str, Any]] = Field(default_factory=list)
    summary: str = ""
    thread_id: str | None = None
    question: str | None = None
    pending_approvals: list[PendingApproval] = Field(
        default_factory=list, description="The tool calls the run waits on (reason 'approval'), in call order."
    )
    output: SerializeAsAny[BaseModel] | None = Field(
        default=None,
        description="With an output schema: the answer as an instance of it (None without one, or when it did not fit).",
    )
    turn: int = Field(default=1, description="Which turn of the thread's conversation this result is (1: its first question).")
    thread_token_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Tokens of every turn of the thread so far, this one included."
    )


class ConversationTurn(BaseModel):
    """One finished turn of a thread's conversation (``ReActAgent.conversation``): its question, its answer,
    how it ended, and its whole trace."""

    turn: int
    question: str
    answer: str | None = None
    reason: TerminationReason
    detail: str = ""
    partial: bool = False
    confidence: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    trace: ReActTrace

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ConversationTurn:
        """A turn as the state's ``turns`` keeps it (``graph.conversation.turn_record``)."""
        reason = TerminationReason(record.get("reason", "failure"))
        trace = ReActTrace(
            steps=steps_from_state(record.get("steps") or []),
            final_result=record.get("answer"),
            termination_reason=reason,
            total_iterations=record.get("iterations", 0),
            total_tokens=TokenUsage.model_validate(record.get("token_usage") or {}),
        )
        fields = {k: record.get(k) for k in ("turn", "question", "answer", "detail", "partial", "confidence", "started_at", "finished_at")}
        return cls.model_validate({k: v for k, v in fields.items() if v is not None} | {"reason": reason, "trace": trace})

    @classmethod
    def from_result(cls, result: ReActResult) -> ConversationTurn:
        """The turn a result is (also one that waits: its reason says so)."""
        return cls(
            turn=result.turn, question=result.question or "", answer=result.final_answer, reason=result.termination_reason,
            detail=result.termination_detail, partial=result.partial, confidence=result.confidence, trace=result.trace,
        )


def _args_text(args: dict[str, Any]) -> str:
    if len(args) == 1:
        return str(next(iter(args.values())))
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


def steps_from_state(raw_steps: list[dict]) -> list[ReActStep]:
    return [ReActStep.model_validate(s) for s in raw_steps]


def result_from_state(
    state: dict[str, Any],
    *,
    thread_id: str | None,
    interrupt_question: str | None = None,
    pending_approvals: list[PendingApproval] | None = None,
    output_schema: type[BaseModel] | None = None,
) -> ReActResult:
    """Build the ReActResult from a graph state (finished, or paused for a question or for approvals;
    a question comes first when both wait); its ``output`` an ``output_schema`` instance."""
    steps = steps_from_state(state.get("steps") or [])
    usage = TokenUsage.model_validate(tokens_used(state))
    scored = {"confidence": state.get("confidence"), "confidence_signals": state.get("confidence_signals") or {}}
    if interrupt_question is not None:
        reason, detail, answer = TerminationReason.CLARIFICATION, interrupt_question, None
        scored = {}
    elif pending_approvals:
        shown = "; ".join(f"{p.tool} {json.dumps(p.args, ensure_ascii=False, default=str)}" for p in pending_approvals)
        reason, detail, answer = TerminationReason.APPROVAL, f"waiting for approval: {shown}", None
        scored = {}
    else:
        term = state.get("termination") or {}
        reason = TerminationReason(term.get("reason", "failure"))
        detail = term.get("detail", "")
        answer = state.get("final_answer")
    started = state.get("started_at")
    last = steps[-1].timestamp if steps else started
    turn = state.get("turn") or 1
    earlier = [t.get("token_usage") or {} for t in state.get("turns") or [] if t.get("turn") != turn]
    trace = ReActTrace(
        steps=steps,
        final_result=answer,
        termination_reason=reason,
        total_iterations=iteration_of(state),
        total_tokens=usage,
    )
    return ReActResult(
        success=reason == TerminationReason.SUCCESS,
        final_answer=answer,
        trace=trace,
        termination_reason=reason,
        termination_detail=detail,
        partial=bool(state.get("partial")),
        **scored,
        token_usage=usage,
        execution_time=max(0.0, (state.get("finished_at") or last or 0) - (started or 0)),
        tool_usage=dict(tool_stats(state).get("usage") or {}),
        error_history=list(state.get("errors") or []),
        summary=state.get("summary", ""),
        thread_id=thread_id,
        question=state.get("question"),
        pending_approvals=list(pending_approvals or []),
        output=stored_output(state.get("output"), output_schema),
        turn=turn,
        thread_token_usage=TokenUsage.model_validate(sum_usage([*earlier, usage.model_dump()])),
    )
