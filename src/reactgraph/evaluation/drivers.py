"""How a task's turns are driven, each the way its example drives it: ``ReActAgent.run`` and ``resume`` (agent), the
compiled graph with chat messages (graph: ``agent.graph.invoke``; served: the graph ``langgraph dev`` serves, its tools
and defaults, with a checkpointer as the server gives it one), or the ``reactgraph`` command line in-process (cli: a
``run`` per question, ``resume`` per answer or decision; chat: one ``chat`` session, a line per question).

A driver returns one ``Driven`` per turn it drove: the run's result after it and the answer the user reads there (the
result's answer; in a chat client, the text of the thread's last message when it is an AI message). It stops early
when the thread waits for an answer or a decision that the next turn does not give, or when a turn failed to run.
"""

from __future__ import annotations

import contextlib
import io
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from reactgraph.agent import ReActAgent
from reactgraph.answers.result import ReActResult, TerminationReason
from reactgraph.evaluation.suite import Task, Turn
from reactgraph.models.tokens import message_text
from reactgraph.persistence.reading import snapshot_result, thread_config
from reactgraph.tools.approval import Approve, Reject

# The `reactgraph` command line, run in-process: argv (without the program name) -> exit code. reactgraph.cli.main is
# one; the evaluation layer is below the command line, so the eval command hands it in.
CommandLine = Callable[[Sequence[str]], int]

WAITING = (TerminationReason.CLARIFICATION, TerminationReason.APPROVAL)
REJECTION = "not now"  # the reason a task's 'reject' decision gives


class Driven(NamedTuple):
    """One turn as driven: the run's result after it (None: it did not run), the answer the user reads, and a note
    on how the driving went (a command's exit code and the end of what it wrote; an exception)."""

    result: ReActResult | None
    answer: str | None
    note: str = ""


def drive_turns(turns: Sequence[Turn], step: Callable[[Turn], Driven]) -> list[Driven]:
    """``step`` each turn in order, stopping after one that did not run, or that left the thread waiting when the next
    turn asks a new question (a waiting thread takes an answer or a decision, not a question)."""
    driven: list[Driven] = []
    for place, turn in enumerate(turns):
        try:
            done = step(turn)
        except Exception as exc:  # noqa: BLE001 — a crash is the turn's outcome, said in the report
            done = Driven(None, None, f"{type(exc).__name__}: {str(exc)[:300]}")
        driven.append(done)
        ahead = turns[place + 1] if place + 1 < len(turns) else None
        if done.result is None or (ahead and ahead.question and done.result.termination_reason in WAITING):
            break
    return driven


def decision(turn: Turn) -> Approve | Reject:
    return Approve() if turn.approval == "approve" else Reject(REJECTION)


# -- the Python API ---------------------------------------------------------------------------------


def drive_agent(agent: ReActAgent, task: Task) -> list[Driven]:
    """``agent.run(question, thread_id=T)`` per question, ``agent.resume(T, answer)`` or ``resume(T, approval=...)``."""
    thread = uuid.uuid4().hex

    def step(turn: Turn) -> Driven:
        if turn.question is not None:
            result = agent.run(turn.question, thread_id=thread)
        elif turn.answer is not None:
            result = agent.resume(thread, turn.answer)
        else:
            result = agent.resume(thread, approval=decision(turn))
        assert isinstance(result, ReActResult)  # output_mode is "full"
        return Driven(result, result.final_answer)

    return drive_turns(task.turns(), step)


# -- the compiled graph, as a chat client drives it -------------------------------------------------------------


def drive_graph(
    graph: CompiledStateGraph[Any, Any, Any, Any], task: Task, context: dict[str, Any] | None = None, output_schema: Any = None
) -> list[Driven]:
    """A question as a chat client sends it (``{"messages": [a user message]}``), an answer or a decision as
    ``Command(resume={interrupt id: value})``; the answer read is the thread's last message when it is an AI message."""
    config = thread_config(uuid.uuid4().hex)
    thread = config["configurable"]["thread_id"]

    def step(turn: Turn) -> Driven:
        if turn.question is not None:
            payload: Any = {"messages": [{"role": "user", "content": turn.question}]}
        else:
            value: Any = turn.answer if turn.answer is not None else {"type": turn.approval}
            if turn.approval == "reject":
                value = {"type": "reject", "message": REJECTION}
            payload = Command(resume={i.id: value for i in graph.get_state(config).interrupts})
        graph.invoke(payload, config, context=context)
        snapshot = graph.get_state(config)
        messages = snapshot.values.get("messages") or []
        shown = message_text(messages[-1]) if messages and isinstance(messages[-1], AIMessage) else None
        return Driven(snapshot_result(snapshot, thread, output_schema), shown)

    return drive_turns(task.turns(), step)


def served_graph(model: BaseChatModel, context: dict[str, Any]) -> CompiledStateGraph:
    """The graph ``langgraph dev`` serves (its tools, its defaults) on ``model``, with an in-memory checkpointer as the
    server gives it its own; ``context`` is checked as the server checks a run's context."""
    from reactgraph.server import check_context, make_graph, served_tools  # here: it builds its graph when imported

    check_context(context, served_tools())
    return make_graph(model=model).copy(update={"checkpointer": InMemorySaver()})


# -- the command line, in-process -------------------------------------------------------------------------------

LENT_MODEL = "reactgraph.evaluation.drivers:lent_model"  # what --model names in a command the eval drives
_lent: list[BaseChatModel] = []


def lent_model() -> BaseChatModel:
    """The eval's model, for the command it drives now (``--model reactgraph.evaluation.drivers:lent_model``)."""
    if not _lent:
        raise RuntimeError("no model is lent: only a command the eval drives (evaluation.drivers) may name this one")
    return _lent[-1]


@contextlib.contextmanager
def commanding(model: BaseChatModel, workdir: Path, stdin: str = "") -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """A command's surroundings: ``model`` lent to its --model, ``workdir`` its current directory (its relative paths,
    the file tools' root), ``stdin`` its input (no terminal: a run that waits exits with 3), its output captured."""
    out, err = io.StringIO(), io.StringIO()
    _lent.append(model)
    saved_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.chdir(workdir), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        sys.stdin = saved_stdin
        _lent.pop()


def command_note(code: int, out: io.StringIO, err: io.StringIO, keep: int = 600) -> str:
    """The exit code, and the end of what the command wrote to stderr (or stdout) when it is no answer or wait."""
    if code in (0, 3, 4):
        return f"exit {code}"
    written = (err.getvalue().strip() or out.getvalue().strip())[-keep:]
    return f"exit {code}: {written}"


def drive_cli(task: Task, model: BaseChatModel, workdir: Path, db: Path, command: CommandLine) -> list[Driven]:
    """``reactgraph run QUESTION --thread T`` per question (the first starts the thread, the others are its next turns),
    ``reactgraph resume T --answer A`` or ``--approve`` / ``--reject`` per answer or decision; each with the task's
    options, ``--db`` a file of the eval's and ``--model`` the eval's model."""
    thread = uuid.uuid4().hex

    def step(turn: Turn) -> Driven:
        if turn.question is not None:
            argv = ["run", turn.question, "--thread", thread]
        elif turn.answer is not None:
            argv = ["resume", thread, "--answer", turn.answer]
        else:
            argv = ["resume", thread, *(["--approve"] if turn.approval == "approve" else ["--reject", REJECTION])]
        with commanding(model, workdir) as (out, err):
            code = command([*argv, "--db", str(db), "--model", LENT_MODEL, *task.options])
        note = command_note(code, out, err)
        if code not in (0, 3, 4):
            return Driven(None, None, note)
        with ReActAgent(checkpointer=str(db)) as reader:
            result = reader.get_result(thread)
        return Driven(result, result.final_answer, note)

    return drive_turns(task.turns(), step)


def drive_chat(task: Task, model: BaseChatModel, workdir: Path, db: Path, command: CommandLine) -> list[Driven]:
    """One ``reactgraph chat --thread T`` session with the task's options, its questions typed a line each; each turn
    read back from the thread's conversation."""
    thread = uuid.uuid4().hex
    lines = "".join(f"{turn.question}\n" for turn in task.turns())
    with commanding(model, workdir, stdin=lines) as (out, err):
        code = command(["chat", "--thread", thread, "--db", str(db), "--model", LENT_MODEL, *task.options])
    note = command_note(code, out, err)
    with ReActAgent(checkpointer=str(db)) as reader:
        try:
            turns = reader.conversation(thread)
            last = reader.get_result(thread)
        except Exception as exc:  # noqa: BLE001 — nothing ran: the note says why
            return [Driven(None, None, f"{note}; {type(exc).__name__}: {exc}")]
    results = [as_result(turn, thread) for turn in turns if turn.turn != last.turn] + [last]
    return [Driven(result, result.final_answer, note) for result in results]


def as_result(turn: Any, thread: str) -> ReActResult:
    """A finished turn of a conversation (``ConversationTurn``) as the result its run gave."""
    return ReActResult(
        success=turn.reason is TerminationReason.SUCCESS, final_answer=turn.answer, trace=turn.trace,
        termination_reason=turn.reason, termination_detail=turn.detail, partial=turn.partial, confidence=turn.confidence,
        token_usage=turn.trace.total_tokens, thread_id=thread, question=turn.question, turn=turn.turn,
    )
