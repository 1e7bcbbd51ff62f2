"""The same LangChain middleware list in create_agent and in reactgraph, on the local model (issue 32).

    ../shared/tools/local-model.sh start && python3 ../shared/tools/ollama-shim.py &
    OLLAMA_HOST=http://127.0.0.1:11434 nice python benchmarks/middleware_local.py [--model ollama:qwen2.5-coder:1.5b] [--tasks 5]

The list: PIIMiddleware (emails redacted), ModelFallbackMiddleware (a second instance of the model), and
LLMToolSelectorMiddleware (the model picks at most two tools before each call). Each of the first ``--tasks``
tasks of the shipped suite that have an expected answer runs through both agents, its question followed by an
email address; a callback records whether any prompt the model saw held the address. Prints one line per run
and writes benchmarks/eval/middleware-local.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import LLMToolSelectorMiddleware, ModelFallbackMiddleware, PIIMiddleware
from langchain_core.callbacks import BaseCallbackHandler

from reactgraph import ReActAgent
from reactgraph.config import AgentConfig
from reactgraph.evaluation.checkers import check_answer
from reactgraph.evaluation.runner import invoke_peer, task_config, task_registry
from reactgraph.evaluation.suite import load_suite, shipped_suite
from reactgraph.models.resolve import resolve_model
from reactgraph.prompts import SYSTEM_PROMPT

EMAIL = "ann@example.com"
OUT = Path(__file__).parent / "eval" / "middleware-local.json"


class SeenEmail(BaseCallbackHandler):
    """Whether a prompt sent to a chat model held the address."""

    def __init__(self) -> None:
        self.seen = False

    def on_chat_model_start(self, serialized: Any, messages: list[list[Any]], **kwargs: Any) -> None:
        self.seen = self.seen or any(EMAIL in str(m.content) for batch in messages for m in batch)


def middleware(model_name: str, cfg: AgentConfig) -> list[Any]:
    """A fresh list (the selector and the fallback on the same local model)."""
    return [
        PIIMiddleware("email", strategy="redact"),
        ModelFallbackMiddleware(resolve_model(model_name, cfg)),
        LLMToolSelectorMiddleware(max_tools=2),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="ollama:qwen2.5-coder:1.5b")
    parser.add_argument("--tasks", type=int, default=5)
    args = parser.parse_args()
    suite_dir = shipped_suite()
    tasks = [t for t in load_suite(suite_dir) if t.expect is not None and not t.fault][: args.tasks]
    runs = []
    for task in tasks:
        question = f"{task.question} (Send the answer to {EMAIL}.)"
        for agent_name in ("create_agent", "reactgraph"):
            cfg = task_config(task, {})
            model = resolve_model(args.model, cfg)
            registry = task_registry(task, suite_dir)
            seen = SeenEmail()
            start = time.perf_counter()
            if agent_name == "create_agent":
                graph = create_agent(model, [e.tool for e in registry.list()], system_prompt=SYSTEM_PROMPT,
                                     middleware=middleware(args.model, cfg))
                _, answer, reason, detail = invoke_peer(graph, question, cfg, callbacks=[seen])
            else:
                try:
                    agent = ReActAgent(model=model, tools=registry, config=cfg, checkpointer=None,
                                       middleware=middleware(args.model, cfg))
                    result = agent.run(question, callbacks=[seen])
                    answer, reason, detail = result.final_answer, result.termination_reason.value, result.termination_detail
                except Exception as exc:  # noqa: BLE001 — a crash is a measured outcome here
                    answer, reason, detail = None, "error", f"{type(exc).__name__}: {str(exc)[:160]}"
            run = {
                "task": task.id, "agent": agent_name, "correct": check_answer(task.expect, answer), "reason": reason,
                "answer": (answer or "")[:120], "email_reached_model": seen.seen,
                "seconds": round(time.perf_counter() - start, 1), "detail": (detail or "")[:160],
            }
            runs.append(run)
            print(json.dumps(run, ensure_ascii=False), flush=True)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"model": args.model, "runs": runs}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
