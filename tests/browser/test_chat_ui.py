"""Agent Chat UI in a real browser against the real ``langgraph dev``, as a new user would try it.

The UI is the Vite template of the npm package ``create-agent-chat-app`` (``tests/browser/chat_ui.py`` builds it;
``REACTGRAPH_CHAT_UI`` names the built directory), in Debian's Chromium driven by Playwright; the server serves
tests/integration/server_fixture (the served graph on a scripted model). Each test is what a user does: ask and
see the tool card and the answer, ask a follow-up, reload and reopen the thread from the history; approve a call
waiting for approval with the UI's form, or by typing "approve"; answer the model's question in the form.
Run with ``REACTGRAPH_TEST_BROWSER=1`` (``.ci/run`` does); ``REACTGRAPH_SCREENSHOTS=docs/chat-ui`` keeps the
screenshots there (docs/serving.md shows them), else in the test's temporary directory.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.chat_ui import served
from tests.integration.dev_server import FIXTURE, Server, scripted, serve

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
# No sandbox (root in a container), no GPU, and nothing that reaches the network by itself.
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
SECONDS = 60_000  # ms: the longest wait for one thing to show (the machine is shared)
MADE_UP = "Successfully handled tool call."


@pytest.fixture(scope="module")
def ui_dist() -> Path:
    dist = Path(os.environ.get("REACTGRAPH_CHAT_UI", ""))
    if not (dist / "index.html").is_file():
        pytest.fail(f"REACTGRAPH_CHAT_UI={str(dist)!r} is no built Agent Chat UI: python -m tests.browser.chat_ui build DIR")
    return dist


@pytest.fixture(scope="module")
def ui(ui_dist: Path) -> Iterator[str]:
    with served(ui_dist) as url:
        yield url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    app = tmp_path_factory.mktemp("chat-ui-app") / "app"
    shutil.copytree(FIXTURE, app, ignore=shutil.ignore_patterns(".langgraph_api", "__pycache__"))
    yield from serve(app, tmp_path_factory)


@pytest.fixture(scope="module")
def approving(server: Server) -> str:
    """An assistant whose configuration approves ``greet`` (the UI takes an assistant id or a graph id)."""
    return server.client().assistants.create(graph_id="scripted", context={"approve_tools": ["greet"]})["assistant_id"]


@pytest.fixture(scope="module")
def browser():
    from playwright import sync_api  # the dev extra installs it

    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("REACTGRAPH_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


class Chat:
    """One browser page of the UI, on one assistant, recording the page's errors."""

    def __init__(self, browser, ui: str, server: Server, assistant: str) -> None:
        self.page = browser.new_page(viewport={"width": 1100, "height": 1250})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" and "404" not in m.text else None)
        self.page.set_default_timeout(SECONDS)
        self.home = f"{ui}/?apiUrl={server.url}&assistantId={assistant}"
        self.page.goto(self.home)

    def send(self, text: str) -> None:
        box = self.page.get_by_placeholder("Type your message...")
        box.fill(text)
        box.press("Enter")

    def shows(self, text: str) -> None:
        self.page.get_by_text(text, exact=False).last.wait_for(state="visible")

    def idle(self) -> None:
        """The run is over: the Send button is back (Cancel shows while it streams)."""
        self.page.get_by_role("button", name="Send", exact=True).wait_for(state="visible")

    def thread_id(self) -> str:
        from urllib.parse import parse_qs, urlparse

        return parse_qs(urlparse(self.page.url).query)["threadId"][0]

    def shot(self, where: Path, name: str) -> None:
        self.page.wait_for_timeout(500)  # the last animation settles
        self.page.screenshot(path=str(where / name))


def messages(server: Server, thread_id: str) -> list[tuple[str, str]]:
    return [(m["type"], m["content"]) for m in server.client().threads.get_state(thread_id)["values"]["messages"]]


def test_ask_follow_up_and_reopen_from_the_history(browser, ui, server, shots) -> None:
    chat = Chat(browser, ui, server, "scripted")
    chat.send(scripted.FORECAST)
    chat.shows("The forecast for Paris: sunny, 24 °C.")
    chat.idle()
    card = chat.page.locator("div", has=chat.page.get_by_text("city", exact=True)).last
    assert "Paris" in card.inner_text()  # the tool call card: forecast(city="Paris")
    chat.shows("Tool Result:")
    assert chat.page.get_by_text("Paris: sunny, 24 °C", exact=True).count() == 1  # the tool's result, in its card
    chat.shot(shots, "answer.png")

    chat.send(scripted.FOLLOW_UP)
    chat.shows("The forecast for Rome: sunny, 24 °C.")
    chat.idle()
    chat.shot(shots, "follow-up.png")
    thread_id = chat.thread_id()
    assert [kind for kind, _ in messages(server, thread_id)] == ["human", "ai", "tool", "ai"] * 2

    chat.page.goto(chat.home)  # a reload, on no thread: the history sidebar reopens it
    chat.page.locator("button:has(svg.lucide-panel-right-close)").last.click()  # the header's; the sidebar's own is off screen
    chat.page.get_by_role("button", name=scripted.FORECAST).first.click()
    chat.shows("The forecast for Rome: sunny, 24 °C.")
    chat.shows("The forecast for Paris: sunny, 24 °C.")
    assert chat.thread_id() == thread_id
    chat.shot(shots, "history.png")
    assert chat.errors == []


def test_approve_a_waiting_call_with_the_form(browser, ui, server, approving, shots) -> None:
    chat = Chat(browser, ui, server, approving)
    chat.send(scripted.GREETING)
    accept = chat.page.get_by_role("button", name="Accept", exact=True)
    accept.wait_for(state="visible")  # the HumanInterrupt form, not the generic "Human Interrupt" box
    assert chat.page.get_by_text("Human Interrupt", exact=True).count() == 0
    chat.shows("Edit/Accept")
    chat.shot(shots, "approval.png")
    assert chat.page.locator("textarea").filter(has_text="Ann").count() == 1  # its argument, editable
    chat.shot(shots, "approval.png")
    thread_id = chat.thread_id()
    assert messages(server, thread_id)[-1][0] == "ai"  # the call, waiting: nothing ran

    accept.click()
    chat.shows("Done: Hello Ann.")
    chat.idle()
    chat.shot(shots, "approved.png")
    assert messages(server, thread_id) == [
        ("human", scripted.GREETING), ("ai", "Greet Ann with the greet tool."), ("tool", "Hello Ann"), ("ai", "Done: Hello Ann.")
    ]
    assert chat.errors == []


def test_approve_typed_in_the_chat(browser, ui, server, approving, shots) -> None:
    """The issue's case: the UI sends a made-up result with the message; the call runs, the made-up result goes."""
    chat = Chat(browser, ui, server, approving)
    chat.send(scripted.GREETING)
    chat.page.get_by_role("button", name="Accept", exact=True).wait_for(state="visible")
    chat.send("Approve")
    chat.shows("Done: Hello Ann.")
    chat.idle()
    chat.shot(shots, "typed-approval.png")
    chat_messages = messages(server, chat.thread_id())
    assert ("tool", "Hello Ann") in chat_messages and ("tool", MADE_UP) not in chat_messages
    assert [kind for kind, _ in chat_messages] == ["human", "ai", "tool", "ai"]
    # The UI keeps the message it sent on screen; the thread took it into the call's result: a reload shows that.
    chat.page.reload()
    chat.shows("Done: Hello Ann.")
    assert chat.page.get_by_text("Approve", exact=True).count() == 0
    assert chat.errors == []


def test_answer_the_models_question_in_the_form(browser, ui, server, shots) -> None:
    chat = Chat(browser, ui, server, "scripted")
    chat.send(scripted.WEATHER)
    answer = chat.page.get_by_placeholder("Your response here...")
    answer.wait_for(state="visible")  # answered by typing: no Accept, no Edit
    assert chat.page.get_by_role("button", name="Accept", exact=True).count() == 0
    chat.shows(scripted.CITY_QUESTION)
    chat.shot(shots, "question.png")

    answer.fill("Paris")
    chat.page.get_by_role("button", name="Send Response").click()
    chat.shows("The weather in Paris is sunny.")
    chat.idle()
    chat.shot(shots, "answered.png")
    assert messages(server, chat.thread_id())[-2:] == [("tool", "The user answered: Paris"), ("ai", "The weather in Paris is sunny.")]
    assert chat.errors == []
