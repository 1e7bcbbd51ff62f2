"""The native format: tools through the model's tool-calling API (``bind_tools``).

Read: the reply's ``tool_calls`` (and ``invalid_tool_calls``, reported back), which win over
anything in its text; a model that writes its calls into the text instead is still understood (an
``Action:`` line, else JSON or ``<tool_call>`` tags, see ``calls_else_answer``), and
``tool_calling="auto"`` then moves the run to the text format. Shown back: the model's message with
its tool calls (its own text as the content, also when the calls were read from that text), then
one tool message per result (with the images a tool returned: ``observed_content``). After a reply with several
calls, each result starts with the call that gave it (``labelled``): chat templates such as Ollama's Qwen2.5 show
tool results without the tool's name, and a model cannot tell them apart otherwise."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable

from reactgraph import prompts
from reactgraph.errors import ErrorKind
from reactgraph.state import Action
from reactgraph.tool_calling._actions import read_text_actions
from reactgraph.tool_calling._base import Format
from reactgraph.tool_calling._described import answer_unless_described
from reactgraph.tool_calling.json_blocks import read_json_calls, through_last_call
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, new_id, observed_content, reject, rendered
from reactgraph.tool_calling.tags import Tags, cut_invented, find_tag, shown_observation
from reactgraph.tools.specs import ToolSpec, option_tool

LABEL_CHARS = 160  # of a call named before its result (a long argument, a file's text, is cut)


class NativeFormat(Format):
    name = "native"
    status_after_steps = False
    structured_output = True

    def bind(self, model: BaseChatModel, tools: list[Any], ctx: ReadContext) -> Runnable:
        return model.bind_tools(tools)  # NotImplementedError when the model has no tool calling

    def tools_prompt(self, ctx: ReadContext) -> str:
        return ""

    def expected(self, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
        return prompts.NATIVE_EXPECTED.format(tools=", ".join(t.signature() for t in specs) or "(see the tool list)")

    def parse(self, reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
        return calls_else_answer(reply, text, ctx)

    def show(self, steps: list[dict[str, Any]], ctx: ReadContext, tail: str) -> list[BaseMessage]:
        messages: list[BaseMessage] = []
        for step in steps:
            calls = [a for a in step["actions"] if a["tool"]]
            messages.append(
                AIMessage(
                    content=own_part(step, ctx) or step.get("thought", ""),
                    tool_calls=[{"name": a["tool"], "args": a["args"], "id": a["id"], "type": "tool_call"} for a in calls],
                )
            )
            label = len(calls) > 1
            for action, obs in zip(step["actions"], step["observations"], strict=False):  # observe keeps them in step
                if obs["tool"]:
                    content = labelled(obs, action) if label else observed_content(obs)
                    messages.append(ToolMessage(content=content, tool_call_id=obs["call_id"], name=obs["tool"]))
                else:
                    messages.append(HumanMessage(content=shown_observation(obs["content"], ctx.tags)))
        if tail and messages:
            messages.append(HumanMessage(content=tail))
        return messages


def labelled(obs: dict[str, Any], action: Action) -> str | list[Any]:
    """A result as ``observed_content`` shows it, after the call that gave it (``LABEL_CHARS`` of it at most):
    ``multiply(a=5, b=3) returned: 15.0``."""
    call = rendered(action["tool"], action["args"])
    label = f"{call if len(call) <= LABEL_CHARS else call[: LABEL_CHARS - 4] + '...)'} returned:"
    content = observed_content(obs)
    if isinstance(content, list):
        return [{"type": "text", "text": f"{label} {content[0]['text']}"}, *content[1:]]
    return f"{label}\n{content}" if "\n" in content else f"{label} {content}"


def own_part(step: dict[str, Any], ctx: ReadContext) -> str:
    """The model's text of a turn whose calls were read from it, without what it invented after its
    calls (a result, an observation of its own): shown back, the model would take that for the tool's."""
    written = step.get("written") or ""
    return cut_invented(through_last_call(written, [a["tool"] for a in step["actions"] if a["tool"]]), ctx.tags).strip()


def calls_else_answer(reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
    """The reply's calls: from the API, else an explicit ``Action:`` line, else calls written as JSON
    (a block quoted inside a line of prose does not count beside a ``Final Answer:`` line), else a
    ``Final Answer:``; without any, its text is the answer (unless it describes calls instead of making them)."""
    tags = ctx.tags
    return (
        native_calls(reply, text, ctx)
        or (read_text_actions(text, ctx) if find_tag(text, tags.action) else None)
        or read_json_calls(text, ctx, inline=find_tag(text, tags.final_answer) is None)
        or read_text_actions(text, ctx)
        or answer_unless_described(text, ctx)
    )


def native_calls(message: AIMessage, text: str, ctx: ReadContext) -> ParsedReply | None:
    """The reply's tool calls from the tool-calling API; calls it could not read become rejections."""
    actions: list[Action] = []
    for call in message.tool_calls or []:
        if not call["name"].strip():
            actions.append(reject(ErrorKind.MALFORMED_OUTPUT, f"your tool call names no tool; the tools are: {ctx.tool_list()}", ctx))
            continue
        name, args = call["name"], dict(call.get("args") or {})
        if option := option_tool(name, args, ctx.tools):  # an option named as the tool
            name, args = option[0].name, {**args, option[1]: option[2]}
        actions.append({"id": call.get("id") or new_id(), "tool": name, "args": args})
    for bad in getattr(message, "invalid_tool_calls", None) or []:
        name = bad.get("name") or "(unnamed)"
        problem = (
            f"your call to {name} could not be read ({bad.get('error') or 'arguments are not valid JSON'}): "
            f"{bad.get('args')!r}. Send the arguments as a JSON object matching the tool's schema"
        )
        rejected = reject(ErrorKind.INVALID_PARAMETERS, problem, ctx)
        actions.append(rejected | {"id": bad.get("id") or rejected["id"], "tool": name})
    return ParsedReply(thought=text, actions=actions, source="native") if actions else None
