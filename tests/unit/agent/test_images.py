"""Images in the question and in a tool's result: a run takes a message or content blocks; a model in the native
format gets the images, as ``create_agent``'s model gets them for the same input; a text-only format leaves them out
and says so, in the prompt, on the step and once to the user; never silently."""

from __future__ import annotations

import base64
import logging

from langchain.tools import tool
from langchain_core.messages import HumanMessage, ToolMessage

from reactgraph import Progress, ReActAgent
from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call
from tests.unit.create_agent_peer import create_agent_run

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
IMAGE = {"type": "image", "base64": PNG, "mime_type": "image/png"}
ASKED = [{"type": "text", "text": "What is in this image?"}, IMAGE]


@tool
def chart(name: str) -> list:
    """Draw a chart."""
    return [{"type": "text", "text": f"the {name} chart"}, IMAGE]


def images_in(message) -> list[dict]:
    content = message.content
    return [b for b in content if isinstance(b, dict) and b.get("type") == "image"] if isinstance(content, list) else []


def test_the_question_s_image_reaches_a_native_model_as_in_create_agent():
    _, peer = create_agent_run(["a cat"], [], question=ASKED)
    model = ScriptedChatModel(responses=["Final Answer: a cat"])
    result = ReActAgent(model, [], checkpointer=None, tool_calling="native").run(ASKED)
    assert result.final_answer == "a cat" and result.question == "What is in this image?"
    asked = model.calls[0]["messages"][1]
    assert images_in(asked) == images_in(peer.calls[0]["messages"][-1]) == [IMAGE]
    assert "What is in this image?" in asked.content[0]["text"]
    assert not result.trace.steps[-1].left_out


def test_a_human_message_is_taken_as_the_question_too():
    model = ScriptedChatModel(responses=["Final Answer: a cat"])
    agent = ReActAgent(model, [], checkpointer=None, tool_calling="native")
    assert agent.run(HumanMessage(ASKED)).final_answer == "a cat"
    assert images_in(model.calls[0]["messages"][1]) == [IMAGE]


def test_a_text_format_says_the_image_was_left_out(caplog):
    model = ScriptedChatModel(responses=["Thought: look\nAction: chart[sales]", "Final Answer: I cannot see images"])
    agent = ReActAgent(model, [chart], checkpointer=None, tool_calling="text")
    asked = [{"type": "text", "text": "What is in this image, and in the sales chart?"}, IMAGE]
    with caplog.at_level(logging.WARNING, logger="reactgraph"):
        items = list(agent.stream(asked))
    result = items[-1]
    first, second = (call["messages"] for call in model.calls)
    assert "(an image (image/png) left out: the text tool-calling format sends the model text only)" in first[1].content
    assert "the sales chart" in second[-1].content
    assert "(an image (image/png) left out: the text tool-calling format sends the model text only)" in second[-1].content
    assert not any(images_in(m) for call in model.calls for m in call["messages"])
    assert result.trace.steps[0].left_out == ["an image (image/png) in the question"]
    assert result.trace.steps[1].left_out == ["an image (image/png) in the question", "an image (image/png) from chart"]
    notices = [i.data for i in items if isinstance(i, Progress)]
    assert len(notices) == 1 and notices[0]["type"] == "notice" and "left out of the model's prompt" in notices[0]["message"]
    assert [r.message for r in caplog.records] == [notices[0]["message"]]  # told once, not at every turn


def test_a_tool_s_image_reaches_a_native_model_as_in_create_agent():
    script = [tool_call("chart", {"name": "sales"}), "a rising line"]
    _, peer = create_agent_run(script, [chart])
    model = ScriptedChatModel(responses=script)
    result = ReActAgent(model, [chart], checkpointer=None, tool_calling="native").run("draw the sales chart")
    shown = [m for m in model.calls[1]["messages"] if isinstance(m, ToolMessage)]
    theirs = [m for m in peer.calls[1]["messages"] if isinstance(m, ToolMessage)]
    assert images_in(shown[0]) == images_in(theirs[0]) == [IMAGE]
    assert result.trace.steps[0].observations[0].value == [{"type": "text", "text": "the sales chart"}, IMAGE]
    assert result.trace.steps[0].observations[0].content == "the sales chart\n[image: image/png, 48 bytes]"


def test_an_image_too_big_to_keep_is_named_with_the_limit():
    big = {"type": "image", "base64": base64.b64encode(bytes(4000)).decode(), "mime_type": "image/png"}

    @tool
    def photo() -> list:
        """Take a photo."""
        return [big]

    model = ScriptedChatModel(responses=[tool_call("photo", {}), "Final Answer: done"])
    result = ReActAgent(model, [photo], checkpointer=None, tool_calling="native", max_tool_output_bytes=2048).run("photo")
    observation = result.trace.steps[0].observations[0]
    assert observation.value is None and "(an image (image/png) not kept: larger than max_tool_output_bytes, 2,048 bytes)" in observation.content
    assert not any(images_in(m) for m in model.calls[1]["messages"])


def test_the_served_graph_takes_an_image_message():
    model = ScriptedChatModel(responses=["Final Answer: a cat"])
    graph = make_graph(model, [], tool_calling="native")
    out = graph.invoke({"messages": [HumanMessage(ASKED)]})
    assert out["final_answer"] == "a cat" and images_in(model.calls[0]["messages"][1]) == [IMAGE]
