"""Showing a run: each node's update live, then the answer and the footer; the exit code of a result."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from rich.console import Console
from rich.markup import escape

from reactgraph.agent import ChildUpdate
from reactgraph.answers.result import SUB_INDENT, Progress, ReActResult, TerminationReason, Token
from reactgraph.commands import EXIT_NO_ANSWER, EXIT_OK, EXIT_WAITING
from reactgraph.graph.nodes import outcome_of
from reactgraph.state import current_turn

SHOWN_CHARS = 400  # observation text shown live per tool call (the trace keeps it all)
WAITING = (TerminationReason.CLARIFICATION, TerminationReason.APPROVAL)  # a run that waits for the user


class LiveView:
    """Prints each node's update as it arrives, with a spinner while the agent works; the spinner's
    line shows the model's reply as it is written (the end of it, on one line), and what a tool last wrote while
    it runs (its Progress)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.written = ""  # the current turn's reply so far
        self.status_text = ""

    def follow(self, updates: Iterator[Any]) -> ReActResult:
        with self.console.status("[dim]thinking...[/]", spinner="dots") as status:

            def say(text: str) -> None:
                self.status_text = text
                status.update(text)

            for item in updates:
                if isinstance(item, ReActResult):
                    return item
                if isinstance(item, Progress):
                    if isinstance(item.data, dict) and item.data.get("type") == "notice":  # reactgraph's own word
                        self.console.print(f"[yellow]Note:[/] {escape(str(item.data.get('message', '')))}")
                        continue
                    who = "sub-agent's tool" if item.depth else "tool"
                    say(f"[dim]{who}:[/] {escape(self.line_end(progress_text(item.data)))}")
                    continue
                if isinstance(item, Token):
                    if item.node == "think":
                        self.written += item.text
                        who = "sub-agent thinking" if item.depth else "thinking"
                        say(f"[dim]{who}:[/] {escape(self.line_end(self.written))}")
                    continue
                if isinstance(item, ChildUpdate):  # a sub-agent's node: shown under its call
                    self.show(item.node, item.update, indent=SUB_INDENT * item.depth)
                    if item.node == "think":
                        self.written = ""
                    continue
                node, update = item
                self.show(node, update)
                if node == "think":
                    self.written = ""
                    if current_turn(update).get("actions"):
                        say("[dim]running tools...[/]")
                elif node in ("observe", "summarize"):
                    say("[dim]thinking...[/]")
        raise RuntimeError("the run ended without a result")

    def line_end(self, text: str) -> str:
        """The end of ``text`` on one line that fits beside the spinner."""
        room = max(20, self.console.width - 16)
        flat = " ".join(text.split())
        return flat if len(flat) <= room else "..." + flat[-(room - 3) :]

    def show(self, node: str, update: dict[str, Any], indent: str = "") -> None:
        """One node's update: think -> thought and tool calls; act -> a call's result; observe -> a rejected reply's
        note; summarize -> summary (a sub-agent's, with ``indent``)."""

        def out(text: str) -> None:
            self.console.print(indent + text)

        if node == "think":
            turn = current_turn(update)
            if thought := (turn.get("thought") or "").strip():
                if not update.get("termination"):
                    out(f"[bold cyan]Thought[/] (iteration {turn.get('iteration', '?')}): {escape(thought)}")
            for action in turn.get("actions") or []:
                if action.get("tool"):
                    args = json.dumps(action.get("args") or {}, ensure_ascii=False)
                    out(f"  [bold yellow]-> {escape(action['tool'])}[/] {escape(args)}")
            if update.get("tool_format") not in (None, turn.get("format")):
                out(f"[dim]the model writes its tool calls as text: the {update['tool_format']} format from the next turn on[/]")
        elif node == "act":
            for message in update.get("messages") or []:
                if isinstance(message, ToolMessage):
                    out(result_line(outcome_of(message)))
        elif node == "observe":  # a rejected reply that named no tool, or a request to check the answer
            for step in update.get("steps") or []:
                if step.get("answer"):
                    out(f"  [yellow]answer given:[/] {escape(step['answer'])}")
                for observation in step["observations"]:
                    if not observation.get("tool"):
                        out(result_line(observation))
        elif node == "summarize" and update.get("summary"):
            out(f"[magenta]Summary updated:[/] {escape(update['summary'])}")


def progress_text(data: Any) -> str:
    """What a tool wrote, as one status line: text as it is, a mapping's ``message`` (or ``status``, ``progress``)
    when it has one, else its JSON."""
    if isinstance(data, str):
        return data
    if isinstance(data, Mapping):
        for key in ("message", "status", "progress", "text"):
            if isinstance(data.get(key), str | int | float):
                return str(data[key])
    return json.dumps(data, ensure_ascii=False, default=str)


def result_line(outcome: Mapping[str, Any]) -> str:
    """One call's result (an outcome, or a trace step's observation): its tool (or what it is), the start of its text."""
    text = outcome.get("content", "")
    shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"... [{len(text)} chars]"
    colour = "green" if outcome.get("status") == "ok" else "red"
    label = outcome.get("tool") or ("check" if outcome.get("error_kind") == "unverified_answer" else "note")
    return f"  [{colour}]<- {escape(label)}[/]: {escape(shown)}"


def footer(result: ReActResult) -> str:
    """The one-line footer: reason, the turn (of a thread's later turns), iterations, tokens ('~' when
    estimated), confidence (when there is an answer), seconds, thread."""
    usage = result.token_usage
    tokens = f"{'~' if usage.estimated else ''}{usage.total_tokens} tokens"
    confidence = f"confidence {result.confidence:.2f} | " if result.confidence is not None else ""
    turn = f"turn {result.turn} | " if result.turn > 1 else ""
    return (
        f"{result.termination_reason.value} | {turn}{result.trace.total_iterations} iterations | {tokens} | "
        f"{confidence}{result.execution_time:.1f}s | thread {result.thread_id}"
    )


def exit_code(result: ReActResult) -> int:
    """0 answered (success, or your termination callback stopped it), 3 waiting (clarification, approval),
    4 ended without an answer (a limit, a stall, a cancel, the model gave up)."""
    reason = result.termination_reason
    if reason in WAITING:
        return EXIT_WAITING
    if reason in (TerminationReason.SUCCESS, TerminationReason.CUSTOM):
        return EXIT_OK
    return EXIT_NO_ANSWER


def last_result(updates: Iterator[Any]) -> ReActResult:
    """Consume the updates silently (for --json) and return the result."""
    result: Any = None
    for result in updates:
        pass
    if not isinstance(result, ReActResult):
        raise RuntimeError("the run ended without a result")
    return result


def report(result: ReActResult, args: argparse.Namespace, console: Console) -> int:
    """Print the answer (and the typed output), or the JSON result, and the footer; return the exit code."""
    code = exit_code(result)
    if args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return code
    if result.termination_reason is TerminationReason.CLARIFICATION:
        console.print(f"[bold]The agent asks:[/] {escape(result.termination_detail)}")
        console.print(f"Answer with: reactgraph resume {result.thread_id} --answer \"...\"", markup=False)
    if result.pending_approvals:
        import shlex

        several = len(result.pending_approvals) > 1
        for call in result.pending_approvals:
            call_args = json.dumps(call.args, ensure_ascii=False)
            console.print(f"[bold]Waiting for approval:[/] {escape(f'{call.tool} {call_args}')} (call {escape(call.call_id)})")
            which = f" --call {shlex.quote(call.call_id)}" if several else ""
            console.print(
                f"Decide with: reactgraph resume {result.thread_id}{which} --approve | --reject \"reason\" | --edit {shlex.quote(call_args)}",
                markup=False,
            )
    if result.termination_reason not in WAITING:
        label = "Partial answer" if result.partial else "Answer"
        console.print(f"\n[bold green]{label}:[/] {escape(result.final_answer or '(none)')}")
        if result.output is not None:
            console.print(f"[bold green]Output:[/] {escape(json.dumps(result.output.model_dump(mode='json'), ensure_ascii=False))}")
        if result.termination_reason is not TerminationReason.SUCCESS:
            console.print(f"[yellow]Stopped:[/] {escape(result.termination_detail)}")
    console.print(f"[dim]{escape(footer(result))}[/]")
    return code
