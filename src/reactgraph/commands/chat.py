"""``reactgraph chat``: a conversation on one thread, each question a turn shown live as ``run`` shows it.

``/new`` starts a new conversation on the thread (the model's context anew, the thread's history kept),
``/exit`` or Ctrl-D ends the chat, Ctrl-C stops the turn in flight (it ends as cancelled; the chat goes on;
a second Ctrl-C ends the chat). The line editor keeps the questions of the session (the arrow keys).
"""

from __future__ import annotations

import argparse
import signal
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape

from reactgraph.agent import ReActAgent
from reactgraph.commands import EXIT_OK
from reactgraph.commands.console import output_console
from reactgraph.commands.runs import drive, make_agent
from reactgraph.state import InvalidInputError

PROMPT = "you> "
HELP = "/new starts a new conversation, /exit (or Ctrl-D) ends the chat, Ctrl-C stops a turn"


def cmd_chat(args: argparse.Namespace) -> int:
    """reactgraph chat [--thread T]: ask, see each turn live, ask again on the same thread."""
    import readline  # noqa: F401 - input() gets line editing and the session's history on the arrow keys

    console = output_console()
    agent, overrides = make_agent(args)
    args.json, thread = False, args.thread or uuid.uuid4().hex
    console.print(f"[dim]thread {thread}: {HELP}[/]")
    fresh = False
    with agent:
        while (line := next_line(console)) is not None:
            if line == "/exit":
                break
            if line == "/new":
                fresh = True
                console.print("[dim]a new conversation: the next question starts the model's context anew[/]")
                continue
            if line.startswith("/"):
                console.print(f"[dim]unknown command {line.split()[0]}: {HELP}[/]")
                continue
            turn = overrides | ({"new_conversation": True} if fresh else {})
            try:
                drive(agent, args, turn, console, line, thread, None, interrupting=lambda: stops_the_turn(agent, thread, console))
            except InvalidInputError as exc:  # a line no database can store: said, and the chat goes on
                console.print(f"[red]{escape(str(exc))}[/]")
                continue
            fresh = False
    return EXIT_OK


def next_line(console: Console) -> str | None:
    """The user's next line (None at the end of input); Ctrl-C at the prompt starts a new line."""
    while True:
        try:
            line = input(PROMPT).strip()
        except EOFError:
            console.print()
            return None
        except KeyboardInterrupt:
            console.print()
            continue
        if line:
            return line


@contextmanager
def stops_the_turn(agent: ReActAgent, thread: str, console: Console) -> Iterator[None]:
    """While a turn is shown, Ctrl-C cancels it (the run stops after its current step, a model call in flight is
    cut) and a second Ctrl-C ends the chat. The cancel is asked from a thread of its own: a signal handler must
    not wait for the agent's locks."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    asked = threading.Event()

    def on_interrupt(signum: int, frame: Any) -> None:
        if asked.is_set():
            raise KeyboardInterrupt
        asked.set()
        console.print("[yellow]stopping this turn (Ctrl-C again ends the chat)...[/]")
        threading.Thread(target=agent.cancel, args=(thread,), name="reactgraph-chat-cancel", daemon=True).start()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
