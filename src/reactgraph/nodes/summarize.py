"""summarize: fold the steps since the last summary into the running summary (one model call).

Also here: ``condense_observation``, which observe uses with ``summarize_observations=True``
to have the model shorten a long observation instead of truncating it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage

from reactgraph import prompts
from reactgraph.config import AgentConfig
from reactgraph.deps import Deps
from reactgraph.scratchpad import steps_text
from reactgraph.state import ReActState, TokenCount
from reactgraph.tokens import count_tokens, truncate, usage_of

OBSERVATION_PROMPT = """An agent answering a question called the tool {tool!r}, which returned a long result.
Rewrite the result in at most {words} words. Keep every fact that could help answer the question \
(names, numbers, dates, errors) and drop the rest. Reply with the shortened result only.

Question: {question}

Result:
{content}"""


def make_summarize(deps: Deps) -> Callable[[ReActState], dict[str, Any]]:
    def summarize(state: ReActState) -> dict[str, Any]:
        """Reads the old summary and the steps since it; writes the new summary and the call's usage.
        If the model call fails, the new steps are appended as text, cut head-and-tail to
        ``max_observation_tokens`` twice over, so the prompt stays bounded; the trace keeps them whole."""
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
            reply = deps.call_model(cfg, lambda model: model.invoke(prompt))
        except Exception as exc:
            note = f"(summary call failed: {type(exc).__name__}: {exc})"
            text, _ = truncate("\n".join(filter(None, [old, note, steps_text(new_steps)])), 2 * cfg.max_observation_tokens)
            return update | {"summary": text}
        return update | {"summary": reply.text.strip(), "token_usage": usage_of(reply, prompt)}

    return summarize


def condense_observation(
    deps: Deps, cfg: AgentConfig, *, question: str, tool: str, content: str
) -> tuple[str | None, TokenCount | None]:
    """(summary, usage) of a long observation, written by the model and marked as a summary.
    The summary is None when the call fails or its reply does not fit ``max_observation_tokens``
    either; the caller then truncates."""
    words = cfg.max_observation_tokens * 3 // 5
    prompt = [HumanMessage(content=OBSERVATION_PROMPT.format(tool=tool, words=words, question=question, content=content))]
    try:
        reply = deps.call_model(cfg, lambda model: model.invoke(prompt))
    except Exception:
        return None, None
    summary = reply.text.strip()
    fits = 0 < count_tokens(summary) <= cfg.max_observation_tokens
    return (f"[model summary of a {len(content)}-character result]\n{summary}" if fits else None), usage_of(reply, prompt)
