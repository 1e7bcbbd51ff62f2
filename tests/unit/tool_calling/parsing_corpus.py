"""Malformed and unusual model outputs, modelled on what small Ollama models really produce,
each with what the parser must make of it.

Each case: (name, reply, text_mode, expected), where expected is one of
- ("call", [(tool, args), ...])  the tool calls, in order;
- ("answer", text)               a final answer;
- ("error", kind)                one rejected action of that kind (an error observation).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from reactgraph.testing import ScriptedChatModel, tool_call


def search(query: str) -> str:
    """Search the web for a query."""
    return f"results for {query}"


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return expression


def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather of a city."""
    return f"sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def read_lines(path: str, start: int = 1, count: int = 20) -> str:
    """Read lines of a file."""
    return path


def listing(path: str = ".", pattern: str = "*") -> str:
    """List files."""
    return path


TOOLS = [search, calculator, get_weather, add, read_lines, listing]
Q = {"query": "capital of France"}
W = {"city": "Paris"}

CASES: list[tuple[str, Any, bool, tuple]] = [
    # -- native tool calls and what Ollama's client hands back --------------------------------------
    ("native call", tool_call("search", Q), False, ("call", [("search", Q)])),
    ("native invalid call", AIMessage(content="", invalid_tool_calls=[{"name": "search", "args": "{query:", "id": "1", "error": "bad json", "type": "invalid_tool_call"}]), False, ("error", "invalid_parameters")),
    ("native wins over text", tool_call("add", {"a": 1, "b": 2}, thought='{"name": "search", "arguments": {"query": "x"}}'), False, ("call", [("add", {"a": 1, "b": 2})])),
    # -- JSON tool calls in content (qwen2.5, llama3.2, mistral) ------------------------------------
    ("bare json", '{"name": "search", "arguments": {"query": "capital of France"}}', False, ("call", [("search", Q)])),
    ("json with parameters key", '{"name": "get_weather", "parameters": {"city": "Paris"}}', False, ("call", [("get_weather", W)])),
    ("json with args key", '{"tool": "search", "args": {"query": "capital of France"}}', False, ("call", [("search", Q)])),
    ("openai nested function, string arguments", '{"type": "function", "function": {"name": "search", "arguments": "{\\"query\\": \\"capital of France\\"}"}}', False, ("call", [("search", Q)])),
    ("langchain action/action_input", '{"action": "search", "action_input": "capital of France"}', False, ("call", [("search", Q)])),
    ("fenced json", '```json\n{"name": "search", "arguments": {"query": "capital of France"}}\n```', False, ("call", [("search", Q)])),
    ("fenced without language", '```\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```', False, ("call", [("get_weather", W)])),
    ("tool_call tags (qwen)", '<tool_call>\n{"name": "search", "arguments": {"query": "capital of France"}}\n</tool_call>', False, ("call", [("search", Q)])),
    ("tool_call tag never closed", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}', False, ("call", [("get_weather", W)])),
    # Recorded from Qwen2.5-Coder-1.5B (llama.cpp) with tools bound: it mimics the template's <tools>
    # block, doubles the braces, and goes on to invent the result; the call is what counts.
    ("qwen 1.5b: <tools> tag, doubled braces, invented result", 'To solve this, I\'ll use the calculator function:\n<tools>\n{{"name": "calculator", "arguments": {"expression": "347 * 29"}}}\n</tools>\nThe result of the calculation is: 10083', False, ("call", [("calculator", {"expression": "347 * 29"})])),
    # Recorded from Qwen2.5-Coder-1.5B (eval, native format): an invented answer, then the call as the answer.
    ("qwen 1.5b: the call given as the final answer", "Therefore, it is approximately **172.801 kilometres**.\n\nFinal answer: <{{\"name\": \"search\", \"arguments\": {\"query\": \"capital of France\"}}}>", False, ("call", [("search", Q)])),
    ("doubled braces, bare", '{{"name": "search", "arguments": {"query": "capital of France"}}}', False, ("call", [("search", Q)])),
    # Qwen2.5-Coder-1.5B in the text format gives inputs positionally, in the order of the signature
    # the prompt shows (text[upper, quiet harbour]): read them in that order.
    ("positional inputs, quoted comma", 'Thought: t\nAction: add["1,5", 3]', True, ("call", [("add", {"a": "1,5", "b": "3"})])),
    # With one required input, extra inputs count only when they fit their types (read_file["a.ini", 1, 1]).
    ("optional inputs positionally", 'Thought: t\nAction: read_lines["config/app.ini", 1, 5]', True, ("call", [("read_lines", {"path": "config/app.ini", "start": "1", "count": "5"})])),
    # the local model copied the listed signature, then gave the arguments as JSON (chat-follow-up, issue 41)
    ("the signature, then JSON arguments", 'Thought: t\nAction: add[a, b]{"a": 397.8, "b": 2}', True, ("call", [("add", {"a": 397.8, "b": 2})])),
    ("the signature, then JSON arguments it does not take", 'Thought: t\nAction: calculator[expression]{"operation": "*", "num1": 397.8, "num2": 2}', True, ("error", "invalid_parameters")),
    ("the signature as listed (placeholders), then JSON arguments", 'Thought: t\nAction: add[<a>, <b>]{"a": 397.8, "b": 2}', True, ("call", [("add", {"a": 397.8, "b": 2})])),
    ("a comma in a one-input text stays", "Thought: t\nAction: read_lines[notes, draft.txt]", True, ("call", [("read_lines", {"path": "notes, draft.txt"})])),
    ("optional text inputs do not split a text", "Thought: t\nAction: get_weather[Paris, TX]", True, ("call", [("get_weather", {"city": "Paris, TX"})])),
    ("all inputs optional: none given", "Thought: t\nAction: listing[]", True, ("call", [("listing", {})])),
    ("all inputs optional: the first given", "Thought: t\nAction: listing[src]", True, ("call", [("listing", {"path": "src"})])),
    ("calls need a separator between them", "Thought: t\nAction: search[a]calculator[b]", True, ("call", [("search", {"query": "a]calculator[b"})])),
    # Several calls on one Action line (Qwen2.5-Coder-1.5B: read_file[reports/q1.txt, 1, 3], read_file[...]).
    ("two calls on one action line", "Thought: t\nAction: read_lines[a.txt, 1, 3], read_lines[b.txt, 1, 3]", True, ("call", [("read_lines", {"path": "a.txt", "start": "1", "count": "3"}), ("read_lines", {"path": "b.txt", "start": "1", "count": "3"})])),
    ("calls joined by 'and', brackets inside", 'Thought: t\nAction: search[capital [France]] and calculator[2*3]', True, ("call", [("search", {"query": "capital [France]"}), ("calculator", {"expression": "2*3"})])),
    # ... or names them, keyword style (percentage_change[old=80, new=92]).
    ("named inputs", "Thought: t\nAction: add[b=3, a=4]", True, ("call", [("add", {"b": "3", "a": "4"})])),
    ("named inputs with colons, comma in a value", 'Thought: t\nAction: get_weather[city: "Paris, TX", unit=fahrenheit]', True, ("call", [("get_weather", {"city": "Paris, TX", "unit": "fahrenheit"})])),
    ("named single input keeps its commas", "Thought: t\nAction: calculator[expression=max(3, 4) * 2]", True, ("call", [("calculator", {"expression": "max(3, 4) * 2"})])),
    ("unknown input name stays positional text", "Thought: t\nAction: calculator[x=3]", True, ("call", [("calculator", {"expression": "x=3"})])),
    ("two tool_call tags", '<tool_call>{"name": "search", "arguments": {"query": "capital of France"}}</tool_call>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>', False, ("call", [("search", Q), ("get_weather", W)])),
    ("json list of calls", '[{"name": "search", "arguments": {"query": "capital of France"}}, {"name": "add", "arguments": {"a": 2, "b": 3}}]', False, ("call", [("search", Q), ("add", {"a": 2, "b": 3})])),
    ("two bare objects", 'First {"name": "search", "arguments": {"query": "capital of France"}} then {"name": "get_weather", "arguments": {"city": "Paris"}}', False, ("call", [("search", Q), ("get_weather", W)])),
    ("single quotes", "{'name': 'search', 'arguments': {'query': 'capital of France'}}", False, ("call", [("search", Q)])),
    ("trailing commas", '{"name": "search", "arguments": {"query": "capital of France",},}', False, ("call", [("search", Q)])),
    ("python literals", "{'name': 'add', 'arguments': {'a': 1, 'b': 2}, 'strict': True}", False, ("call", [("add", {"a": 1, "b": 2})])),
    ("json true/null", '{"name": "get_weather", "arguments": {"city": "Paris", "unit": null}, "stream": false}', False, ("call", [("get_weather", {"city": "Paris", "unit": None})])),
    ("prose around json", 'Sure! To answer, I will look it up.\n{"name": "search", "arguments": {"query": "capital of France"}}\nLet me know if you need more.', False, ("call", [("search", Q)])),
    ("prose then fenced json", "I need the weather first.\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", False, ("call", [("get_weather", W)])),
    ("tool name in other case", '{"name": "Search", "arguments": {"query": "capital of France"}}', False, ("call", [("search", Q)])),
    ("string argument for a one-input tool", '{"name": "search", "arguments": "capital of France"}', False, ("call", [("search", Q)])),
    ("final_answer as a json call", '{"name": "final_answer", "arguments": {"answer": "Paris"}}', False, ("answer", "Paris")),
    # -- Python-style calls ---------------------------------------------------------------------------
    ("python call, keyword", 'search(query="capital of France")', False, ("call", [("search", Q)])),
    ("python call, positional", "calculator('6*7')", False, ("call", [("calculator", {"expression": "6*7"})])),
    ("python call after prose", "I'll compute it.\nadd(2, 3)", False, ("call", [("add", {"a": 2, "b": 3})])),
    ("python call in tool_call tags", "<tool_call>get_weather(city='Paris')</tool_call>", False, ("call", [("get_weather", W)])),
    ("python calls on two lines", 'search("capital of France")\nget_weather("Paris")', False, ("call", [("search", Q), ("get_weather", W)])),
    # -- text ReAct -----------------------------------------------------------------------------------
    ("react bracket", "Thought: I should search.\nAction: search[capital of France]", True, ("call", [("search", Q)])),
    ("react action input", "Thought: I should search.\nAction: search\nAction Input: capital of France", True, ("call", [("search", Q)])),
    ("react json input", 'Thought: add them\nAction: add[{"a": 4, "b": 5}]', True, ("call", [("add", {"a": 4, "b": 5})])),
    ("react json action input", 'Thought: add them\nAction: add\nAction Input: {"a": 4, "b": 5}', True, ("call", [("add", {"a": 4, "b": 5})])),
    ("react numbered tags", "Thought 2: search it\nAction 2: search[capital of France]", True, ("call", [("search", Q)])),
    ("react invented observation is cut", "Thought: search\nAction: search[capital of France]\nObservation: Paris\nThought: done\nFinal Answer: Paris", True, ("call", [("search", Q)])),
    ("react action on the next line", "Thought: done\nAction:\n\nFinish[Paris]", True, ("answer", "Paris")),
    ("react finish", "Thought: I know it.\nAction: Finish[Paris]", True, ("answer", "Paris")),
    ("react final answer", "Thought: I know it.\nFinal Answer: Paris", True, ("answer", "Paris")),
    ("final answer in native mode", "Thought: I know it.\nFinal Answer: Paris", False, ("answer", "Paris")),
    ("plain answer", "The capital of France is Paris.", False, ("answer", "The capital of France is Paris.")),
    ("plain answer with data json", 'The record is {"name": "Alice", "age": 31}.', False, ("answer", 'The record is {"name": "Alice", "age": 31}.')),
    # Issue 28, Qwen2.5-Coder-1.5B on BFCL: the call announced in prose, its arguments alone in a JSON block, is the call;
    # a JSON object whose keys are not the named tool's inputs stays data.
    ("a call announced in prose, its arguments as JSON", "I will use the `get_weather` function. The arguments are:\n```json\n{\"city\": \"Paris\"}\n```", False, ("call", [("get_weather", W)])),
    ("the same in the text format", "I will use the `get_weather` function. The arguments are:\n```json\n{\"city\": \"Paris\"}\n```", True, ("call", [("get_weather", W)])),
    ("a tool named beside data that is not its arguments", 'The get_weather tool gave {"temp": 21, "sky": "clear"}.', False, ("answer", 'The get_weather tool gave {"temp": 21, "sky": "clear"}.')),
    # ... and a reply that lists the calls it would make is no answer: the model is asked to make them.
    ("the calls listed, not made", "I would make these calls:\n1. **get_weather** function:\n   - City: Paris\n   - Unit: celsius", False, ("error", "missing_action")),
    ("the calls listed, text format", "1. **get_weather** function:\n   - City: Paris", True, ("error", "missing_action")),
    # recorded on live_simple_1-1-0 (tool github_star): "GitHub star history" in prose is no mention of the tool
    ("a tool's words in prose are not its name", "To get weather data in code:\n```python\ncity = 'Paris'\n```", False, ("answer", "To get weather data in code:\n```python\ncity = 'Paris'\n```")),
    ("an answer that names a tool but gives it no inputs", "I used get_weather: it is sunny in Paris.", False, ("answer", "I used get_weather: it is sunny in Paris.")),
    # -- malformed: each becomes an error observation ------------------------------------------------
    ("empty content", "", False, ("answer", "")),
    ("truncated json", '{"name": "search", "arguments": {"query": "capital of', False, ("error", "malformed_output")),
    ("truncated tool_call tag", '<tool_call>\n{"name": "search", "arguments": {"query": "capi', False, ("error", "malformed_output")),
    # only the closing brackets missing: nothing is guessed, the call is read (langchain-core's parse_partial_json)
    ("json missing its closing braces", '{"name": "search", "arguments": {"query": "capital of France"}', False, ("call", [("search", Q)])),
    ("tool_call tag missing its outer brace", '<tool_call>\n{"name": "search", "arguments": {"query": "capital of France"}\n</tool_call>', False, ("call", [("search", Q)])),
    # recorded on Qwen2.5-Coder-1.5B: the call, then copies of it until the output cap cut the last one after its name
    ("a copy cut after its name is no second call", 'I search.\n```json\n{"name": "search", "arguments": {"query": "capital of France"}}\n```\nThe result is:\n```json\n{\n  "name": "search",', False, ("call", [("search", Q)])),
    ("broken json in fence", '```json\n{"name": "search", "arguments": {"query": "x": "y"}}\n```', False, ("error", "malformed_output")),
    ("unknown tool in json", '{"name": "browse", "arguments": {"url": "http://x"}}', False, ("error", "tool_not_found")),
    ("missing required argument", '{"name": "search", "arguments": {}}', False, ("error", "invalid_parameters")),
    ("missing one of two arguments", '{"name": "add", "arguments": {"a": 1}}', False, ("error", "invalid_parameters")),
    ("python call with a variable", "search(query=capital)", False, ("error", "malformed_output")),
    ("react unknown verb", "Thought: reflect\nAction: reflect[How can I improve my search strategy?]", True, ("error", "tool_not_found")),
    ("react missing closing bracket", "Thought: search\nAction: search[capital of France", True, ("error", "malformed_output")),
    ("react text after the bracket", "Thought: look\nAction: search[capital of France] on a different website", True, ("error", "malformed_output")),
    ("react bare word", "Thought: log in first\nAction: Login", True, ("error", "malformed_output")),
    ("react empty action", "Thought: hmm\nAction:", True, ("error", "malformed_output")),
    ("react several inputs not json", "Thought: add\nAction: add[1, 2]", True, ("call", [("add", {"a": "1", "b": "2"})])),
    ("react too many inputs", "Thought: add\nAction: add[1, 2, 3]", True, ("error", "invalid_parameters")),
    ("react thought only", "Thought: I should search for the capital.", True, ("error", "missing_action")),
    # Issue 28, the same model on BFCL's file system: a call written as a shell command is the call.
    ("react shell-style command", "Thought: add them\nAction: add 2 3", True, ("call", [("add", {"a": "2", "b": "3"})])),
    ("react shell-style, quoted input", "Thought: t\nAction: read_lines 'my notes.txt' 1 5", True, ("call", [("read_lines", {"path": "my notes.txt", "start": "1", "count": "5"})])),
    ("react shell-style, one input", "Thought: t\nAction: search 'capital of France'", True, ("call", [("search", Q)])),
    ("react words after a one-input tool are prose", "Thought: t\nAction: search the capital of France", True, ("error", "malformed_output")),
    ("react shell-style, too many inputs", "Thought: t\nAction: add 1 2 3", True, ("error", "malformed_output")),
    ("react sentence is no command", "Thought: t\nAction: I will search for it", True, ("error", "malformed_output")),
]


class TextOnlyModel(ScriptedChatModel):
    """A scripted model without native tool calling (``bind_tools`` is not implemented), like many
    small local models behind plain completion APIs."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this model has no tool calling")
