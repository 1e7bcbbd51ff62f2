"""terminate: settle why the run ended and its answer; at a limit, ask once for a partial answer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from reactgraph import prompts
from reactgraph.deps import Deps
from reactgraph.edges import stop_reason
from reactgraph.nodes.think import bind_for
from reactgraph.parsing import ParseContext, parse_reply, tool_specs
from reactgraph.result import LIMIT_REASONS, TerminationReason
from reactgraph.scratchpad import think_messages
from reactgraph.state import ReActState, Termination
from reactgraph.tokens import usage_of
from reactgraph.tools.breaker import disabled_tools


def partial_answer(reply: AIMessage, text_format: ParseContext | None) -> str | None:
    """The reply's text; in the text format, what follows its final-answer tag when it has one."""
    if text_format is not None and (parsed := parse_reply(reply, text_format)).answer:
        return parsed.answer
    return reply.text.strip() or None


def make_terminate(deps: Deps) -> Callable[[ReActState], dict[str, Any]]:
    def terminate(state: ReActState) -> dict[str, Any]:
        """Reads the termination (set by think) or finds the limit that fired; writes the final
        answer (a partial one from one last tool-less model call at a limit), the end time and
        the answer as a chat message."""
        cfg = deps.run_config()
        now = time.time()
        termination: Termination | None = state.get("termination") or stop_reason(state, cfg, now)
        if termination is None:  # only when a state edited by hand (Studio, update_state) routes here
            termination = {"reason": "failure", "detail": "the run stopped without a recorded reason", "limit": None, "observed": None}
        update: dict[str, Any] = {"termination": termination, "finished_at": now}
        answer = state.get("final_answer") if state.get("termination") else None
        if TerminationReason(termination["reason"]) in LIMIT_REASONS:
            update["partial"] = True
            if cfg.early_stopping == "generate":
                model = deps.chat_model(cfg)
                tools = deps.offered_tools(cfg, disabled_tools(state.get("tool_failures"), cfg))
                _, text_format = bind_for(model, tools, tool_specs(tools), cfg)  # show the run as think did
                messages = think_messages(
                    state, cfg, question=state.get("question", ""), iteration=state.get("iteration", 0), now=now,
                    text_format=text_format,
                ) + [HumanMessage(content=prompts.PARTIAL_ANSWER_PROMPT.format(detail=termination["detail"]))]
                try:
                    reply = deps.call_model(cfg, lambda m: m.invoke(messages))
                    answer = partial_answer(reply, text_format)
                    update["token_usage"] = usage_of(reply, messages)
                except Exception as exc:
                    update["termination"] = {
                        **termination,
                        "detail": f"{termination['detail']}; the partial-answer call failed: {type(exc).__name__}: {exc}",
                    }
        update["final_answer"] = answer
        if answer:
            update["messages"] = [AIMessage(content=answer)]
        return update

    return terminate
