"""Models and tools the CLI tests select through the real entry point:

    reactgraph run "..." --model tests.integration.cli_fixtures:answering --tools tests.integration.cli_fixtures:TOOLS

Every model's replies depend only on the prompt, so a run started by one process can be
resumed by another.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from reactgraph.models.tokens import message_text
from reactgraph.testing import ScriptedChatModel, by_prompt, tool_call

CALL_LOG = "CLI_FIXTURE_CALL_LOG"  # env: a file where lookup records each execution
BLOCK_FILE = "CLI_FIXTURE_BLOCK_FILE"  # env: blocking() writes this file, then waits to be killed


def lookup(key: str) -> str:
    """Look a city up and return its country."""
    if log := os.environ.get(CALL_LOG):
        with open(log, "a") as f:
            f.write(f"{key}\n")
    return {"paris": "France", "rome": "Italy"}.get(key.lower(), "not found")


TOOLS = [lookup]


def _scripted(reply) -> ScriptedChatModel:
    return ScriptedChatModel(responses=[reply], repeat_last=True)


def answering() -> ScriptedChatModel:
    """Looks Paris up, then answers."""
    return _scripted(by_prompt(("France", "Paris is in France."), default=tool_call("lookup", {"key": "paris"}, thought="I look Paris up.")))


def writing() -> ScriptedChatModel:
    """Writes its call to lookup as JSON in the text (as small local models do), then answers."""
    call = '{"name": "lookup", "arguments": {"key": "paris"}}'
    return _scripted(by_prompt(("France", "Thought: found it\nFinal Answer: Paris is in France."), default=call))


def typing() -> ScriptedChatModel:
    """Looks Paris up, then answers: as the JSON object the prompt asks for (``--output-schema``), else in words."""
    def answer(messages):
        prompt = "\n".join(message_text(m) for m in messages)
        return '{"country": "France", "known": true}' if '"country": <string>' in prompt else "Paris is in France."

    return _scripted(by_prompt(("France", answer), default=tool_call("lookup", {"key": "paris"}, thought="I look Paris up.")))


def asking() -> ScriptedChatModel:
    """Asks the user which city, then answers with the city the user named."""
    def after_answer(messages):
        text = next(m.text for m in reversed(messages) if "The user answered:" in m.text)
        return f"You chose {text.split('The user answered:')[1].strip()}."

    return _scripted(by_prompt(("The user answered:", after_answer), default=tool_call("ask_user", {"question": "Paris or Rome?"})))


def deciding() -> ScriptedChatModel:
    """Looks Paris up; answers from what the lookup gave (Rome, when the user changed the call), or
    says it was not allowed."""
    return _scripted(
        by_prompt(
            ("France", "Paris is in France."),
            ("Italy", "You had me look Rome up: Italy."),
            ("Error (rejected)", "I was not allowed to look it up."),
            default=tool_call("lookup", {"key": "paris"}, thought="I look Paris up."),
        )
    )


def looping() -> ScriptedChatModel:
    """Never answers by itself; gives a partial answer when told to stop."""
    return _scripted(
        by_prompt(("You must stop now", "Partial: Paris is in France, Rome unchecked."), default=tool_call("lookup", {"key": "paris"}, thought="Again."))
    )


def giving_up() -> ScriptedChatModel:
    return _scripted("I cannot complete this task: no tool for it.")


def not_a_model() -> int:
    return 42


def calculating() -> ScriptedChatModel:
    """Uses the built-in calculator, then answers."""
    return _scripted(by_prompt(("42", "6*7 = 42"), default=tool_call("calculator", {"expression": "6*7"}, thought="Multiply.")))


def searching() -> ScriptedChatModel:
    """Searches the documents for solar panels (search_documents), then answers with what it found."""
    return _scripted(
        by_prompt(("[panels]", "The panels are 21% efficient."), default=tool_call("search_documents", {"query": "solar panels"}))
    )


def blocking() -> ScriptedChatModel:
    """Like answering, but with BLOCK_FILE set it stops before answering until the process is killed."""
    def answer(messages):
        if block := os.environ.get(BLOCK_FILE):
            Path(block).write_text("blocked")
            while True:
                time.sleep(0.05)
        return "Paris is in France."

    return _scripted(by_prompt(("France", answer), default=tool_call("lookup", {"key": "paris"}, thought="I look Paris up.")))


def adding() -> ScriptedChatModel:
    """Adds 1234 and 4321 with the MCP server's add tool (tests/integration/mcp_server.py), then answers."""
    return _scripted(by_prompt(("5555", "1234 + 4321 = 5555."), default=tool_call("add", {"a": 1234, "b": 4321}, thought="Add them.")))


def asking_then_adding() -> ScriptedChatModel:
    """Asks which numbers to add, then adds them with the MCP server's add tool."""
    return _scripted(
        by_prompt(
            ("5555", "1234 + 4321 = 5555."),
            ("The user answered:", tool_call("add", {"a": 1234, "b": 4321})),
            default=tool_call("ask_user", {"question": "Which numbers?"}),
        )
    )


def delegating() -> ScriptedChatModel:
    """Asks the geographer sub-agent (GEOGRAPHER), then answers with what it found."""
    return _scripted(by_prompt(
        ("Paris is in France.", "The geographer says: Paris is in France."),
        default=tool_call("geographer", {"task": "Where is Paris?"}, thought="The geographer knows."),
    ))


def _geographer():
    from reactgraph import ReActAgent

    return ReActAgent(model=answering(), tools=TOOLS, checkpointer=None).as_tool("geographer", "Finds where cities are.")


GEOGRAPHER = [_geographer()]  # a sub-agent that looks cities up (the answering model with lookup)


def chatting() -> ScriptedChatModel:
    """For ``reactgraph chat``: greets Ada, counts slowly (for a minute, unless the turn is stopped), and answers
    "What is my name?" from the conversation's earlier turns."""

    def reply(messages):
        question = message_text(messages[-1]).removeprefix("Question: ")
        earlier = message_text(messages[0])  # the system prompt ends with the conversation's earlier turns
        if question == "Count slowly.":
            for _ in range(1200):
                time.sleep(0.05)
            return "I counted to a hundred."
        if question == "What is my name?":
            return "Your name is Ada." if 'User: "My name is Ada."' in earlier else "I do not know your name."
        return "Nice to meet you, Ada." if question == "My name is Ada." else f"You said: {question}"

    return _scripted(reply)
