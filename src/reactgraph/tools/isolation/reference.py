"""Which tools can run in a worker process: a worker imports a tool by ``module:qualname``, so only a tool
bound to a module-level name can cross (a closure, a lambda or a tool made at run time cannot)."""

from __future__ import annotations

import os
import sys
from typing import Any

IN_PROCESS = "reactgraph_in_process"
"""Key of ``tool.metadata`` whose value says why a tool runs only in the agent's process (sub-agents, MCP tools)."""

class NotIsolatable(ValueError):
    """A tool cannot run in a worker process; the message says why."""


def reference(tool: Any) -> str:
    """``module:qualname`` by which a worker imports ``tool`` (what was registered: a function, a callable
    object, a LangChain tool); NotIsolatable saying why when it cannot be imported that way."""
    if not sys.platform.startswith("linux"):
        raise NotIsolatable(f"process isolation needs Linux (this is {sys.platform})")
    main = sys.modules.get("__main__")
    main_file = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is None and main_file is not None and not os.path.isfile(main_file):
        raise NotIsolatable(  # multiprocessing would re-import it in every worker, and fail
            f"the main module {main_file!r} is not a file, and worker processes import the main module: run the "
            "agent from a file or a module (python -m)"
        )
    reason = (getattr(tool, "metadata", None) or {}).get(IN_PROCESS)
    if reason:
        raise NotIsolatable(f"{reason}, so it runs in the agent's process")
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)  # a StructuredTool's function
    named = [obj for obj in (tool, func) if isinstance(getattr(obj, "__qualname__", None), str)]
    for obj in named:  # a function, or a @tool function whose module name now holds the tool
        if resolve_name(obj.__module__, obj.__qualname__) is tool:
            return _checked(obj.__module__, obj.__qualname__)
    for module in {type(tool).__module__, *(obj.__module__ for obj in named)}:  # an object bound to a module name
        for name, value in list(vars(sys.modules.get(module, object)).items()):
            if value is tool:
                return _checked(module, name)
    qualname = getattr(named[0], "__qualname__", "") if named else ""
    if "<lambda>" in qualname:
        raise NotIsolatable("it is a lambda; a worker process imports a tool by module and name: define it with def at module level")
    if "<locals>" in qualname:
        raise NotIsolatable(
            "it is defined inside a function (a closure); a worker process imports a tool by module and name: "
            "define it at module level"
        )
    raise NotIsolatable(
        "it is not bound to a module-level name; a worker process imports a tool by module and name: "
        "define it (or assign it) at module level"
    )


def resolve_name(module: str, qualname: str) -> Any:
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def _checked(module: str, qualname: str) -> str:
    if module == "__main__":
        main = sys.modules["__main__"]
        if getattr(main, "__file__", None) is None and getattr(main, "__spec__", None) is None:
            raise NotIsolatable("it is defined in an interactive session; a worker process can import it only from a file")
    return f"{module}:{qualname}"
