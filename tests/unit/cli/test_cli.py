"""The `reactgraph` command, run through its installed entry point in a subprocess.

Models and tools come from tests/integration/cli_fixtures.py via `--model module:factory`
and `--tools module:attribute`.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
REACTGRAPH = Path(sys.executable).with_name("reactgraph")
CAP = 300  # seconds a CLI subprocess may take: a cap, not a timing (a loaded machine took over 60, then over 120)
FIXTURES = "tests.integration.cli_fixtures"
MODEL = {
    name: f"{FIXTURES}:{name}"
    for name in ("answering", "writing", "asking", "deciding", "looping", "giving_up", "not_a_model", "typing")
}
TOOLS = f"{FIXTURES}:TOOLS"


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "cli.sqlite"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("COLUMNS", None)
    return subprocess.run([str(REACTGRAPH), *args], capture_output=True, text=True, env=full_env, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=CAP)


def test_run_shows_steps_live_then_answer_and_footer(db):
    done = cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "t1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Thought (iteration 1): I look Paris up." in lines
    assert '  -> lookup {"key": "paris"}' in lines
    assert "  <- lookup: France" in lines
    assert "Answer: Paris is in France." in lines
    assert lines[-1].startswith("success | 2 iterations | ") and lines[-1].endswith("| thread t1")
    assert " | confidence 0.90 | " in lines[-1]  # the answer's word 'France' is in the lookup's result
    assert lines.index("  -> lookup {\"key\": \"paris\"}") < lines.index("  <- lookup: France") < lines.index("Answer: Paris is in France.")


def test_a_sub_agents_steps_show_indented_live_and_in_the_trace(db):
    geographer = "tests.integration.cli_fixtures:GEOGRAPHER"
    done = cli("run", "Where is Paris?", "--model", f"{FIXTURES}:delegating", "--tools", geographer, "--db", str(db), "--thread", "sub")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    shown = [
        '  -> geographer {"task": "Where is Paris?"}',
        "    Thought (iteration 1): I look Paris up.",
        '      -> lookup {"key": "paris"}',
        "      <- lookup: France",
        "  <- geographer: Paris is in France.",
        "Answer: The geographer says: Paris is in France.",
    ]
    assert [line for line in lines if line in shown] == shown
    text = cli("trace", "sub", "--db", str(db)).stdout.splitlines()
    assert text[:8] == [
        "Question: Where is Paris?",
        "Thought: The geographer knows.",
        "Action: geographer[Where is Paris?]",
        "    Thought: I look Paris up.",
        "    Action: lookup[paris]",
        "    Observation: France",
        "    Final Answer: Paris is in France.",
        "Observation: Paris is in France.",
    ]
    markdown = cli("trace", "sub", "--db", str(db), "--format", "markdown").stdout
    assert '> ### Iteration 1\n>\n> **Thought:** I look Paris up.\n>\n> - **lookup** `{"key": "paris"}` → ok' in markdown


def test_run_says_when_the_model_moves_to_the_text_format(db):
    switch = "the model writes its tool calls as text: the text format from the next turn on"
    done = cli("run", "Where is Paris?", "--model", MODEL["writing"], "--tools", TOOLS, "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert switch in done.stdout.splitlines() and "Answer: Paris is in France." in done.stdout
    fixed = cli("run", "Where is Paris?", "--model", MODEL["writing"], "--tools", TOOLS, "--db", str(db), "--tool-calling", "native", "--json")
    result = json.loads(fixed.stdout)
    assert [s["format"] for s in result["trace"]["steps"]] == ["native", "native"]


def test_run_json_prints_the_structured_result(db):
    done = cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["final_answer"] == "Paris is in France." and result["termination_reason"] == "success"
    assert result["trace"]["steps"][0]["actions"][0]["args"] == {"key": "paris"}
    assert result["thread_id"]


def test_run_with_an_output_schema_prints_the_typed_output(db):
    schema = ("--output-schema", "question -> country: str, known: bool")
    done = cli("run", "Where is Paris?", "--model", MODEL["typing"], "--tools", TOOLS, "--db", str(db), *schema)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert 'Output: {"country": "France", "known": true}' in lines  # the model saw the shape, the answer was typed
    assert lines.index('Answer: {"country": "France", "known": true}') < lines.index('Output: {"country": "France", "known": true}')
    as_json = json.loads(cli("run", "Where is Paris?", "--model", MODEL["typing"], "--tools", TOOLS, "--db", str(db), "--json", *schema,
                             "--thread", "typed").stdout)
    assert as_json["output"] == {"country": "France", "known": True}
    traced = json.loads(cli("trace", "typed", "--format", "json", "--db", str(db)).stdout)  # read back without the schema
    assert traced["output"] == {"country": "France", "known": True}
    plain = cli("run", "Where is Paris?", "--model", MODEL["typing"], "--tools", TOOLS, "--db", str(db))
    assert "Answer: Paris is in France." in plain.stdout and "Output:" not in plain.stdout


def test_resume_keeps_the_runs_output_schema(db):
    asked = cli("run", "Pick a city", "--model", MODEL["asking"], "--db", str(db), "--thread", "c1", "--output-schema", "city: str")
    assert asked.returncode == 3, asked.stderr
    answered = cli("resume", "c1", "--answer", "Rome", "--db", str(db))
    assert answered.returncode == 0, answered.stderr
    assert 'Output: {"city": "You chose Rome."}' in answered.stdout.splitlines()


def test_clarification_without_terminal_exits_3_then_resume_answers(db):
    asked = cli("run", "Pick a city", "--model", MODEL["asking"], "--db", str(db), "--thread", "c1")
    assert asked.returncode == 3, asked.stderr
    assert "The agent asks: Paris or Rome?" in asked.stdout
    assert 'reactgraph resume c1 --answer "..."' in asked.stdout
    answered = cli("resume", "c1", "--answer", "Rome", "--db", str(db))  # the run's --model is remembered
    assert answered.returncode == 0, answered.stderr
    assert "Answer: You chose Rome." in answered.stdout


def in_terminal(args: list[str], replies: list[tuple[bytes, bytes]]) -> tuple[str, int, str, list]:
    """Run ``reactgraph ARGS`` on a pseudo-terminal, typing each reply once its prompt is on screen;
    the screen, the exit code, stderr and the replies whose prompt never came."""
    replies = list(replies)
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb"}
    proc = subprocess.Popen([str(REACTGRAPH), *args], stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + CAP
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            if replies and replies[0][0] in seen:
                os.write(master, replies.pop(0)[1])
            if proc.poll() is not None and not ready:
                break
        proc.wait(timeout=CAP)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return seen.decode(errors="replace"), proc.returncode, proc.stderr.read().decode(errors="replace"), replies


def test_clarification_with_terminal_prompts_and_continues(db):
    text, code, err, unanswered = in_terminal(
        ["run", "Pick a city", "--model", MODEL["asking"], "--db", str(db)], [(b"Your answer", b"Rome\n")]
    )
    assert not unanswered, text
    assert "Paris or Rome?" in text and "You chose Rome." in text
    assert code == 0, err


def test_approval_without_terminal_exits_3_then_resume_approves_rejects_or_edits(db, tmp_path):
    calls = tmp_path / "calls.log"
    env = {"CLI_FIXTURE_CALL_LOG": str(calls)}
    for thread in ("a1", "a2", "a3"):
        waiting = cli("run", "Where is Paris?", "--model", MODEL["deciding"], "--tools", TOOLS, "--approve-tools", "lookup",
                      "--db", str(db), "--thread", thread, env=env)
        assert waiting.returncode == 3, waiting.stderr
        assert "Waiting for approval: lookup {\"key\": \"paris\"} (call " in waiting.stdout
        assert f"""Decide with: reactgraph resume {thread} --approve | --reject "reason" | --edit '{{"key": "paris"}}'""" in waiting.stdout
    assert not calls.exists()  # nothing ran yet

    approved = cli("resume", "a1", "--approve", "--db", str(db), env=env)
    assert approved.returncode == 0, approved.stderr
    assert "Answer: Paris is in France." in approved.stdout
    rejected = cli("resume", "a2", "--reject", "not today", "--db", str(db), env=env)
    assert rejected.returncode == 0, rejected.stderr
    assert "Answer: I was not allowed to look it up." in rejected.stdout and "not today" in rejected.stdout
    edited = cli("resume", "a3", "--edit", '{"key": "rome"}', "--db", str(db), env=env)
    assert edited.returncode == 0, edited.stderr
    assert "Answer: You had me look Rome up: Italy." in edited.stdout
    assert calls.read_text().split() == ["paris", "rome"]  # approved once, rejected never, edited with its new args


def test_approval_usage_errors_exit_2(db):
    typo = cli("run", "Where is Paris?", "--model", MODEL["deciding"], "--tools", TOOLS, "--approve-tools", "lokup", "--db", str(db))
    assert typo.returncode == 2 and "approve_tools: no tool named 'lokup' (did you mean 'lookup'?)" in typo.stderr
    cli("run", "Where is Paris?", "--model", MODEL["deciding"], "--tools", TOOLS, "--approve-tools", "*", "--db", str(db), "--thread", "w")
    bad_json = cli("resume", "w", "--edit", "{key: rome}", "--db", str(db))
    assert bad_json.returncode == 2 and "--edit: not JSON" in bad_json.stderr
    assert cli("resume", "w", "--approve", "--db", str(db)).returncode == 0
    finished = cli("resume", "w", "--approve", "--db", str(db))
    assert finished.returncode == 2 and "run w is not waiting for an approval" in finished.stderr
    assert "Traceback" not in typo.stderr + bad_json.stderr + finished.stderr


def test_approval_with_terminal_asks_for_each_call(db):
    text, code, err, unanswered = in_terminal(
        ["run", "Where is Paris?", "--model", MODEL["deciding"], "--tools", TOOLS, "--approve-tools", "lookup", "--db", str(db)],
        [(b"Approve, edit or reject?", b"e\n"), (b"New arguments", b"not json\n"), (b"not JSON", b'{"key": "rome"}\n')],
    )
    assert not unanswered, text
    assert "You had me look Rome up: Italy." in text
    assert code == 0, err


def test_limit_prints_partial_answer_and_exits_4(db):
    done = cli("run", "Loop", "--model", MODEL["looping"], "--tools", TOOLS, "--db", str(db), "--max-iterations", "2")
    assert done.returncode == 4, done.stderr
    assert "Partial answer: Partial: Paris is in France, Rome unchecked." in done.stdout
    assert "Stopped: reached max_iterations=2" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("max_iterations | 2 iterations")


def test_model_giving_up_exits_4_no_answer_as_a_limit_does(db):
    done = cli("run", "Impossible", "--model", MODEL["giving_up"], "--db", str(db))
    assert done.returncode == 4
    assert "failure |" in done.stdout


def test_unreachable_ollama_gives_the_clear_message_and_exits_1(db):
    done = cli("run", "Hello", "--db", str(db), env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert done.returncode == 1
    assert "Ollama is not reachable at http://127.0.0.1:9" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["run"], "the following arguments are required: question"),
        (["run", "q", "--tools", "calculator,no_such_tool"], "no tool named 'no_such_tool'; available: calculator, "),
        (["run", "q", "--max-iterations", "0", "--model", MODEL["answering"]], "max_iterations"),
        (["run", "q", "--model", MODEL["not_a_model"]], "not a chat model"),
        (["run", "q", "--output-schema", "question -> answer: flot"], "--output-schema: signature 'question -> answer: flot': unknown type 'flot'"),
        (["trace", "t", "--format", "yaml"], "invalid choice: 'yaml'"),
    ],
)
def test_usage_errors_exit_2(db, args, message):
    done = cli(*args, "--db", str(db))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_runs_lists_every_run(db):
    cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "r1")
    cli("run", "Pick a city", "--model", MODEL["asking"], "--db", str(db), "--thread", "r2")
    table = cli("runs", "--db", str(db))
    assert table.returncode == 0, table.stderr
    rows = [line for line in table.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 2
    assert "r2" in rows[0] and "waiting" in rows[0] and "clarification" in rows[0]
    assert "r1" in rows[1] and "Where is Paris?" in rows[1] and "finished" in rows[1] and "success" in rows[1]
    listed = json.loads(cli("runs", "--db", str(db), "--json").stdout)
    assert [(r["thread_id"], r["status"], r["iterations"]) for r in listed] == [("r2", "waiting", 1), ("r1", "finished", 2)]


def test_trace_in_three_formats(db):
    cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "tr")
    text = cli("trace", "tr", "--db", str(db))
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:4] == [
        "Question: Where is Paris?",
        "Thought: I look Paris up.",
        "Action: lookup[paris]",
        "Observation: France",
    ]
    data = json.loads(cli("trace", "tr", "--db", str(db), "--format", "json").stdout)
    assert data["final_answer"] == "Paris is in France." and data["trace"]["steps"][0]["observations"][0]["content"] == "France"
    markdown = cli("trace", "tr", "--db", str(db), "--format", "markdown").stdout
    assert markdown.startswith("# Run tr\n")
    assert "## Iteration 1" in markdown and '- **lookup** `{"key": "paris"}` → ok' in markdown
    assert "**Answer:** Paris is in France." in markdown
    assert "- confidence: 0.90" in markdown
    missing = cli("trace", "nope", "--db", str(db))
    assert missing.returncode == 1 and "no run with thread id 'nope'" in missing.stderr


def test_run_with_a_thread_asks_its_next_turn_and_trace_shows_every_turn(db):
    first = cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "conv")
    second = cli("run", "And Paris again?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "conv")
    assert (first.returncode, second.returncode) == (0, 0), second.stderr
    assert "success | turn 2 |" in second.stdout
    text = cli("trace", "conv", "--db", str(db)).stdout.splitlines()
    assert [line for line in text if line.startswith(("Turn ", "Question: "))] == [
        "Turn 1", "Question: Where is Paris?", "Turn 2", "Question: And Paris again?"
    ]
    data = json.loads(cli("trace", "conv", "--db", str(db), "--format", "json").stdout)
    assert data["turn"] == 2 and [t["question"] for t in data["earlier_turns"]] == ["Where is Paris?"]
    markdown = cli("trace", "conv", "--db", str(db), "--format", "markdown").stdout
    assert "## Turn 1" in markdown and "## Turn 2" in markdown and "### Iteration 1" in markdown


def test_a_new_question_on_a_waiting_thread_is_a_usage_error_naming_resume(db):
    asked = cli("run", "Pick a city", "--model", MODEL["asking"], "--db", str(db), "--thread", "w1")
    assert asked.returncode == 3
    again = cli("run", "Something else", "--model", MODEL["asking"], "--db", str(db), "--thread", "w1")
    assert again.returncode == 2 and "reactgraph resume w1 --answer" in again.stderr and "Traceback" not in again.stderr


def test_tools_lists_name_category_description(db):
    done = cli("tools", "--tools", TOOLS, "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["lookup"]["description"] == "Look a city up and return its country."
    assert rows["lookup"]["category"] == "user"
    assert rows["calculator"]["category"] == "basic"  # the built-ins are listed too
    table = cli("tools", "--tools", TOOLS)
    assert any("lookup" in line and "Look a city up" in line for line in table.stdout.splitlines())


def test_corrupt_database_exits_1_naming_the_file(db):
    db.write_bytes(b"garbage" * 1000)
    done = cli("runs", "--db", str(db))
    assert done.returncode == 1
    assert str(db) in done.stderr and "not a database" in done.stderr
    assert "Traceback" not in done.stderr
    assert db.read_bytes() == b"garbage" * 1000


def test_tools_lists_every_builtin_and_what_an_unset_one_needs(tmp_path, db):
    from reactgraph.tools.builtin import BUILTINS

    rows = {row["name"]: row for row in json.loads(cli("tools", "--json").stdout)}
    assert set(BUILTINS) <= set(rows)
    assert rows["search_documents"]["needs"] == "--documents PATH" and "Full-text search" in rows["search_documents"]["description"]
    assert rows["calculator"]["needs"] is None
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "roof.txt").write_text("The solar panels on the roof are 21% efficient.")
    rows = {row["name"]: row for row in json.loads(cli("tools", "--json", "--documents", str(tmp_path / "notes")).stdout)}
    assert rows["search_documents"]["needs"] is None
    done = cli("run", "How efficient are the panels?", "--model", f"{FIXTURES}:searching", "--tools", "search_documents",
               "--documents", str(tmp_path / "notes"), "--db", str(db), "--thread", "s")
    assert done.returncode == 0, done.stderr
    assert "<- search_documents: " in done.stdout and "Answer: The panels are 21% efficient." in done.stdout
    assert cli("run", "?", "--tools", "search_documents", "--db", str(db)).returncode == 2  # not offered without documents


def test_tools_option_selects_builtins_by_name(db):
    done = cli("run", "What is 6*7?", "--model", f"{FIXTURES}:calculating", "--tools", "calculator", "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["final_answer"] == "6*7 = 42"
    assert result["tool_usage"] == {"calculator": 1}


def test_live_view_shows_summary_updates_failed_calls_and_answers_sent_back():
    from io import StringIO

    from rich.console import Console

    from reactgraph import AgentConfig
    from reactgraph.commands.live import LiveView
    from reactgraph.graph.nodes._act import rejected, reported
    from reactgraph.tools.execution import error_outcome, ok_outcome

    out = StringIO()
    view = LiveView(Console(file=out, width=80, highlight=False, soft_wrap=True))  # as main() builds it
    call, cfg = {"id": "c1", "tool": "lookup", "args": {}, "index": 0}, AgentConfig(max_observation_tokens=1000)
    view.show("act", reported(error_outcome(call, "timeout", "Error (timeout): took too long"), cfg))
    view.show("summarize", {"summary": "Paris is in France; Rome unchecked."})
    view.show("act", reported(ok_outcome(call, "y" * 1000), cfg))
    unread = {"id": "r", "tool": "", "args": {}, "index": 0, "rejection": "Your reply could not be read."}
    assert reported(rejected(unread), cfg) == {}  # a call without a tool: act writes nothing, observe's step shows it
    view.show("observe", {"steps": [{"observations": [{"tool": "", "status": "error", "content": "Your reply could not be read."}]}]})
    check = {"tool": "", "status": "error", "error_kind": "unverified_answer", "content": "Not accepted yet: check it."}
    view.show("observe", {"steps": [{"answer": "17.0", "observations": [check]}]})
    assert out.getvalue().splitlines() == [
        "  <- lookup: Error (timeout): took too long",
        "Summary updated: Paris is in France; Rome unchecked.",
        "  <- lookup: " + "y" * 400 + "... [1000 chars]",
        "  <- note: Your reply could not be read.",
        "  answer given: 17.0",
        "  <- check: Not accepted yet: check it.",
    ]


def test_resume_after_sigkill_uses_the_runs_model_and_tools(db, tmp_path):
    calls, blocked = tmp_path / "calls.log", tmp_path / "blocked"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CLI_FIXTURE_CALL_LOG": str(calls), "CLI_FIXTURE_BLOCK_FILE": str(blocked)}
    proc = subprocess.Popen(
        [str(REACTGRAPH), "run", "Where is Paris?", "--model", f"{FIXTURES}:blocking", "--tools", TOOLS, "--db", str(db), "--thread", "k"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT,
    )
    deadline = time.monotonic() + CAP
    while not blocked.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()  # SIGKILL while the model is answering
    proc.wait(timeout=CAP)
    proc.stderr.close()
    assert blocked.exists() and calls.read_text().split() == ["paris"]
    assert "interrupted" in cli("runs", "--db", str(db)).stdout

    resumed = cli("resume", "k", "--db", str(db), env={"CLI_FIXTURE_CALL_LOG": str(calls)})
    assert resumed.returncode == 0, resumed.stderr
    assert "Answer: Paris is in France." in resumed.stdout
    assert calls.read_text().split() == ["paris"]  # the lookup before the kill was not run again


# -- rough edges (issue 13) ----------------------------------------------------------------


def test_runs_at_100_columns_keeps_whole_thread_ids_and_reasons(db):
    thread = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    question = "Where is Paris? Look it up in the table of capitals and name the country."
    assert cli("run", question, "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", thread).returncode == 0
    for columns in ("100", "60"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": columns}  # cli() drops COLUMNS
        shown = subprocess.run([str(REACTGRAPH), "runs", "--db", str(db)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=CAP)
        assert shown.returncode == 0, shown.stderr
        assert thread in shown.stdout and "success" in shown.stdout and "finished" in shown.stdout
        assert "Where is" in shown.stdout  # the question column is folded, not dropped


def test_run_names_its_thread_first_and_ctrl_c_says_how_to_resume(db, tmp_path):
    block = tmp_path / "blocked"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CLI_FIXTURE_BLOCK_FILE": str(block)}
    proc = subprocess.Popen(  # Ctrl-C as a shell's foreground command gets it, also when these tests run in the background
        [str(REACTGRAPH), "run", "Where is Paris?", "--model", f"{FIXTURES}:blocking", "--tools", TOOLS, "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a `cmd &` without job control ignores SIGINT
    )
    deadline = time.monotonic() + CAP
    while not block.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # as Ctrl-C
    out, err = proc.communicate(timeout=CAP)
    thread = out.splitlines()[0].removeprefix("thread ").strip()
    assert len(thread) == 32 and f"continue with `reactgraph resume {thread}`" in err
    assert proc.returncode == 130  # interrupted: not 1 (an error) nor 4 (a run that ended without an answer)
    [row] = json.loads(cli("runs", "--db", str(db), "--json").stdout)
    assert (row["thread_id"], row["status"]) == (thread, "interrupted")


def test_a_run_cancelled_from_another_process_exits_4(db, tmp_path):
    block = tmp_path / "blocked"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CLI_FIXTURE_BLOCK_FILE": str(block)}
    proc = subprocess.Popen(
        [str(REACTGRAPH), "run", "Where is Paris?", "--model", f"{FIXTURES}:blocking", "--tools", TOOLS, "--db", str(db), "--thread", "c"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + CAP
    while not block.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert cli("cancel", "c", "--db", str(db)).returncode == 0
    out, err = proc.communicate(timeout=CAP)
    assert proc.returncode == 4, err
    assert out.splitlines()[-1].startswith("cancelled |")


def test_fork_runs_a_thread_again_from_an_iteration_with_other_options(db, tmp_path):
    calls = tmp_path / "calls.log"
    env = {"CLI_FIXTURE_CALL_LOG": str(calls)}
    cut = cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "f",
              "--max-iterations", "1", env=env)
    assert cut.returncode == 4, cut.stderr  # stopped after the lookup
    forked = cli("fork", "f", "--iteration", "1", "--max-iterations", "3", "--db", str(db), env=env)
    assert forked.returncode == 0, forked.stderr
    assert "Answer: Paris is in France." in forked.stdout  # the same model and tools as the run, a higher limit
    assert calls.read_text().split() == ["paris"]  # the lookup of iteration 1 was not run again
    [row] = json.loads(cli("runs", "--db", str(db), "--json").stdout)
    assert (row["thread_id"], row["status"], row["reason"]) == ("f", "finished", "success")
    missing = cli("fork", "f", "--iteration", "7", "--db", str(db))
    assert missing.returncode == 2 and "cannot fork after iteration 7 of turn 1: it has tool results for iterations [1]" in missing.stderr
    first = cli("fork", "f", "--query", "Where is Rome?", "--db", str(db))
    assert first.returncode == 2 and "turn 1 has no turn before it" in first.stderr
    assert cli("fork", "f", "--db", str(db)).returncode == 2  # a point is required


def test_the_env_file_in_the_current_directory_is_read_and_the_environment_wins(tmp_path):
    (tmp_path / ".env").write_text(f"REACTGRAPH_DB={tmp_path / 'from-env-file.sqlite'}\nOLLAMA_HOST=http://127.0.0.1:1\n")
    env = {k: v for k, v in os.environ.items() if k != "REACTGRAPH_DB"} | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run([str(REACTGRAPH), "run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS],
                          capture_output=True, text=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=CAP)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "from-env-file.sqlite").exists()  # REACTGRAPH_DB from .env
    done = subprocess.run([str(REACTGRAPH), "run", "Hi"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, timeout=CAP)
    assert done.returncode == 1 and "http://127.0.0.1:9" in done.stderr  # OLLAMA_HOST of the environment, not .env's


def test_help_lists_the_exit_codes():
    shown = cli("--help").stdout
    for line in ("0    answered", "1    error", "2    usage error", "3    the run waits", "4    the run ended without an answer",
                 "130  interrupted (Ctrl-C)"):
        assert line in shown


def test_a_model_factory_in_the_current_directory_imports(tmp_path):
    (tmp_path / "my_local_model.py").write_text(
        "from reactgraph.testing import ScriptedChatModel\n\ndef make():\n    return ScriptedChatModel(responses=['Forty-two.'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(REACTGRAPH), "run", "Answer?", "--model", "my_local_model:make", "--db", str(tmp_path / "x.sqlite")],
        capture_output=True, text=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=CAP,
    )
    assert done.returncode == 0, done.stderr
    assert "Answer: Forty-two." in done.stdout


@pytest.mark.parametrize("command", [("runs",), ("trace", "t1")])
def test_reading_commands_create_no_database(tmp_path, command):
    missing = tmp_path / "no-such-dir" / "typo.sqlite"
    done = cli(*command, "--db", str(missing))
    assert done.returncode == 1
    assert done.stderr.strip() == f"reactgraph: checkpoint database {missing}: no such file (nothing was created)"
    assert not missing.exists() and not missing.parent.exists()


def test_playbook_commands_list_show_export_clear_import_remove(db, tmp_path):
    """run --playbook learns into playbook.sqlite beside --db; `reactgraph playbook` reads and edits it."""
    assert cli("playbook", "list", "--db", str(db)).returncode == 2  # no playbook yet: nothing is created
    assert not (tmp_path / "playbook.sqlite").exists()
    for thread in ("p1", "p2"):
        done = cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", thread, "--playbook")
        assert done.returncode == 0, done.stderr
    [bullet] = json.loads(cli("playbook", "list", "--json", "--db", str(db)).stdout)
    assert (bullet["section"], bullet["tool_sequence"], bullet["helpful_count"]) == ("strategies", ["lookup"], 2)
    assert [s.split("@")[0] for s in bullet["sources"]] == ["p1", "p2"]
    table = cli("playbook", "list", "--db", str(db)).stdout
    assert bullet["id"] in table and "strategies" in table
    assert json.loads(cli("playbook", "show", bullet["id"], "--db", str(db)).stdout)["content"] == bullet["content"]
    exported = tmp_path / "book.json"
    assert cli("playbook", "export", "--out", str(exported), "--db", str(db)).returncode == 0
    assert cli("playbook", "clear", "--db", str(db)).stdout.strip() == "removed 1 bullet(s)"
    assert json.loads(cli("playbook", "list", "--json", "--db", str(db)).stdout) == []
    assert cli("playbook", "import", str(exported), "--db", str(db)).stdout.strip() == "imported 1 bullet(s)"
    assert cli("playbook", "remove", bullet["id"], "--db", str(db)).returncode == 0
    missing = cli("playbook", "remove", bullet["id"], "--db", str(db))
    assert missing.returncode == 2 and f"no bullet {bullet['id']!r}" in missing.stderr
    (tmp_path / "junk.json").write_text("[{}]")
    junk = cli("playbook", "import", str(tmp_path / "junk.json"), "--db", str(db))
    assert junk.returncode == 2 and "not a playbook export" in junk.stderr


def test_resume_force_frees_a_thread_held_by_a_process_on_another_host_and_says_so(db):
    """Issue 42, item 8: a hold whose holder is on another host (a pod restarted under another name) is not seen
    gone: `resume --force` frees it first, with a warning, instead of ThreadBusyError until its lease runs out."""
    import sqlite3
    from contextlib import closing

    assert cli("run", "Where is Paris?", "--model", MODEL["answering"], "--tools", TOOLS, "--db", str(db), "--thread", "t").returncode == 0
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("INSERT INTO reactgraph_holds (thread_id, holder, host, pid, since, expires) VALUES "
                     "('t', '4242@1:gone', 'pod-before-restart', 4242, ?, ?)", (time.time(), time.time() + 3600))
    busy = cli("resume", "t", "--db", str(db))
    assert busy.returncode == 1 and "thread 't' is busy" in busy.stderr and "pod-before-restart" in busy.stderr
    forced = cli("resume", "t", "--force", "--db", str(db))
    assert forced.returncode == 0, forced.stderr
    assert "warning: freed thread 't', held by process 4242 on pod-before-restart" in forced.stderr
    assert "Paris is in France." in forced.stdout  # the finished run, as it is
