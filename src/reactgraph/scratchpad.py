"""How the run so far is shown to the model: a bounded prompt rebuilt every turn.

The prompt is the system prompt, the question, the running summary and the last
``keep_recent_steps`` steps; older steps live only in the summary and the trace, so
its size does not grow with the run.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.state import ReActState


def system_text(cfg: AgentConfig) -> str:
    text = cfg.system_prompt or prompts.SYSTEM_PROMPT
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


def steps_text(steps: list[dict[str, Any]]) -> str:
    """Steps as compact Thought / Action / Observation lines."""
    lines: list[str] = []
    for step in steps:
        lines.append(f"[{step['iteration']}] Thought: {step.get('thought') or '(none)'}")
        for action, obs in zip(step["actions"], step["observations"], strict=False):
            lines.append(f"    Action: {action['tool'] or '(none)'} {json.dumps(action['args'], ensure_ascii=False)}")
            lines.append(f"    Observation: {obs['content']}")
    return "\n".join(lines)


def think_messages(state: ReActState, cfg: AgentConfig, *, question: str, iteration: int, now: float) -> list[BaseMessage]:
    """The prompt for one think turn."""
    head = prompts.QUESTION_TEMPLATE.format(question=question)
    if summary := state.get("summary"):
        head += "\n\n" + prompts.SUMMARY_TEMPLATE.format(summary=summary)
    head += "\n\n" + prompts.STATUS_TEMPLATE.format(status=status_text(state, cfg, now, iteration))
    recent = (state.get("steps") or [])[-cfg.keep_recent_steps :]
    return [SystemMessage(content=system_text(cfg)), HumanMessage(content=head), *step_messages(recent)]
