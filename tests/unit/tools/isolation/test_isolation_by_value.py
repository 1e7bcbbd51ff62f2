"""Tools of the main script in worker processes (issue 30): a worker does not import the main script, so such a tool
crosses by value (cloudpickle's copy, made when it is registered, with the globals its code uses as they are then);
one that cannot be pickled is refused when it is registered, naming what cannot be pickled. Run as a script in a fresh
process, where the tools' module is ``__main__``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process isolation needs Linux")

SCRIPT = '''from __future__ import annotations

import json
import threading
from typing import Optional

from langchain_core.tools import tool
from pydantic import BaseModel

SUFFIX = "as at the top"
LOCK = threading.Lock()


class Item(BaseModel):
    name: str
    qty: int = 1


class Refused(Exception):
    """The tool's own error."""


def total(items: list[Item], note: Optional[str] = None) -> str:
    """Add up the items' quantities."""
    if note == "refuse":
        raise Refused("refused", 3)
    return f"{sum(item.qty for item in items)} {SUFFIX}"


async def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, step: int) -> int:
        """Count up by a step."""
        self.count += step
        return self.count


counter = Counter()


@tool
def words(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


def locked(n: int) -> int:
    """Return n under a lock."""
    with LOCK:
        return n


if __name__ == "__main__":
    from reactgraph.config import AgentConfig
    from reactgraph.tools import ToolPolicy, ToolRegistrationError, ToolRegistry
    from reactgraph.tools.execution import execute

    SUFFIX = "as set under the main guard"  # before the tools are registered: their copies have it
    registry = ToolRegistry()
    for name, function in (("total", total), ("shout", shout), ("counter", counter), ("words", words), ("loud", shout)):
        registry.register(name, function, policy=ToolPolicy(isolation="process"))

    def call(name, **args):
        outcome = execute({"id": "c", "index": 0, "tool": name, "args": args}, registry, AgentConfig())
        return [outcome["status"], outcome["error_type"] or None, outcome["content"]]

    found = {
        "total": call("total", items=[{"name": "a", "qty": "2"}, {"name": "b"}]),
        "refused": call("total", items=[], note="refuse"),
        "shout": call("shout", text="abc"),
        "counter": call("counter", step=2),
        "agent_count": counter.count,
        "words": call("words", text="one two three"),
        "loud": call("loud", text="abc"),  # the same copy under a second name, in the same worker
        "counted_again": call("counter", step=2),
    }
    try:
        registry.register(locked, policy=ToolPolicy(isolation="process"))
    except ToolRegistrationError as exc:
        found["registered"] = str(exc)
    unchecked = ToolRegistry()
    unchecked.register(locked)
    try:
        unchecked.check(AgentConfig(tool_execution={"isolation": "process"}))
    except ToolRegistrationError as exc:
        found["checked"] = str(exc)
    print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> dict:
    script = tmp_path_factory.mktemp("by_value") / "agent_script.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_main_script_function_runs_on_a_copy_with_its_globals_as_at_registration(found):
    assert found["total"] == ["ok", None, "3 as set under the main guard"]  # qty "2" converted: its hints crossed


def test_an_exception_class_of_the_main_script_is_rebuilt_as_the_agents(found):
    assert found["refused"][:2] == ["error", "Refused"] and "('refused', 3)" in found["refused"][2]


def test_async_functions_callable_objects_and_langchain_tools_of_the_main_script_cross_by_value(found):
    assert found["shout"] == ["ok", None, "ABC"] and found["words"] == ["ok", None, "3"]
    assert found["counter"] == ["ok", None, "2"] and found["agent_count"] == 0  # the worker counted on its copy
    assert found["counted_again"] == ["ok", None, "2"]  # in the call's own fork: the count ended with the call


def test_a_main_script_tool_under_a_second_name_is_loaded_under_that_name_too(found):
    """Its first call under the second name failed with "ImportError: ... cannot import the tool __main__:...": the
    agent took the copy for loaded in the worker by its reference, the worker by its reference and name."""
    assert found["loud"] == ["ok", None, "ABC"]


def test_a_main_script_tool_that_cannot_be_pickled_is_refused_when_registered_naming_why(found):
    why = (
        "cannot run in a worker process: it is defined in the main script, which worker processes do not import, so "
        "it crosses to them by value (pickled with cloudpickle), and its global 'LOCK' (a lock) cannot be pickled "
        "(TypeError: cannot pickle '_thread.lock' object): make that inside the tool, or define the tool in a module"
    )
    assert found["registered"] == f"tool 'locked': {why}"
    assert found["checked"] == f"tool_execution.isolation='process': tool 'locked' {why} (or register it with ToolPolicy(isolation='none'))"
