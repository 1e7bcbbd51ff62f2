"""Agent Chat UI on the real local model: the browser test's steps with the served graph as `langgraph dev` serves
the repository's langgraph.json (the default model, which is the pulled Qwen2.5-Coder-1.5B here; the built-in tools).

    flock /tmp/reactgraph-model.lock nice python benchmarks/chat_ui_local.py [--ui .ci/agent-chat-ui/dist] [--out F --shots P]

In headless Chromium (Debian's, driven by Playwright): ask "What is 17% of 2,340?" and its follow-up on one
thread; then, on an assistant whose configuration approves every tool, ask it again and press Accept on the call
that waits. Screenshots go to docs/chat-ui/local-*.png (``--shots``: another prefix, '' for none), each thread's
messages, trace steps and ending to benchmarks/eval/chat-ui-local.json (``--out``; benchmarks/results/
conversations-and-chat-ui.md reads them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from langgraph_sdk import get_sync_client  # noqa: E402
from tests.browser.chat_ui import build, served  # noqa: E402

QUESTION = "What is 17% of 2,340?"
FOLLOW_UP = "What is that plus 100?"
EXPECTED = {QUESTION: 397.8, FOLLOW_UP: 497.8}
SHOTS = ROOT / "docs" / "chat-ui"
OUT = ROOT / "benchmarks" / "eval" / "chat-ui-local.json"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
STEP_SECONDS = 480  # the longest one step (a turn on the slow local model) may take


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """`langgraph dev` on the repository's langgraph.json (copied beside a link to src/), on a free port."""
    shutil.copy(ROOT / "langgraph.json", app / "langgraph.json")
    (app / "src").symlink_to(ROOT / "src", target_is_directory=True)
    env = dict(os.environ, LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true", LANGSMITH_TRACING="false")
    env.setdefault("OLLAMA_HOST", "http://127.0.0.1:11434")
    langgraph = Path(sys.executable).with_name("langgraph")
    command = [str(langgraph), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(free_port())]
    process = subprocess.Popen(command, cwd=app, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if found := re.search(r"API: (http://[0-9.]+:[0-9]+)", re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(errors="replace"))):
            return process, found[1]
        if process.poll() is not None:
            break
        time.sleep(0.5)
    raise SystemExit(f"langgraph dev did not start:\n{log.read_text(errors='replace')[-3000:]}")


class Browser:
    """One page of the UI on one assistant; each step waits until the thread's run has ended."""

    def __init__(self, browser, ui: str, api: str, assistant: str, prefix: str) -> None:
        self.prefix = prefix
        self.client = get_sync_client(url=api, timeout=60)
        self.page = browser.new_page(viewport={"width": 1100, "height": 1250})
        self.page.set_default_timeout(STEP_SECONDS * 1000)
        self.page.goto(f"{ui}/?apiUrl={api}&assistantId={assistant}")
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def thread_id(self) -> str:
        self.page.wait_for_url(re.compile(r"threadId="))
        return parse_qs(urlparse(self.page.url).query)["threadId"][0]

    def settled(self, runs_before: int) -> float:
        """Wait for the thread's next run to end (seconds it took); the UI then shows its Send button again."""
        start = time.perf_counter()
        thread_id = self.thread_id()
        while time.perf_counter() - start < STEP_SECONDS:
            runs = self.client.runs.list(thread_id)
            if len(runs) > runs_before and runs[0]["status"] not in ("pending", "running"):
                break
            time.sleep(1)
        self.page.get_by_role("button", name="Send", exact=True).wait_for(state="visible")
        self.page.wait_for_timeout(1000)
        return round(time.perf_counter() - start, 1)

    def runs(self) -> int:
        return len(self.client.runs.list(self.thread_id())) if "threadId=" in self.page.url else 0

    def ask(self, text: str) -> float:
        before = self.runs()
        box = self.page.get_by_placeholder("Type your message...")
        box.fill(text)
        box.press("Enter")
        return self.settled(before)

    def shot(self, name: str) -> None:
        if self.prefix:
            self.page.screenshot(path=str(SHOTS / f"{self.prefix}{name}"))

    def state(self) -> dict:
        state = self.client.threads.get_state(self.thread_id())
        values = state["values"]
        return {
            "thread_id": self.thread_id(),
            "messages": [
                {"type": m["type"], "content": m["content"], **({"tool_calls": [(c["name"], c["args"]) for c in m["tool_calls"]]} if m.get("tool_calls") else {})}
                for m in values.get("messages", [])
            ],
            "steps": [
                {"iteration": s.get("iteration"), "kind": s.get("kind"), "thought": (s.get("thought") or "")[:300],
                 "calls": [(a.get("tool"), a.get("args")) for a in s.get("actions") or []],
                 "observations": [(o.get("status"), o.get("error_kind"), (o.get("content") or "")[:200]) for o in s.get("observations") or []]}
                for s in values.get("steps", [])
            ],
            "termination": values.get("termination"),
            "final_answer": values.get("final_answer"),
            "waiting": [i["value"].get("action_request") for i in state["interrupts"]],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ui", type=Path, default=ROOT / ".ci" / "agent-chat-ui" / "dist")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--shots", default="local-", help="the screenshots' name prefix in docs/chat-ui ('': none)")
    args = parser.parse_args()
    dist = args.ui if (args.ui / "index.html").exists() else build(args.ui.parent)
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="chat-ui-local-"))
    (work / "app").mkdir()
    process, api = start_server(work / "app", work / "server.log")
    report: dict = {"api": api, "steps": []}
    try:
        client = get_sync_client(url=api, timeout=60)
        approving = client.assistants.create(graph_id="reactgraph", context={"approve_tools": ["*"]})["assistant_id"]
        with served(dist) as ui, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            chat = Browser(browser, ui, api, "reactgraph", args.shots)
            for question, shot in ((QUESTION, "answer.png"), (FOLLOW_UP, "follow-up.png")):
                seconds = chat.ask(question)
                chat.shot(shot)
                report["steps"].append({"step": question, "seconds": seconds, "expected": EXPECTED[question], **chat.state()})
                print(json.dumps(report["steps"][-1], ensure_ascii=False)[:2000], flush=True)

            gated = Browser(browser, ui, api, approving, args.shots)
            seconds = gated.ask(QUESTION)
            waiting = gated.state()
            gated.shot("approval.png")
            report["steps"].append({"step": "approval: asked", "seconds": seconds, **waiting})
            print(json.dumps(report["steps"][-1], ensure_ascii=False)[:2000], flush=True)
            if waiting["waiting"]:
                before = gated.runs()
                gated.page.get_by_role("button", name="Accept", exact=True).click()
                seconds = gated.settled(before)
                gated.shot("approved.png")
                report["steps"].append({"step": "approval: accepted", "seconds": seconds, "expected": EXPECTED[QUESTION], **gated.state()})
                print(json.dumps(report["steps"][-1], ensure_ascii=False)[:2000], flush=True)
            report["page_errors"] = chat.errors + gated.errors
            browser.close()
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.out} and docs/chat-ui/{args.shots}*.png")


if __name__ == "__main__":
    main()
