"""Every code block of the README and the docs runs, so none can go stale.

Python blocks run in order, as a reader types them: the README's first, then each page of docs/ (and examples/)
from what the README's blocks left, as a reader comes to a page from the README; a scripted model stands in for
every model named or defaulted (``CASES`` gives each block's replies, what it needs around it and what must hold
after it, found in whichever document holds the block); a block without a case, or a case without its block,
fails. A block that needs the ``langgraph dev`` server runs in tests/integration/test_server.py. Every
``reactgraph`` command line of the bash blocks parses with the command's own argument parser.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from reactgraph.cli import parser
from reactgraph.models.tokens import message_text
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "examples").rglob("*.md"))]
MCP_SERVER = ROOT / "tests" / "integration" / "mcp_server.py"


def blocks(language: str) -> list[tuple[str, str]]:
    """(document, code) of every ``language`` block of the documents, in order."""
    return [
        (doc.relative_to(ROOT).as_posix(), code)
        for doc in DOCUMENTS
        for code in re.findall(rf"^[ \t]*```{language}\n(.*?)^[ \t]*```", doc.read_text(), flags=re.DOTALL | re.MULTILINE)
    ]


# -- the scripted model ----------------------------------------------------------------------------


def text(messages: list[BaseMessage]) -> str:
    return "\n".join(message_text(m) for m in messages)


def results(messages: list[BaseMessage]) -> list[str]:
    """The tool results the prompt shows (native ToolMessages, or Observation lines of the text format)."""
    shown = [message_text(m) for m in messages if isinstance(m, ToolMessage)]
    return shown + re.findall(r"Observation: (.*)", text(messages))


def notes_or(reply: Callable[[list[BaseMessage]], Any]) -> Callable[[list[BaseMessage]], Any]:
    """``reply``, except for the summaries and partial answers a run may ask for on the way."""
    def answer(messages: list[BaseMessage]) -> Any:
        if "You keep the running notes" in text(messages[:1]) or "You keep the notes of a conversation" in text(messages[:1]):
            return "Notes: the steps so far."
        return reply(messages)
    return answer


@notes_or
def multiplying(messages: list[BaseMessage]) -> Any:
    """12.5 times 8 with the multiply tool, then the answer."""
    if any(r.strip() in ("100", "100.0") for r in results(messages)):
        return "12.5 times 8 is 100."
    return tool_call("multiply", {"a": 12.5, "b": 8}, thought="I multiply.")


@notes_or
def naming_the_tool(messages: list[BaseMessage]) -> Any:
    """12.5 times 8 with the multiply tool; the answer again, naming the tool, once a check asks for it."""
    if "Say which tool gave the number, by its name: multiply." in text(messages):
        return "12.5 times 8 is 100 (multiply)."
    return multiplying(messages)


@notes_or
def multiplying_twice(messages: list[BaseMessage]) -> Any:
    """Two iterations of tool results (12.5 * 8, then 100 * 1), then the answer: a run to fork after iteration 2."""
    found = results(messages)
    if len(found) >= 2:
        return "It is 100."
    if found:
        return tool_call("multiply", {"a": 100, "b": 1}, thought="Check it.")
    return tool_call("multiply", {"a": 12.5, "b": 8}, thought="I multiply.")


@notes_or
def remembering(messages: list[BaseMessage]) -> Any:
    """A conversation: the name, from the earlier turn the prompt shows (in the system prompt)."""
    if "What is my name?" in message_text(messages[-1]):
        return "Your name is Ada." if 'User: "My name is Ada."' in text(messages) else "I do not know."
    return "Nice to meet you, Ada."


@notes_or
def measuring(messages: list[BaseMessage]) -> Any:
    """A typed answer, after the multiply call."""
    if results(messages):
        return '{"value": 100, "unit": "m"}'
    return tool_call("multiply", {"a": 12.5, "b": 8})


@notes_or
def adding_products(messages: list[BaseMessage]) -> Any:
    """6*7 + 2*4: two multiply calls, then add, then the answer (3 turns)."""
    found = results(messages)
    if len(found) >= 3:
        return "6*7 + 2*4 = 50."
    if len(found) == 2:
        return tool_call("add", {"a": 42, "b": 8})
    return tool_calls([("multiply", {"a": 6, "b": 7}), ("multiply", {"a": 2, "b": 4})])


@notes_or
def delegating(messages: list[BaseMessage]) -> Any:
    """The lead asks the researcher (a sub-agent on the same scripted model), then multiplies its answer by 3."""
    question = next(message_text(m) for m in messages if isinstance(m, HumanMessage))
    if "Count the layers" in question:  # the researcher's run: its question is the lead's task
        return "The architecture has 13 layers."
    found = results(messages)
    if any("39" in r for r in found):
        return "13 layers times 3 is 39."
    if found:
        return tool_call("multiply", {"a": 13, "b": 3})
    return tool_call("researcher", {"task": "Count the layers of the architecture."})


@notes_or
def remembering_facts(messages: list[BaseMessage]) -> Any:
    """Long-term memory: save the fact on one thread; on another, recall it, then answer with it."""
    found = results(messages)
    if "What is my favourite colour?" in text(messages):
        return "Your favourite colour is green." if any("green" in r for r in found) else tool_call("recall_facts", {})
    return "Noted." if found else tool_call("save_fact", {"fact": "my favourite colour is green"})


@notes_or
def emailing(messages: list[BaseMessage]) -> Any:
    """send_email to Ann (a call that waits for approval), then the answer."""
    if results(messages):
        return "Done: " + results(messages)[-1]
    return tool_call("send_email", {"to": "ann@example.com", "body": "The report."})


# -- what each block needs ------------------------------------------------------------------------


@dataclass
class Case:
    """How one block runs: the replies of the model every model name resolves to, what to do before (in the
    namespace and the working directory) and what must hold after, and text substitutions for what the test
    cannot reach as written (each one says why)."""

    reply: Callable[[list[BaseMessage]], Any] | None
    check: Callable[[dict[str, Any], str], None] = lambda ns, out: None
    before: Callable[[dict[str, Any], Path], None] = lambda ns, cwd: None
    substitutions: dict[str, str] = field(default_factory=dict)
    server: bool = False  # runs against the langgraph dev server, in tests/integration/test_server.py


def check_first(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "12.5 times 8 is 100." and ns["result"].termination_reason.value == "success"
    step = ns["result"].trace.steps[0]
    assert (step.actions[0].tool, step.observation) == ("multiply", "100.0")
    assert out.startswith("12.5 times 8 is 100. success")
    limits = ns["agent"].config.limits
    assert (limits.max_iterations, limits.timeout_seconds) == (8, 120)  # the grouped options reached the agent


def check_grouped(ns: dict[str, Any], out: str) -> None:
    cfg = ns["agent"].config
    assert (cfg.limits.max_iterations, cfg.limits.timeout_seconds, cfg.tool_execution.timeout_seconds) == (8, 120, 10)
    assert cfg.tool_execution.max_retries == 1 and cfg.limits.token_budget is None  # the run's budget was the run's
    assert ns["result"].final_answer == "12.5 times 8 is 100."
    assert (ns["config"].model_settings.temperature, ns["config"].tool_calling) == (0.2, "text")


def check_terminate(ns: dict[str, Any], out: str) -> None:
    assert ns["agent"].run("What is 12.5 times 8?").final_answer == "12.5 times 8 is 100. (checked)"


def check_messages(ns: dict[str, Any], out: str) -> None:
    kinds = [type(m).__name__ for m in ns["state"]["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"], kinds
    assert out.rstrip().endswith("12.5 times 8 is 100. (checked) success")  # `agent` is the one above, with its terminate


def check_system_prompt(ns: dict[str, Any], out: str) -> None:
    sent = MODEL.current.calls[0]["messages"][0]
    assert isinstance(sent, SystemMessage) and sent.content.startswith("You are a terse calculator.")
    assert "Think before each call." in sent.content and "Final Answer: 12.5 times 8 is 100." in out


def check_conversation(ns: dict[str, Any], out: str) -> None:
    assert out.splitlines()[0].startswith("Your name is Ada. 2 ")
    assert [t.question for t in ns["agent"].conversation("t1")] == ["My name is Ada.", "What is my name?"]


def check_typed(ns: dict[str, Any], out: str) -> None:
    assert out.splitlines()[:2] == ["100.0 m", '{"value": 100, "unit": "m"}']
    assert ns["agent"].run("How far?").output.model_dump() == {"value": 100.0, "unit": "m"}  # the signature string's


def check_playbook(ns: dict[str, Any], out: str) -> None:
    assert out.startswith("strategies ['multiply', 'add'] 1 0 multiply(a=…, b=…), then add(a=…, b=…), then answered")


def before_isolation(ns: dict[str, Any], cwd: Path) -> None:
    package = cwd / "myproject"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tools.py").write_text(
        'def run_query(sql: str) -> str:\n    """Run a read-only query."""\n    return "3 rows"\n\n\n'
        'def render(text: str) -> str:\n    """Render a text."""\n    return text.upper()\n'
    )


def check_isolation(ns: dict[str, Any], out: str) -> None:
    assert {t.name: t.policy.isolation for t in ns["registry"].list()} == {"run_query": "process", "render": None}


def before_mcp(ns: dict[str, Any], cwd: Path) -> None:
    shutil.copy(MCP_SERVER, cwd / "math_server.py")


def check_mcp(ns: dict[str, Any], out: str) -> None:
    assert {"math_add", "weather_add"} <= {t.name for t in ns["tools"]}  # a name both servers have: prefixed


def check_subagent(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "13 layers times 3 is 39."
    assert ns["result"].trace.steps[0].observations[0].trace.final_result == "The architecture has 13 layers."


def check_approval(ns: dict[str, Any], out: str) -> None:
    assert ns["paused"].termination_reason.value == "approval" and ns["call"].tool == "send_email"
    assert ns["agent"].get_result(ns["paused"].thread_id).final_answer == "Done: sent to ann@example.com"
    from reactgraph.testing import SENT_EMAILS

    assert SENT_EMAILS[-1] == {"to": "ann@example.com", "body": "The report."}  # the approved call ran, once


def before_dotenv(ns: dict[str, Any], cwd: Path) -> None:
    (cwd / ".env").write_text("OPENAI_API_KEY=sk-from-the-env-file\n")


def check_dotenv(ns: dict[str, Any], out: str) -> None:
    import os

    assert os.environ["OPENAI_API_KEY"] == "sk-from-the-env-file"
    from reactgraph.models.resolve import check_model

    check_model("openai:gpt-4o-mini")  # the real client starts with the key .env gave


def check_tracing(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "12.5 times 8 is 100."
    stored = ns["agent"].run_info(ns["result"].thread_id).metadata  # the run's config reached its checkpoints
    assert (stored["user"], stored["run_name"] if "run_name" in stored else "pricing") == ("ann", "pricing")


def check_checkpoints(ns: dict[str, Any], out: str) -> None:
    assert ns["agent"].get_result("job-1").final_answer == "It is 100."
    assert [run.thread_id for run in ns["agent"].list_runs()][0] == "job-1"


def check_make_graph(ns: dict[str, Any], out: str) -> None:
    assert ns["graph"].invoke({"query": "What is 12.5 times 8?"})["final_answer"] == "12.5 times 8 is 100."


def check_reply_checks(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "12.5 times 8 is 100 (multiply)."
    assert out.strip() == "12.5 times 8 is 100 (multiply). ['names_the_tool']"


def check_testing(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "12 and 30"


def check_memory(ns: dict[str, Any], out: str) -> None:
    assert out.strip() == "Your favourite colour is green."
    recalled = ns["result"].trace.steps[0]
    assert (recalled.actions[0].tool, recalled.observation) == ("recall_facts", "my favourite colour is green")
    assert ns["agent"].graph.store.get(("facts", "ada"), "0").value == {"fact": "my favourite colour is green"}


def check_middleware(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].final_answer == "12.5 times 8 is 100."
    prompts = [text(call["messages"]) for call in MODEL.current.calls]
    assert prompts and all("ann@example.com" not in p and "[REDACTED_EMAIL]" in p for p in prompts)
    assert out.startswith("model call: ") and "PIIMiddleware[email].before_model" in out


CASES: dict[str, Case] = {  # a piece of each block's text -> how it runs
    'agent = ReActAgent(tools=[multiply, add], limits=Limits(max_iterations=8': Case(multiplying, check_first),
    "tool_execution=ToolExecution(timeout_seconds=10": Case(multiplying, check_grouped),
    'nodes={"terminate": make_checked_terminate}': Case(multiplying, check_terminate),
    'graph.invoke({"messages": [HumanMessage(': Case(multiplying, check_messages),
    'system_prompt="You are a terse calculator. Use multiply': Case(multiplying, check_system_prompt),
    'agent.run("My name is Ada.", thread_id="t1")': Case(remembering, check_conversation),
    "output_schema=Distance": Case(measuring, check_typed),
    "playbook=True)": Case(adding_products, check_playbook),
    "from myproject.tools import render, run_query": Case(None, check_isolation, before_isolation),
    "load_mcp_tools({": Case(None, check_mcp, before_mcp, substitutions={
        # no HTTP MCP server runs here: the second server is another stdio one (test_mcp.py tests the transports)
        '{"url": "http://localhost:8000/mcp"}': '{"command": "python", "args": ["math_server.py"]}',
    }),
    "registry.register_agent(researcher": Case(delegating, check_subagent, substitutions={
        'documents="docs/"': f'documents={str(ROOT / "docs")!r}',  # the repository's docs
    }),
    'approve_tools=["send_email"]': Case(emailing, check_approval),
    'PIIMiddleware("email", strategy="redact")': Case(multiplying, check_middleware),
    "def save_fact(fact: str, runtime: ToolRuntime[User])": Case(remembering_facts, check_memory),
    "load_dotenv()": Case(multiplying, check_dotenv, before_dotenv),
    'config={"run_name": "pricing"': Case(multiplying, check_tracing),
    'agent.fork("job-1", iteration=2': Case(multiplying_twice, check_checkpoints),
    "graph = make_graph(tools=[multiply, add]": Case(multiplying, check_make_graph),
    "get_sync_client(": Case(None, server=True),
    "model = ScriptedChatModel(responses=[": Case(None, check_testing),
    "reply_checks=[*DEFAULT_REPLY_CHECKS, names_the_tool]": Case(naming_the_tool, check_reply_checks),
}


def case_of(code: str) -> tuple[str, Case]:
    found = [(key, case) for key, case in CASES.items() if key in code]
    assert len(found) == 1, f"a code block needs exactly one case in CASES, found {len(found)}:\n{code}"
    return found[0]


class ModelStandIn:
    """What every model name (the default, 'openai:...', ...) resolves to while a block runs."""

    current: ScriptedChatModel | None = None


MODEL = ModelStandIn()


@pytest.fixture
def scripted_models(monkeypatch):
    """Every model made from a name is the current block's scripted model; the default model needs no Ollama."""
    monkeypatch.setattr("reactgraph.graph.deps.NodeDeps._by_name", lambda deps, name, cfg: MODEL.current)
    monkeypatch.setattr("reactgraph.agent._preparing.default_model", lambda default: default)
    monkeypatch.setattr("reactgraph.graph.deps.default_model", lambda default: default)  # agent.graph's own pick
    monkeypatch.setattr("reactgraph.models.resolve.check_ollama", lambda name, timeout=3.0, how="cli": None)


def test_every_block_has_its_case_and_every_case_its_block():
    keys = [case_of(code)[0] for _, code in blocks("python")]
    assert sorted(keys) == sorted(CASES), "a case whose block is gone: remove it"


def test_the_python_blocks_run_in_order_as_written(scripted_models, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{__import__('os').environ['PATH']}")  # `python`
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    readme: dict[str, Any] = {"__name__": "readme"}
    namespaces: dict[str, dict[str, Any]] = {"README.md": readme}
    for number, (document, code) in enumerate(blocks("python")):
        namespace = namespaces.setdefault(document, dict(readme))  # a page starts from what the README left
        key, case = case_of(code)
        if case.server:
            continue
        for old, new in case.substitutions.items():
            assert old in code, f"{document}: the substitution {old!r} no longer matches its block"
            code = code.replace(old, new)
        MODEL.current = ScriptedChatModel(responses=[case.reply], repeat_last=True) if case.reply else None
        case.before(namespace, tmp_path)
        script = tmp_path / f"block_{number}.py"  # a file, as the reader's script is (load_dotenv looks beside it)
        script.write_text(dedent(code))
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            exec(compile(script.read_text(), str(script), "exec", dont_inherit=True), namespace)  # noqa: S102 (as a script runs: no future import of this file)
        case.check(namespace, shown.getvalue())
    for name in ("myproject", "myproject.tools"):
        sys.modules.pop(name, None)


def dedent(code: str) -> str:
    """A block indented under a list item, as written at the top level."""
    import textwrap

    return textwrap.dedent(code)


# -- the command lines --------------------------------------------------------------------------------


def command_lines() -> list[tuple[str, str]]:
    """Every ``reactgraph ...`` line of the bash blocks (a line ending in ``\\`` joined to the next), its comment
    cut, an optional ``[...]`` part left out and the first of ``a | b`` alternatives kept."""
    lines = []
    for document, code in blocks("bash"):
        for line in re.sub(r"\\\n\s*", " ", code).splitlines():
            line = line.strip()
            if not line.startswith("reactgraph "):
                continue
            line = re.sub(r"\s+\[[^\]]*\]", "", line)
            line = line.split(" | ")[0]
            lines.append((document, line))
    return lines


def test_there_are_command_lines_to_check():
    assert len(command_lines()) > 20


@pytest.mark.parametrize(("document", "line"), command_lines(), ids=[line for _, line in command_lines()])
def test_every_command_line_parses(document, line):
    words = shlex.split(line, comments=True)[1:]
    try:
        parser().parse_args(words)
    except SystemExit as end:
        if words != ["--version"]:
            pytest.fail(f"{document}: `{line}` does not parse (exit {end.code})")


def test_the_fresh_clone_script_and_ci_run_the_readme_s_two_commands():
    import importlib.util

    spec = importlib.util.spec_from_file_location("fresh_clone", ROOT / "benchmarks" / "fresh_clone.py")
    fresh_clone = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh_clone)
    first, tests = fresh_clone.setup_commands((ROOT / "README.md").read_text())
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && reactgraph run ")
    assert tests.endswith("python -m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -q -e ".[dev]"' in ci and ci.rstrip().endswith(tests.rsplit("&& ", 1)[1])


def test_the_readme_is_the_first_hour_one_link_from_every_page():
    """Under ~300 lines, and every page of docs/ one link away (mkdocs' strict build checks the links resolve)."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    linked = set(re.findall(r"\]\(docs/([^)#]+\.md)", readme))
    assert {page.name for page in (ROOT / "docs").glob("*.md")} <= linked
