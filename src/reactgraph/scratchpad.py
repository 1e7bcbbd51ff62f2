"""How the run so far is shown to the model: a bounded prompt rebuilt every turn.

The prompt is the system prompt, the question, the running summary and the last
``keep_recent_steps`` steps; older steps live only in the summary and the trace, so
its size does not grow with the run. When ``summary_token_threshold`` is set and the
prompt would pass it, recent steps the summary already covers are dropped, oldest first.

Steps are shown as tool-call and tool messages to a model that calls tools natively, and
as ``Thought: / Action: / Observation:`` text to a model that uses the text format.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.parsing import ParseContext, format_instructions, render_action
from reactgraph.state import ReActState
from reactgraph.tokens import estimate_messages


def system_text(cfg: AgentConfig) -> str:
    """The system prompt: the config's own, or the default (with the ask_user rule when that tool is offered)."""
    text = cfg.system_prompt or prompts.SYSTEM_PROMPT + ("\n" + prompts.CLARIFY_RULE if cfg.allow_clarification else "")
    return f"{text}\n\n{cfg.thought_prompt}" if cfg.thought_prompt else text


def status_text(state: ReActState, cfg: AgentConfig, now: float, iteration: int) -> str:
    parts = [f"{cfg.max_iterations - iteration + 1} of {cfg.max_iterations} tool turns"]
    if cfg.token_budget is not None:
        used = (state.get("token_usage") or {}).get("total_tokens", 0)
        parts.append(f"{max(0, cfg.token_budget - used)} of {cfg.token_budget} tokens")
    if cfg.timeout_seconds is not None:
        left = cfg.timeout_seconds - (now - state.get("started_at", now))
        parts.append(f"{max(0.0, left):.0f}s of {cfg.timeout_seconds:g}s")
    return ", ".join(parts)


def step_messages(steps: list[dict[str, Any]]) -> list[BaseMessage]:
    """Steps as chat messages: the model's tool calls, then one tool message per result."""
    messages: list[BaseMessage] = []
    for step in steps:
        calls = [a for a in step["actions"] if a["tool"]]
        messages.append(
            AIMessage(
                content=step.get("thought", ""),
                tool_calls=[{"name": a["tool"], "args": a["args"], "id": a["id"], "type": "tool_call"} for a in calls],
            )
        )
        for obs in step["observations"]:
            if obs["tool"]:
                messages.append(ToolMessage(content=obs["content"], tool_call_id=obs["call_id"], name=obs["tool"]))
            else:
                messages.append(HumanMessage(content=f"Observation: {obs['content']}"))
    return messages


def text_step_messages(steps: list[dict[str, Any]], ctx: ParseContext, status: str = "") -> list[BaseMessage]:
    """Steps in the text format: the model's Thought / Action lines, then its Observations; the newest
    observations end with ``status`` (the budget line) and a reminder to answer when they suffice."""
    f = ctx.fmt
    messages: list[BaseMessage] = []
    for step in steps:
        lines = [f"{f.thought}: {step.get('thought') or '(none)'}"]
        if step["actions"]:  # several calls on one line, as the parser reads them
            lines.append(f"{f.action}: {', '.join(_action_text(a) for a in step['actions'])}")
        messages.append(AIMessage(content="\n".join(lines)))
        observed = "\n".join(f"{f.observation}: {obs['content']}" for obs in step["observations"])
        messages.append(HumanMessage(content=observed or f"{f.observation}: (none)"))
    if messages:
        hint = prompts.NEXT_STEP.format(thought=f.thought, final_answer=f.final_answer)
        tail = f"{status}\n{hint}" if status else hint
        messages[-1] = HumanMessage(content=f"{messages[-1].content}\n\n{tail}")
    return messages


def _action_text(action: dict[str, Any]) -> str:
    """An action as the text format writes it; a rejected one as the model wrote it."""
    if action["tool"]:
        return render_action(action["tool"], action["args"])
    return action["args"].get("written") or "(none)"


def steps_text(steps: list[dict[str, Any]]) -> str:
    """Steps as compact Thought / Action / Observation lines."""
    lines: list[str] = []
    for step in steps:
        lines.append(f"[{step['iteration']}] Thought: {step.get('thought') or '(none)'}")
        for action, obs in zip(step["actions"], step["observations"], strict=False):
            lines.append(f"    Action: {_action_text(action)}")
            lines.append(f"    Observation: {obs['content']}")
    return "\n".join(lines)


def think_messages(
    state: ReActState,
    cfg: AgentConfig,
    *,
    question: str,
    iteration: int,
    now: float,
    text_format: ParseContext | None = None,
) -> list[BaseMessage]:
    """The prompt for one think turn; ``text_format`` set means the model uses the text format."""
    head = prompts.QUESTION_TEMPLATE.format(question=question)
    if summary := state.get("summary"):
        head += "\n\n" + prompts.SUMMARY_TEMPLATE.format(summary=summary)
    status = prompts.STATUS_TEMPLATE.format(status=status_text(state, cfg, now, iteration))
    recent = (state.get("steps") or [])[-cfg.keep_recent_steps :]
    # In the text format the budget goes last, after the newest observations: the prompt then starts
    # as the previous one did, and a local server (llama.cpp, Ollama) reuses that prefix.
    status_last = text_format is not None and bool(recent)
    system = system_text(cfg)
    if text_format is not None:
        system += "\n\n" + format_instructions(text_format)
    fixed: list[BaseMessage] = [
        SystemMessage(content=system),
        HumanMessage(content=head if status_last else f"{head}\n\n{status}"),
    ]
    render = (lambda steps: text_step_messages(steps, text_format, status)) if text_format is not None else step_messages
    threshold, covered = cfg.summary_token_threshold, state.get("summarized_through", 0)
    while threshold and len(recent) > 1 and recent[0]["iteration"] <= covered:
        if estimate_messages(fixed + render(recent)) <= threshold:
            break
        recent = recent[1:]
    return fixed + render(recent)


def over_threshold(state: ReActState, cfg: AgentConfig) -> bool:
    """True when the next prompt would pass ``summary_token_threshold`` while it shows more than one
    step the summary does not cover yet (summarizing them lets the prompt drop them)."""
    threshold = cfg.summary_token_threshold
    covered = state.get("summarized_through", 0)
    unsummarized = [s for s in (state.get("steps") or [])[-cfg.keep_recent_steps :] if s["iteration"] > covered]
    if threshold is None or len(unsummarized) < 2:
        return False
    iteration = state.get("iteration", 0)
    now = state.get("started_at", 0.0)
    prompt = think_messages(state, cfg, question=state.get("question", ""), iteration=iteration + 1, now=now)
    return estimate_messages(prompt) > threshold
