"""The JSON format: tools described in the system prompt with their JSON schemas, calls written as
``{"name": ..., "arguments": {...}}`` in the reply (several as a list), anything else the answer.

For models trained to call tools in JSON (Qwen, Hermes, Llama 3) served without a tool-calling
API. Shown back: the model's own reply, then each result as an ``Observation:`` message."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable

from reactgraph import prompts
from reactgraph.tool_calling._base import Format
from reactgraph.tool_calling._native import calls_else_answer, own_part
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, observed_text
from reactgraph.tool_calling.tags import Tags, shown_observation
from reactgraph.tool_calling.text import with_observation_stop
from reactgraph.tools.specs import ToolSpec


class JsonFormat(Format):
    name = "json"
    tools_header = prompts.JSON_TOOLS_HEADER

    def bind(self, model: BaseChatModel, tools: list[Any], ctx: ReadContext) -> Runnable:
        return with_observation_stop(model, ctx.tags)

    def tools_prompt(self, ctx: ReadContext) -> str:
        lines = [self.tools_header]
        lines += [json.dumps(self.listed(spec), ensure_ascii=False) for spec in ctx.tools]
        return "\n".join(lines) + "\n\n" + ctx.hint

    def listed(self, spec: ToolSpec) -> dict[str, Any]:
        """A tool as the prompt lists it: a compact schema line, the name, the description and each input's type."""
        types = spec.types or ("",) * len(spec.params)
        inputs = {p: (t or "any") + ("" if p in spec.required else ", optional") for p, t in zip(spec.params, types, strict=False)}
        return {"name": spec.name, "description": spec.description, "arguments": inputs}

    def expected(self, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
        return prompts.JSON_EXPECTED.format()

    def parse(self, reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
        return calls_else_answer(reply, text, ctx)

    def show(self, steps: list[dict[str, Any]], ctx: ReadContext, tail: str) -> list[BaseMessage]:
        messages: list[BaseMessage] = []
        for step in steps:
            messages.append(AIMessage(content=self.shown_reply(step, ctx)))
            messages.append(HumanMessage(content=self.shown_results(step, ctx) or f"{ctx.tags.observation}: (none)"))
        if tail and messages:
            messages[-1] = HumanMessage(content=f"{messages[-1].content}\n\n{tail}")
        return messages

    def shown_results(self, step: dict[str, Any], ctx: ReadContext) -> str:
        """A past turn's results, each as an ``Observation:`` line."""
        return "\n".join(shown_observation(observed_text(obs, self.name), ctx.tags) for obs in step["observations"])

    def shown_reply(self, step: dict[str, Any], ctx: ReadContext) -> str:
        """A past turn's reply as shown back: the model's own text up to its last call, else its thought and calls."""
        calls = [{"name": a["tool"], "arguments": a["args"]} for a in step["actions"] if a["tool"]]
        return own_part(step, ctx) or "\n".join(
            filter(None, [step.get("thought", ""), *(json.dumps(c, ensure_ascii=False) for c in calls)])
        )

