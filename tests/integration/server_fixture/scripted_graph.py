"""The served reactgraph graph on a ScriptedChatModel, for the server integration test.

The server keeps one model for all runs, so the model's reply is computed from the prompt
(question, tool results so far, budget line), never from a position in a script: every run
gets the same replies whatever ran before it on the server.

Questions it understands:
- "What is 6*7 + 2*4?": two parallel multiply calls, then add, then the answer (3 turns).
- "Count 1, 2, 3, ... as long as you may.": one `count` call per turn, with the turn number, until a limit stops it.
- "What is the weather like?": asks the user which city (clarification), then answers for it.
- "Greet Ann, Bob and Cy.": three parallel `greet` calls, then an answer made of their results
  (with approve_tools, each call waits for approval; a rejected one is named with its reason).
- "My name is Ada." then, as a later turn of the same thread, "What is my name?": the name, when an
  earlier turn of the conversation is in the prompt.
- "What is the forecast for Paris?": one `forecast` call, then its result; "And for Rome?", as a later turn of the
  same thread: the same call for Rome, when the earlier turn is in the prompt.
- "Greet Ann.": one `greet` call (waiting when the run's context approves `greet`), then what it gave.

``typed_graph`` (graph "typed") is the same graph with an output schema (``TOTAL_SIGNATURE``): its model
answers the arithmetic question in words, and gives the answer's fields when the model's structured
output is asked for them.
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls

ARITHMETIC = "What is 6*7 + 2*4?"
COUNTING = "Count 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... as long as you may."
WEATHER = "What is the weather like?"
CITY_QUESTION = "Which city do you mean?"
GREETINGS = "Greet Ann, Bob and Cy."
GUESTS = ("Ann", "Bob", "Cy")
TOTAL_SIGNATURE = "question -> total: int, expression: str"
INTRODUCTION = "My name is Ada."
NAME_QUESTION = "What is my name?"
FORECAST = "What is the forecast for Paris?"
FOLLOW_UP = "And for Rome?"
GREETING = "Greet Ann."


def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def count(n: int) -> str:
    """Say a number out loud."""
    return f"counted {n}"


def forecast(city: str) -> str:
    """Tomorrow's weather forecast for a city."""
    return f"{city}: sunny, 24 °C"


def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello {name}"


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


def _turn(messages: list[BaseMessage]) -> int:
    """The current turn: one after the last 'counted N' result in the prompt."""
    counted = [int(m.group(1)) for msg in messages if isinstance(msg, ToolMessage) and (m := re.fullmatch(r"counted (\d+)", _text(msg)))]
    return max(counted, default=0) + 1


def reply(messages: list[BaseMessage]) -> str | AIMessage:
    """The model: a pure function of the prompt."""
    first = _text(messages[0]) if messages else ""
    if len(messages) == 1 and first.startswith("You keep the running notes"):
        return "Notes: the steps so far are in the trace."
    last = _text(messages[-1])
    if last.startswith("You must stop now"):
        return "I counted as far as the limit allowed."
    head = next((_text(m) for m in messages if isinstance(m, HumanMessage)), "")
    earlier = first  # the system prompt ends with the conversation's earlier turns
    if NAME_QUESTION in head:
        return "Your name is Ada." if f'User: "{INTRODUCTION}"' in earlier else "I do not know your name."
    if INTRODUCTION in head:
        return "Nice to meet you, Ada."
    results = {m.name: _text(m) for m in messages if isinstance(m, ToolMessage)}
    if FOLLOW_UP in head or FORECAST in head:
        if "forecast" in results:
            return f"The forecast for {results['forecast']}."
        if FORECAST in head and FOLLOW_UP not in head:
            return tool_call("forecast", {"city": "Paris"}, thought="Look up the forecast for Paris.")
        if "The forecast for Paris" in " ".join(_text(m) for m in messages):  # the earlier turn's answer
            return tool_call("forecast", {"city": "Rome"}, thought="The same forecast, for Rome.")
        return "I do not know what you want for Rome."
    if GREETING in head:
        if "greet" in results:
            return f"Done: {results['greet']}."
        return tool_call("greet", {"name": "Ann"}, thought="Greet Ann with the greet tool.")
    if ARITHMETIC in head:
        if "add" in results:
            return f"6*7 + 2*4 = {results['add']}."
        if "multiply" in results:
            # each result after its call ("multiply(a=6, b=7) returned: 42"): the native format names several calls' results
            products = [int(_text(m).rsplit(" ", 1)[-1]) for m in messages if isinstance(m, ToolMessage) and m.name == "multiply"]
            return tool_call("add", {"a": products[0], "b": products[1]}, thought="Now add the two products.")
        return tool_calls(
            [("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4})], thought="First the two products."
        )
    if COUNTING in head:
        n = _turn(messages)
        return tool_call("count", {"n": n}, thought=f"Turn {n}: keep counting.")
    if WEATHER in head:
        if "ask_user" in results:
            city = results["ask_user"].removeprefix("The user answered:").strip()
            return f"The weather in {city} is sunny."
        return tool_call("ask_user", {"question": CITY_QUESTION}, thought="The question does not say where.")
    if GREETINGS in head:
        results = [_text(m) for m in messages if isinstance(m, ToolMessage) and m.name == "greet"]
        if results:
            greeted = [m.group(1) for r in results if (m := re.search(r"Hello (\w+)$", r))]
            refused = [m.group(1) for r in results if (m := re.search(r"Their reason: (.*?)\. Do not", r))]
            return f"Greeted {', '.join(greeted)}" + "".join(f"; refused: {reason}." for reason in refused)
        return tool_calls([("greet", {"name": n}) for n in GUESTS], thought="Greet all three.", ids=[f"greet_{n}" for n in GUESTS])
    return "I cannot complete this task: the scripted model does not know this question."


def typed_reply(messages: list[BaseMessage]) -> str | AIMessage:
    """``reply``; the structured-output call, whose prompt quotes the answer, gets the schema's tool call."""
    if found := re.search(r"Answer: 6\*7 \+ 2\*4 = (\d+)\.", _text(messages[-1])):
        return tool_call("Answer", {"total": int(found[1]), "expression": "6*7 + 2*4"})
    return reply(messages)


graph = make_graph(model=ScriptedChatModel(responses=[reply], repeat_last=True), tools=[multiply, add, count, greet, forecast])
typed_graph = make_graph(
    model=ScriptedChatModel(responses=[typed_reply], repeat_last=True), tools=[multiply, add], output_schema=TOTAL_SIGNATURE
)
