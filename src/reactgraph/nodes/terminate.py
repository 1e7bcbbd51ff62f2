"""terminate: settle why the run ended and its answer; at a limit, ask once for a partial answer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from reactgraph import prompts
from reactgraph.deps import Deps
from reactgraph.edges import stop_reason
from reactgraph.models import call_with_fallbacks, model_candidates
from reactgraph.result import LIMIT_REASONS, TerminationReason
from reactgraph.scratchpad import think_messages
from reactgraph.state import ReActState, Termination
from reactgraph.tokens import usage_of


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
                messages = think_messages(
                    state, cfg, question=state.get("question", ""), iteration=state.get("iteration", 0), now=now
                ) + [HumanMessage(content=prompts.PARTIAL_ANSWER_PROMPT.format(detail=termination["detail"]))]
                try:
                    candidates = model_candidates(deps.chat_model(cfg), cfg)
                    reply = call_with_fallbacks(candidates, lambda model: model.invoke(messages), cfg)
                    answer = reply.text.strip() or None
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
