"""The text format: tools described in the system prompt, replies as ``Thought: / Action: tool[input]``
or ``Thought: / Final Answer:`` (the tags set by AgentConfig), tool results as ``Observation:`` lines
(several lines of output in a fenced block: data, not tags).

For models without tool calling, and for small models that write their calls as text. A reply is
read as text actions first (an explicit ``Action:`` line wins), then as JSON calls; a ``Thought``
with neither an action nor an answer is sent back with the expected format. The model's turn
stops where it would start writing an observation itself."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable

from reactgraph import prompts
from reactgraph.errors import ErrorKind
from reactgraph.tool_calling._actions import read_text_actions
from reactgraph.tool_calling._base import Format
from reactgraph.tool_calling._described import answer_unless_described
from reactgraph.tool_calling._native import native_calls
from reactgraph.tool_calling.json_blocks import read_json_calls
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, observed_text, reject
from reactgraph.tool_calling.tags import Tags, shown_observation, tag_pattern, without_thought_tag
from reactgraph.tools.specs import ToolSpec


class TextFormat(Format):
    name = "text"

    def bind(self, model: BaseChatModel, tools: list[Any], ctx: ReadContext) -> Runnable:
        return with_observation_stop(model, ctx.tags)

    def tools_prompt(self, ctx: ReadContext) -> str:
        lines = [prompts.TEXT_TOOLS_HEADER]
        lines += [f"- {tool.signature()}: {tool.description or '(no description)'}" for tool in ctx.tools]
        return "\n".join(lines) + "\n\n" + ctx.hint

    def expected(self, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
        tools = ", ".join(t.signature() for t in specs) or "(see the tool list)"
        return prompts.TEXT_EXPECTED.format(
            observation=tags.observation, thought=tags.thought, action=tags.action, final_answer=tags.final_answer, tools=tools
        )

    def parse(self, reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
        parsed = native_calls(reply, text, ctx) or read_text_actions(text, ctx) or read_json_calls(text, ctx)
        if parsed is not None:
            return parsed
        if tag_pattern(ctx.tags.thought).search(text):
            tags = ctx.tags
            problem = f"your reply has a {tags.thought} but neither an {tags.action} nor a {tags.final_answer}"
            thought = without_thought_tag(text, tags)
            return ParsedReply(thought=thought, actions=[reject(ErrorKind.MISSING_ACTION, problem, ctx)], unanswered=thought)
        return answer_unless_described(text, ctx)

    def show(self, steps: list[dict[str, Any]], ctx: ReadContext, tail: str) -> list[BaseMessage]:
        tags = ctx.tags
        messages: list[BaseMessage] = []
        for step in steps:  # no placeholder for what the model did not write: small models copy them
            lines = [f"{tags.thought}: {step['thought']}"] if step.get("thought") else []
            if written := [text for text in map(action_text, step["actions"]) if text]:
                lines.append(f"{tags.action}: {', '.join(written)}")  # several calls on one line, as read
            if (answer := sent_back_answer(step)) is not None:  # shown as given: without it, the model copies a Thought alone
                lines.append(f"{tags.final_answer}: {answer}")
            messages.append(AIMessage(content="\n".join(lines) or f"{tags.thought}:"))
            observed = "\n".join(shown_observation(observed_text(obs, self.name), tags) for obs in step["observations"])
            messages.append(HumanMessage(content=observed or f"{tags.observation}: (none)"))
        if tail and messages:
            messages[-1] = HumanMessage(content=f"{messages[-1].content}\n\n{tail}")
        return messages

    def answer_shape(self, shape: str, ctx: ReadContext) -> str:
        return prompts.OUTPUT_SHAPE_TAGGED.format(final_answer=ctx.tags.final_answer, shape=shape)

    def answer_now(self, ctx: ReadContext) -> str:
        return prompts.ANSWER_NOW_TEXT.format(final_answer=ctx.tags.final_answer)

    def reminder(self, ctx: ReadContext, repeated: bool = False, failed: bool = False) -> str:
        template = prompts.REPEATED_TEXT if repeated else prompts.NEXT_STEP
        give_up = prompts.GIVE_UP_TEXT if failed else ""
        return template.format(thought=ctx.tags.thought, final_answer=ctx.tags.final_answer, give_up=give_up)


def with_observation_stop(model: BaseChatModel, tags: Tags) -> Runnable:
    """The model, its turn ending where it would start writing the observation itself (a model
    with stop sequences of its own keeps them: ChatOllama refuses a second set)."""
    if getattr(model, "stop", None):
        return model
    return model.bind(stop=[f"\n{tags.observation}:"])


def render_action(tool: str, args: dict[str, Any]) -> str:
    """An action in the text format: ``tool[value]`` for one string input, else ``tool[{json}]``."""
    if len(args) == 1 and isinstance(value := next(iter(args.values())), str):
        return f"{tool}[{value}]"
    return f"{tool}[{json.dumps(args, ensure_ascii=False)}]" if args else f"{tool}[]"


def sent_back_answer(step: dict[str, Any]) -> str | None:
    """The final answer or give-up a check step sent back, unless its thought already holds it (a reply with no
    ``Final Answer`` tag is all thought): what the step shows after the thought."""
    answer = step.get("answer")
    return answer if answer and answer.strip() not in (step.get("thought") or "") else None


def action_text(action: dict[str, Any]) -> str:
    """An action as the text format writes it; a rejected one as the model wrote it ('' when unknown)."""
    if action["tool"]:
        return render_action(action["tool"], action["args"])
    return action["args"].get("written") or ""



