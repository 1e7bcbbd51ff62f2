"""A fake Ollama server for tests: the models it has pulled (with or without their capabilities), and a chat
endpoint that answers every question with one fixed reply, recording which model was asked."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class FakeOllama:
    """What the server has: ``models`` (name -> its capabilities, None when ``/api/show`` does not know them, as
    with an Ollama-compatible endpoint), the reply of every chat, and the models chats asked for."""

    models: dict[str, list[str] | None]
    reply: str = "42"
    asked: list[str] = field(default_factory=list)
    url: str = ""

    def handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/api/tags":
                    self.answer(200, {"models": [{"name": name, "model": name} for name in fake.models]})
                else:
                    self.answer(404, {"error": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                name = body.get("model") or body.get("name")
                if self.path == "/api/show" and fake.models.get(name) is not None:
                    self.answer(200, {"capabilities": fake.models[name], "details": {}, "model_info": {}})
                elif self.path == "/api/chat" and name in fake.models:
                    fake.asked.append(name)
                    self.answer(200, {
                        "model": name, "created_at": "2026-01-01T00:00:00Z", "done": True, "done_reason": "stop",
                        "message": {"role": "assistant", "content": fake.reply}, "prompt_eval_count": 10, "eval_count": 2,
                    })
                else:
                    self.answer(404, {"error": f"model {name!r} not found"})

            def log_message(self, *args):
                pass

        return Handler


@contextmanager
def serving(fake: FakeOllama) -> Iterator[FakeOllama]:
    """``fake`` listening on a free local port (its ``url``) until the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), fake.handler())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fake.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
