"""summarize: fold the steps since the last summary into the running summary (one model call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage

from reactgraph import prompts
from reactgraph.deps import Deps
from reactgraph.scratchpad import steps_text
from reactgraph.state import ReActState
from reactgraph.tokens import usage_of


def make_summarize(deps: Deps) -> Callable[[ReActState], dict[str, Any]]:
    def summarize(state: ReActState) -> dict[str, Any]:
        """Reads the old summary and the steps since it; writes the new summary and the call's usage.
        If the model call fails, the new steps are appended as text, so nothing is lost."""
        cfg = deps.run_config()
        through = state.get("summarized_through", 0)
        new_steps = [s for s in state.get("steps") or [] if s["iteration"] > through]
        old = state.get("summary") or ""
        prompt = [
            HumanMessage(
                content=prompts.SUMMARIZE_PROMPT.format(
                    question=state.get("question", ""), summary=old or "(none yet)", steps=steps_text(new_steps)
                )
            )
        ]
        update: dict[str, Any] = {"summarized_through": state.get("iteration", 0)}
        try:
            reply = deps.chat_model(cfg).invoke(prompt)
        except Exception as exc:
            note = f"(summary call failed: {type(exc).__name__}: {exc})"
            return update | {"summary": "\n".join(filter(None, [old, note, steps_text(new_steps)]))}
        return update | {"summary": reply.text.strip(), "token_usage": usage_of(reply, prompt)}

    return summarize
