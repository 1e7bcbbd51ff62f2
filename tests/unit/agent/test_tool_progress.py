"""Progress a tool writes while it runs (``get_stream_writer()``, ``runtime.stream_writer``): the items
``create_agent`` streams in LangGraph's ``custom`` mode come out of ``ReActAgent.stream`` / ``astream`` as Progress
items, in order, and show in the CLI's live view as its status line."""

from __future__ import annotations

import asyncio
import io

from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langgraph.config import get_stream_writer
from rich.console import Console

from reactgraph import Progress, ReActAgent, ReActResult, ReActStep
from reactgraph.commands.live import LiveView, progress_text
from reactgraph.testing import ScriptedChatModel, tool_call


@tool
def crawl(site: str, runtime: ToolRuntime) -> str:
    """Crawl a site, telling how far it got."""
    runtime.stream_writer({"message": f"fetching {site}", "done": 0})
    get_stream_writer()({"message": f"parsed {site}", "done": 1})
    return f"{site}: 3 pages"


def script():
    return [tool_call("crawl", {"site": "example.org"}), "Final Answer: 3 pages"]


WRITTEN = [{"message": "fetching example.org", "done": 0}, {"message": "parsed example.org", "done": 1}]


def test_stream_yields_what_the_tool_wrote_as_create_agent_streams_it():
    peer = create_agent(ScriptedChatModel(responses=script()), [crawl])
    custom = list(peer.stream({"messages": [{"role": "user", "content": "Crawl example.org."}]}, stream_mode="custom"))
    agent = ReActAgent(ScriptedChatModel(responses=script()), [crawl], checkpointer=None)
    items = list(agent.stream("Crawl example.org."))
    assert [i.data for i in items if isinstance(i, Progress)] == custom == WRITTEN
    kinds = [type(i) for i in items]
    assert kinds == [Progress, Progress, ReActStep, ReActStep, ReActResult]  # the progress comes before the step
    assert items[-1].final_answer == "3 pages"


def test_astream_yields_them_too():
    agent = ReActAgent(ScriptedChatModel(responses=script()), [crawl])

    async def collect():
        return [i async for i in agent.astream("Crawl example.org.")]

    items = asyncio.run(collect())
    assert [i.data for i in items if isinstance(i, Progress)] == WRITTEN


def test_stream_updates_yields_them_between_the_nodes():
    agent = ReActAgent(ScriptedChatModel(responses=script()), [crawl], checkpointer=None)
    items = list(agent.stream_updates("Crawl example.org."))
    progress = [i for i, item in enumerate(items) if isinstance(item, Progress)]
    act = next(i for i, item in enumerate(items) if isinstance(item, tuple) and item[0] == "act")
    assert len(progress) == 2 and max(progress) < act


def test_the_live_view_shows_the_latest_as_its_status_line():
    shown = []

    class Spy(LiveView):
        def follow(self, updates):
            def watched():
                for item in updates:
                    if isinstance(item, Progress):
                        shown.append(item)
                    yield item
            return super().follow(watched())

    console = Console(file=io.StringIO(), width=100, force_terminal=False)
    view = Spy(console)
    agent = ReActAgent(ScriptedChatModel(responses=script()), [crawl], checkpointer=None)
    result = view.follow(agent.stream_updates("Crawl example.org."))
    assert result.final_answer == "3 pages" and len(shown) == 2
    assert view.status_text.endswith("parsed example.org") or view.status_text == "[dim]thinking...[/]"
    assert [progress_text(p.data) for p in shown] == ["fetching example.org", "parsed example.org"]


def test_progress_text_reads_common_shapes():
    assert progress_text("50%") == "50%"
    assert progress_text({"status": "uploading"}) == "uploading"
    assert progress_text([1, 2]) == "[1, 2]"
