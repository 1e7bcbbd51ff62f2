"""Token estimates where a model reports no usage: langchain-core's for prompts, text for replies."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from reactgraph.models.tokens import estimate_messages, usage_of


def test_a_prompt_estimate_counts_each_messages_framing_and_tool_calls():
    prompt = [SystemMessage("s" * 400), HumanMessage("h" * 400)]
    assert estimate_messages(prompt) > 200  # 800 characters, plus the two messages' roles and framing
    chat = [AIMessage("", tool_calls=[{"name": "lookup", "args": {"key": "k" * 80}, "id": "c1"}]), ToolMessage("ok", tool_call_id="c1")]
    assert estimate_messages(chat) > 20  # the call's name and arguments count, not only the (empty) text
    many_short = [HumanMessage("hi")] * 10
    assert estimate_messages(many_short) >= 10 * 3  # 3 tokens of framing a message, however short


def test_usage_without_metadata_is_estimated_and_marked():
    usage = usage_of(AIMessage("four"), [HumanMessage("What is 2+2?")])
    assert usage["estimated"] and usage["output_tokens"] == 1
    assert usage["input_tokens"] == estimate_messages([HumanMessage("What is 2+2?")])
    assert usage["total_tokens"] == usage["input_tokens"] + 1
