"""How the run so far is shown to the model: a bounded prompt rebuilt every turn.

The prompt is the system prompt (with the tool descriptions of the current format), the conversation's
earlier turns and notes (``graph.conversation``) and the question, the running summary (quoted, as the notes are)
and the last ``keep_recent_steps`` steps, shown as the current format shows a past turn, what the model wrote in
them cut to ``max_observation_tokens`` each (``shown_step``); older steps live only in the summary and the trace, so
its size does not grow with the run. When ``summary_token_threshold`` is set and the prompt would pass it, recent steps the summary
already covers are dropped, oldest first.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind
from reactgraph.graph.conversation import NOTES_BOUND, conversation_text, question_media, quoted
from reactgraph.models.tokens import estimate_messages, truncate
from reactgraph.state import ReActState, iteration_of, summarized_through, tokens_used
from reactgraph.tool_calling import FORMATS, PARSE_FAILURE_KINDS, Format, ReadContext, Tags
from reactgraph.tool_calling.tags import shown_observation
from reactgraph.tool_calling.text import action_text, sent_back_answer
from reactgraph.tools.content import media_blocks, media_names


def system_text(cfg: AgentConfig) -> str:
    """The system prompt: the config's own, or the default (with the ask_user rule when that tool is
    offered); then the confidence rule (``ask_confidence``) and the ``thought_prompt``."""
    text = cfg.prompt.system_prompt or prompts.SYSTEM_PROMPT + ("\n" + prompts.CLARIFY_RULE if cfg.allow_clarification else "")
    text += "\n" + prompts.CONFIDENCE_RULE if cfg.checks.ask_confidence else ""
    return f"{text}\n\n{cfg.prompt.thought_prompt}" if cfg.prompt.thought_prompt else text


def made_before(steps: list[dict[str, Any]]) -> bool:
    """Whether the newest step made the same calls as an earlier step and got the same results: the one right
    before it (observe marks that one ``repeated``) or any earlier one (a model that alternates two calls)."""
    if not steps:
        return False
    if steps[-1].get("repeated"):
        return True
    newest = _calls_and_results(steps[-1])
    if newest is None:
        return False
    results = _results(steps[-1])  # compared first: cheap, and they seldom match
    return any(_results(step) == results and _calls_and_results(step) == newest for step in steps[:-1])


def _results(step: dict[str, Any]) -> list[str]:
    return [o["content"] for o in step["observations"]]


def _calls_and_results(step: dict[str, Any]) -> tuple[str, ...] | None:
    """A step's calls and results, compared by ``made_before``; None for a step with a refused reply (no tool name)."""
    if not step["actions"] or not all(a["tool"] for a in step["actions"]):
        return None
    calls = [json.dumps([a["tool"], a["args"]], sort_keys=True, default=str) for a in step["actions"]]
    return (*calls, *(o["content"] for o in step["observations"]))


def status_text(state: ReActState, cfg: AgentConfig, now: float, iteration: int) -> str:
    """The budget line: what is left of each limit that runs low (two tool turns or fewer, a quarter
    of the tokens or of the time), '' while none does. A small model takes an ever-present budget
    line for part of the question, or for the answer."""
    parts = []
    turns = cfg.limits.max_iterations - iteration + 1
    if turns <= max(2, cfg.limits.max_iterations // 4):
        parts.append(f"{turns} of {cfg.limits.max_iterations} tool turns")
    if cfg.limits.token_budget is not None:
        left = cfg.limits.token_budget - tokens_used(state).get("total_tokens", 0)
        if left <= cfg.limits.token_budget / 4:
            parts.append(f"{max(0, left)} of {cfg.limits.token_budget} tokens")
    if cfg.limits.timeout_seconds is not None:
        seconds_left = cfg.limits.timeout_seconds - (now - state.get("started_at", now))
        if seconds_left <= cfg.limits.timeout_seconds / 4:
            parts.append(f"{max(0.0, seconds_left):.0f}s of {cfg.limits.timeout_seconds:g}s")
    return prompts.STATUS_TEMPLATE.format(status=", ".join(parts)) if parts else ""


def not_answers(state: ReActState, cfg: AgentConfig, fmt: Format, ctx: ReadContext, status: str) -> list[tuple[str, str]]:
    """What the prompt showed the model that is no answer: error observations of the recent steps
    (not invalid_output's: an answer in the shape it shows shares its words), the budget line, the
    format's instructions and reminder."""
    recent = (state.get("steps") or [])[-cfg.prompt.keep_recent_steps :]
    shown = [("an error message", obs["content"]) for step in recent for obs in step["observations"]
             if obs.get("status") == "error" and obs.get("error_kind") != ErrorKind.INVALID_OUTPUT]
    reminders = [("the instructions", fmt.reminder(ctx)), ("the instructions", fmt.reminder(ctx, repeated=True, failed=True))]
    return shown + [("the budget line", status), ("the format instructions", ctx.hint), *reminders]


def shown_step(step: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """``step`` as a later prompt shows it: what the model wrote in it (its thought, its reply's text, an answer sent
    back, the arguments of its calls) cut head-and-tail to ``max_tokens`` each; the trace keeps them whole."""
    shown = {**step, **{key: truncate(step[key], max_tokens)[0] for key in ("thought", "written", "answer") if step.get(key)}}
    shown["actions"] = [{**action, "args": _cut_texts(action["args"], max_tokens)} for action in step["actions"]]
    return shown


def _cut_texts(value: Any, max_tokens: int) -> Any:
    """``value`` (a call's arguments) with each string in it cut to ``max_tokens``."""
    if isinstance(value, str):
        return truncate(value, max_tokens)[0]
    if isinstance(value, dict):
        return {key: _cut_texts(item, max_tokens) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_texts(item, max_tokens) for item in value]
    return value


def steps_text(steps: list[dict[str, Any]], max_tokens: int) -> str:
    """Steps as compact Thought / Action / Observation lines (tool output of several lines fenced), what the model
    wrote in them cut to ``max_tokens`` each (``shown_step``)."""
    lines: list[str] = []
    for step in (shown_step(s, max_tokens) for s in steps):
        lines.append(f"[{step['iteration']}] Thought: {step.get('thought') or '(none)'}")
        if (answer := sent_back_answer(step)) is not None:
            lines.append(f"    Final Answer: {answer}")
        for action, obs in zip(step["actions"], step["observations"], strict=False):
            if written := action_text(action):
                lines.append(f"    Action: {written}")
            lines.append(textwrap.indent(shown_observation(obs["content"], Tags()), "    "))
    return "\n".join(lines)


def think_messages(
    state: ReActState,
    cfg: AgentConfig,
    *,
    question: str,
    iteration: int,
    now: float,
    fmt: Format,
    ctx: ReadContext,
    answer_shape: str = "",
) -> list[BaseMessage]:
    """The prompt for one think turn in format ``fmt``. After the newest observations come the
    expected format (when the newest reply could not be read), the budget line (in formats that put
    it last) and the format's reminder (which asks for the answer when the model just repeated itself).
    ``answer_shape`` (an output schema's, see ``answers.typed.answer_shape``) ends the system prompt
    with the shape the final answer must have."""
    head = prompts.QUESTION_TEMPLATE.format(question=question)
    if summary := state.get("summary"):
        head += "\n\n" + prompts.SUMMARY_TEMPLATE.format(summary=quoted(summary, NOTES_BOUND * cfg.prompt.max_observation_tokens))
    status = status_text(state, cfg, now, iteration)
    steps = state.get("steps") or []
    repeated = made_before(steps)
    # a step that only repeated the one before it is shown once: small models copy their last turn
    recent = [shown_step(s, cfg.prompt.max_observation_tokens) for s in [s for s in steps if not s.get("repeated")][-cfg.prompt.keep_recent_steps :]]
    # Some formats put the budget last, after the newest observations: the prompt then starts as
    # the previous one did, and a local server (llama.cpp, Ollama) reuses that prefix.
    status_last = fmt.status_after_steps and bool(recent)
    system = system_text(cfg)
    if described := fmt.tools_prompt(ctx):
        system += "\n\n" + described
    if playbook := (state.get("playbook") or {}).get("block"):
        system += "\n\n" + playbook
    if answer_shape:
        system += "\n\n" + fmt.answer_shape(answer_shape, ctx)
    if earlier := conversation_text(state, cfg):
        system += "\n\n" + earlier
    asked = head if status_last or not status else f"{head}\n\n{status}"
    fixed: list[BaseMessage] = [SystemMessage(content=system), HumanMessage(content=with_media(asked, question_media(state), fmt))]
    unreadable = bool(recent) and any(o.get("error_kind") in PARSE_FAILURE_KINDS for o in recent[-1]["observations"])
    failed = repeated and any(o.get("status") == "error" for o in steps[-1]["observations"])
    # after an answer sent back, its request is the last word: "if the observations answer the question, reply with
    # Final Answer" had the local model answer with the request itself
    checked = bool(steps) and steps[-1].get("kind") == "check"
    parts = [ctx.hint if unreadable else "", status if status_last else "", "" if checked else fmt.reminder(ctx, repeated, failed)]
    tail = "\n".join(filter(None, parts))
    threshold, covered = cfg.prompt.summary_token_threshold, summarized_through(state)
    while threshold and len(recent) > 1 and recent[0]["iteration"] <= covered:
        if estimate_messages(fixed + fmt.show(recent, ctx, tail)) <= threshold:
            break
        recent = recent[1:]
    return fixed + fmt.show(recent, ctx, tail)


def with_media(text: str, media: list[dict[str, Any]], fmt: Format) -> str | list[Any]:
    """The question's message content: its text, then the images it came with for a format that sends them
    (native), or a note that names them for a text-only one."""
    if not media:
        return text
    if fmt.name == "native":
        return [{"type": "text", "text": text}, *media]
    return f"{text}\n{prompts.LEFT_OUT.format(media=media_names(media), format=fmt.name)}"


def left_out(state: ReActState, cfg: AgentConfig, fmt: Format) -> list[str]:
    """What a prompt in format ``fmt`` leaves out of the question and the tool results it shows: the images (or
    other media) a text-only format cannot send, each named with where it came from; [] for native."""
    if fmt.name == "native":
        return []
    found = [f"{media_names(media)} in the question"] if (media := question_media(state)) else []
    for step in (state.get("steps") or [])[-cfg.prompt.keep_recent_steps :]:
        for obs in step["observations"]:
            if media := media_blocks(obs.get("value")):
                found.append(f"{media_names(media)} from {obs['tool']}")
    return list(dict.fromkeys(found))


def left_out_notice(state: ReActState, left: list[str], fmt: Format) -> str | None:
    """What the user is told once in a run (the first turn whose prompt leaves something out), else None."""
    if not left or any(step.get("left_out") for step in state.get("steps") or []):
        return None
    return prompts.LEFT_OUT_NOTICE.format(what="; ".join(left).capitalize(), format=fmt.name)


def over_threshold(state: ReActState, cfg: AgentConfig) -> bool:
    """True when the next prompt would pass ``summary_token_threshold`` while it shows more than one
    step the summary does not cover yet (summarizing them lets the prompt drop them). The prompt is
    estimated in the run's current format, without the tool descriptions."""
    threshold = cfg.prompt.summary_token_threshold
    covered = summarized_through(state)
    unsummarized = [s for s in (state.get("steps") or [])[-cfg.prompt.keep_recent_steps :] if s["iteration"] > covered]
    if threshold is None or len(unsummarized) < 2:
        return False
    fmt = FORMATS[state.get("tool_format") or "native"]
    iteration = iteration_of(state)
    now = state.get("started_at", 0.0)
    prompt = think_messages(
        state, cfg, question=state.get("question", ""), iteration=iteration + 1, now=now,
        fmt=fmt, ctx=fmt.context((), Tags.from_config(cfg)),
    )
    return estimate_messages(prompt) > threshold
