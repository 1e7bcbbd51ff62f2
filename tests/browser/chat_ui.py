"""LangChain's Agent Chat UI for the browser test: the Vite template shipped in the npm package
``create-agent-chat-app``, installed from the npm registry and built with Vite, then served as static files.

    python -m tests.browser.chat_ui build DIR     # DIR/dist: the built UI (kept: a second build is skipped)

``.ci/run`` builds it and points ``REACTGRAPH_CHAT_UI`` at the dist directory. The UI takes the server and the
graph from its address (``?apiUrl=...&assistantId=...``), so one build serves any server.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PACKAGE = "create-agent-chat-app@0.1.6"  # the version the issue was tried with
TEMPLATE = "package/templates/vite"
NPM_SECONDS = 600


def build(root: Path) -> Path:
    """The UI built under ``root`` (``root/dist``): the package's Vite template, its dependencies installed with npm,
    built with Vite (its TypeScript check skipped: only the bundle is needed). Nothing is done when the build of
    the same package is there."""
    dist, stamp = root / "dist", root / "dist" / ".package"
    if stamp.exists() and stamp.read_text() == PACKAGE:
        return dist
    root.mkdir(parents=True, exist_ok=True)
    app = root / "app"
    shutil.rmtree(app, ignore_errors=True)
    packed = subprocess.run(
        ["npm", "pack", PACKAGE, "--pack-destination", str(root), "--silent"],
        check=True, capture_output=True, text=True, timeout=NPM_SECONDS,
    ).stdout.strip().splitlines()[-1]
    with tarfile.open(root / packed) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(TEMPLATE + "/")]
        for member in members:
            member.name = member.name.removeprefix(TEMPLATE + "/")
        archive.extractall(app, members=members, filter="data")
    npm = ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(npm, cwd=app, check=True, timeout=NPM_SECONDS)
    shutil.rmtree(dist, ignore_errors=True)
    vite = ["node", "node_modules/vite/bin/vite.js", "build", "--outDir", str(dist), "--emptyOutDir", "--logLevel", "error"]
    subprocess.run(vite, cwd=app, check=True, timeout=NPM_SECONDS)
    stamp.write_text(PACKAGE)
    return dist


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def served(dist: Path) -> Iterator[str]:
    """The built UI served on a free local port; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(dist)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "build":
        sys.exit("usage: python -m tests.browser.chat_ui build DIR")
    print(build(Path(sys.argv[2]).resolve()))
