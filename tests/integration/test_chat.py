"""``reactgraph chat`` on a pseudo-terminal, as a person types it: two turns, Ctrl-C during the second, a third
turn that needs the first."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]
REACTGRAPH = Path(sys.executable).with_name("reactgraph")
MODEL = "tests.integration.cli_fixtures:chatting"
PROMPT = b"you> "
WAIT_LIMIT = 60.0  # seconds: a bound on each wait, not an assertion on timing


class Terminal:
    """A command on a pseudo-terminal of its own (its controlling terminal: Ctrl-C is a SIGINT to it)."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.chdir(ROOT)
            os.execve(str(REACTGRAPH), [str(REACTGRAPH), *args], env)
        self.screen = b""

    def read_until(self, done) -> bytes:
        deadline = time.monotonic() + WAIT_LIMIT
        while not done(self.screen):
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting; the screen:\n{self.screen.decode(errors='replace')}")
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the chat ended early; the screen:\n{self.screen.decode(errors='replace')}")
                self.screen += chunk
        return self.screen

    def prompts(self, n: int) -> None:
        self.read_until(lambda screen: screen.count(PROMPT) >= n)

    def type(self, text: bytes) -> None:
        os.write(self.fd, text)

    def exit_code(self) -> int:
        deadline = time.monotonic() + WAIT_LIMIT
        while time.monotonic() < deadline:
            try:
                os.read(self.fd, 4096)  # drain: a full terminal would block the child
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, 9)
        raise AssertionError("the chat did not end")


def test_chat_goes_on_after_ctrl_c_stops_a_turn_and_remembers_the_first_turn(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb", "COLUMNS": "200"}
    chat = Terminal(["chat", "--model", MODEL, "--db", str(tmp_path / "chat.sqlite"), "--thread", "c1"], env)
    chat.prompts(1)
    chat.type(b"My name is Ada.\r")
    chat.read_until(lambda screen: b"Nice to meet you, Ada." in screen)
    chat.prompts(2)
    chat.type(b"Count slowly.\r")
    time.sleep(1.0)  # the turn is under way: its model call counts for a minute
    chat.type(b"\x03")  # Ctrl-C
    chat.read_until(lambda screen: b"stopping this turn" in screen)
    chat.prompts(3)
    assert b"cancelled | turn 2" in chat.screen  # the turn ended as cancelled; the chat did not
    chat.type(b"What is my name?\r")
    chat.read_until(lambda screen: b"Your name is Ada." in screen)
    chat.prompts(4)
    assert b"turn 3" in chat.screen
    chat.type(b"/exit\r")
    assert chat.exit_code() == 0

    from reactgraph import ReActAgent, TerminationReason

    with ReActAgent(checkpointer=tmp_path / "chat.sqlite") as agent:
        turns = agent.conversation("c1")
    assert [(t.turn, t.reason) for t in turns] == [
        (1, TerminationReason.SUCCESS), (2, TerminationReason.CANCELLED), (3, TerminationReason.SUCCESS)
    ]


def test_a_line_that_is_no_text_is_refused_and_the_chat_goes_on(tmp_path):
    """Issue 42, item 13: a line a database cannot store (bytes that are no UTF-8 become lone surrogates) ended the
    chat with an error; it is refused, and the next question is asked."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REACTGRAPH_DB": str(tmp_path / "chat.sqlite"), "TERM": "dumb",
           "LC_ALL": "C"}
    chat = Terminal(["chat", "--model", MODEL, "--thread", "t"], env)
    chat.prompts(1)
    chat.type(b"caf\xe9?\n")
    chat.read_until(lambda screen: b"not text UTF-8 can hold" in screen and screen.count(PROMPT) >= 2)
    chat.type(b"/exit\n")
    assert chat.exit_code() == 0
