"""The first hour, measured: a fresh clone of this repository, a new virtual environment, the README's two commands
(the first two bash blocks of its Set-up), timed.

    python benchmarks/fresh_clone.py [--ollama URL] [--keep]

1. In a fresh clone, the README's first command (install, then the first question) with a model at OLLAMA_HOST
   (``--ollama``, default http://127.0.0.1:11434: the local model behind ``ollama-shim.py``): it must exit 0 with an
   answer. Timed to its end; the install's share is the time until the command prints the run's thread id.
2. In a second fresh clone, the first command with nothing at OLLAMA_HOST: it must exit 1 with the error that says
   where it looked. Timed to its end.
3. In the first clone, the README's test command: it must exit 0. Timed.

Only what is committed is cloned (a dirty work tree is reported). The figures are printed as JSON, and as the
README's table rows; copy them into the README with the commit they were measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTHING_ANSWERS = "http://127.0.0.1:9"


def setup_commands(readme: str) -> tuple[str, str]:
    """The first two bash blocks of the README's Set-up section: the first command and the test command."""
    section = readme.split("\n## Set-up\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^```bash\n(.*?)\n```", section, flags=re.DOTALL | re.MULTILINE)
    if len(found) < 2:
        raise SystemExit("the README's Set-up has no two bash blocks")
    return found[0].strip(), found[1].strip()


def clone(into: Path) -> Path:
    """A fresh clone of this repository's HEAD."""
    target = into / "reactgraph"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True)
    return target


def timed(command: str, cwd: Path, env: dict[str, str], mark: str | None = None) -> dict:
    """Run ``command`` with bash in ``cwd``; its exit code, output, seconds, and the seconds until a line of its
    output started with ``mark``."""
    started = time.monotonic()
    marked = None
    lines: list[str] = []
    with subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, stdin=subprocess.DEVNULL) as proc:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if mark and marked is None and line.startswith(mark):
                marked = time.monotonic() - started
    return {"code": proc.returncode, "seconds": round(time.monotonic() - started, 1),
            "marked": round(marked, 1) if marked is not None else None, "output": lines}


def environment(ollama: str) -> dict[str, str]:
    """This environment without its virtual environment and reactgraph's settings, OLLAMA_HOST set."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "REACTGRAPH_DB", "COLUMNS")}
    venv_bin = os.environ.get("VIRTUAL_ENV")
    if venv_bin:
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(venv_bin))
    return env | {"OLLAMA_HOST": ollama}


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--ollama", default="http://127.0.0.1:11434", help="the model's Ollama-compatible endpoint")
    args.add_argument("--keep", action="store_true", help="keep the clones (their paths are printed)")
    options = args.parse_args(argv)
    first, tests = setup_commands((ROOT / "README.md").read_text())
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="reactgraph-fresh-"))
    figures: dict = {"commit": commit, "dirty": bool(dirty), "first_command": first, "test_command": tests}
    try:
        with_model = timed(first, clone(work / "a"), environment(options.ollama), mark="thread ")
        figures["first"] = {k: with_model[k] for k in ("code", "seconds", "marked")} | {
            "answer": next((line for line in with_model["output"] if line.startswith(("Answer:", "Partial answer:"))), None),
            "footer": with_model["output"][-1] if with_model["output"] else None,
            "note": next((line for line in with_model["output"] if "using ollama:" in line), None),
        }
        no_model = timed(first, clone(work / "b"), environment(NOTHING_ANSWERS))
        figures["no_model"] = {k: no_model[k] for k in ("code", "seconds")} | {"error": no_model["output"][-1] if no_model["output"] else None}
        testing = timed(tests, work / "a" / "reactgraph", environment(NOTHING_ANSWERS))
        summary = next((line for line in reversed(testing["output"]) if re.search(r"\d+ passed", line)), None)
        figures["tests"] = {k: testing[k] for k in ("code", "seconds")} | {"summary": summary}
        if testing["code"] != 0:
            figures["tests"]["failures"] = [line for line in testing["output"] if line.startswith(("FAILED", "ERROR"))]
    finally:
        if options.keep:
            figures["clones"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    ok = (
        figures["first"]["code"] == 0 and figures["first"]["answer"] is not None
        and figures["no_model"]["code"] == 1 and "Ollama is not reachable" in (figures["no_model"]["error"] or "")
        and figures["tests"]["code"] == 0
    )
    figures["passed"] = ok
    print(json.dumps(figures, indent=2))
    print(
        f"\n| first command, with a local model | {figures['first']['seconds']:.0f} s (install {figures['first']['marked']} s) |"
        f"\n| first command, with no model: the error, exit 1 | {figures['no_model']['seconds']:.0f} s |"
        f"\n| test command ({figures['tests']['summary']}) | {figures['tests']['seconds'] / 60:.1f} min |"
    )
    if dirty:
        print(f"note: the work tree has uncommitted changes; the clones hold {commit} without them", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
