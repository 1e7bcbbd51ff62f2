"""A tool-calling format: how the tools reach the model, how a reply is read, how a past turn is shown."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable

from reactgraph import prompts
from reactgraph.tool_calling.reading import ParsedReply, ReadContext, numbered, reply_text
from reactgraph.tool_calling.tags import Tags
from reactgraph.tools.specs import ToolSpec


class Format(ABC):
    """One way of calling tools. Formats are stateless; a run's current format is named in its state."""

    name: ClassVar[str]
    # Whether the budget line and the next-step reminder follow the newest observations (a text
    # prompt then starts as the previous one did, so a local server reuses its prefix).
    status_after_steps: ClassVar[bool] = True
    # Whether a final answer that does not fit the output schema goes to the model's structured output
    # (``with_structured_output``) before it is sent back: for formats that use the model's own API.
    structured_output: ClassVar[bool] = False

    def context(self, specs: tuple[ToolSpec, ...], tags: Tags) -> ReadContext:
        """What reading a reply needs: the tools, the tags, and the expected shape of a reply."""
        return ReadContext(tools=specs, tags=tags, hint=self.expected(specs, tags))

    @abstractmethod
    def bind(self, model: BaseChatModel, tools: list[Any], ctx: ReadContext) -> Runnable:
        """The model, ready to be called in this format (tools bound, stop sequences set)."""

    @abstractmethod
    def tools_prompt(self, ctx: ReadContext) -> str:
        """The system-prompt text that describes the tools and the reply format ('' when the API does)."""

    @abstractmethod
    def expected(self, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
        """How a reply should look: shown in the prompt and after the newest unreadable reply."""

    @abstractmethod
    def parse(self, reply: AIMessage, text: str, ctx: ReadContext) -> ParsedReply:
        """The reply (its text given) as a thought plus actions, or an answer."""

    @abstractmethod
    def show(self, steps: list[dict[str, Any]], ctx: ReadContext, tail: str) -> list[BaseMessage]:
        """Past turns as chat messages; ``tail`` (the expected format after an unreadable reply, the
        budget line, the reminder) goes after the newest observations."""

    def reminder(self, ctx: ReadContext, repeated: bool = False, failed: bool = False) -> str:
        """A line after the newest observations that says what to do next; ``repeated``: the model
        just made the same calls again and got the same results (``failed``: errors)."""
        return prompts.REPEATED_NATIVE.format(give_up=prompts.GIVE_UP if failed else "") if repeated else ""

    def answer_now(self, ctx: ReadContext) -> str:
        """What ends the request for a partial answer: how to write an answer in this format ('' when any text is)."""
        return ""

    def answer_shape(self, shape: str, ctx: ReadContext) -> str:
        """The system-prompt text that asks for the final answer in ``shape`` (an output schema's)."""
        return prompts.OUTPUT_SHAPE.format(shape=shape)

    def read(self, reply: AIMessage, ctx: ReadContext) -> ParsedReply:
        """The reply read in this format, its actions numbered."""
        return numbered(self.parse(reply, reply_text(reply), ctx), ctx)
