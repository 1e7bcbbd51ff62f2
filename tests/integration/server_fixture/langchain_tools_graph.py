"""A served graph of LangChain tools written for ``create_agent``: a run's context (``context_schema``), the server's
store (across threads), progress on the custom stream, an image in the question. Its model's reply is computed
from the prompt, so every run gets the same replies whatever ran before on the server.

Questions it understands:
- "Who am I?": calls ``whoami`` (the run's context), then answers with its result.
- "Remember: <fact>": calls ``remember`` (the store); "What do you remember?": calls ``recall``, answers with it.
- "Crawl the site.": calls ``crawl``, which writes progress while it runs.
- any question with an image: answers with how many images its prompt held.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain.tools import InjectedStore, ToolRuntime, tool
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from typing_extensions import TypedDict

from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call


class UserContext(TypedDict, total=False):
    user_id: str


@tool
def whoami(runtime: ToolRuntime) -> str:
    """Who the user is."""
    return f"you are {runtime.context['user_id']}" if runtime.context else "nobody said"


@tool
def remember(fact: str, runtime: ToolRuntime) -> str:
    """Remember a fact about the user, for later conversations."""
    runtime.store.put(("facts",), "fact", {"text": fact})
    return "remembered"


@tool
def recall(store: Annotated[Any, InjectedStore()]) -> str:
    """What the user said before."""
    item = store.get(("facts",), "fact")
    return item.value["text"] if item else "nothing"


@tool
def crawl(runtime: ToolRuntime) -> str:
    """Crawl the site."""
    for page in (1, 2):
        runtime.stream_writer({"message": f"page {page} of 2"})
    return "2 pages"


def reply(messages: list[BaseMessage]) -> str | AIMessage:
    results = [m.text for m in messages if isinstance(m, ToolMessage)]
    if results:
        return f"Final Answer: {results[-1]}"
    asked = next(m for m in messages if isinstance(m, HumanMessage))
    if isinstance(asked.content, list):
        images = [b for b in asked.content if isinstance(b, dict) and b.get("type") == "image"]
        return f"Final Answer: I was shown {len(images)} image(s)"
    text = asked.text
    if "Who am I?" in text:
        return tool_call("whoami", {})
    if "Remember:" in text:
        return tool_call("remember", {"fact": text.split("Remember:", 1)[1].strip()})
    if "What do you remember?" in text:
        return tool_call("recall", {})
    if "Crawl the site." in text:
        return tool_call("crawl", {})
    return "Final Answer: I do not know"


graph = make_graph(
    model=ScriptedChatModel(responses=[reply], repeat_last=True),
    tools=[whoami, remember, recall, crawl],
    context_schema=UserContext,
    tool_calling="native",
)
