"""Which tools can run in a worker process, and how each crosses to it (``crossing``): a tool bound to a module-level
name of an importable module by reference (the worker imports ``module:qualname``), a tool of the main script by value
(a copy pickled with cloudpickle, made when it is first checked: workers do not re-run the main script). A closure, a
lambda or a tool made at run time cannot cross, nor a main script's tool that cannot be pickled."""

from __future__ import annotations

import hashlib
import inspect
import io
import sys
import types
import typing
from dataclasses import dataclass
from typing import Any

IN_PROCESS = "reactgraph_in_process"
"""Key of ``tool.metadata`` whose value says why a tool runs only in the agent's process (sub-agents, MCP tools)."""

class NotIsolatable(ValueError):
    """A tool cannot run in a worker process; the message says why."""


@dataclass(frozen=True)
class Crossing:
    """How a tool reaches a worker process. By reference: ``ref`` is ``module:qualname``, which the worker imports. By
    value (a tool of the main script): ``pickled`` is its copy, which the worker loads (``ref`` is then
    ``__main__:qualname@digest``, the copy's name). ``modules``: what the fork server preloads for it (the module it is
    imported from; for a copy, cloudpickle and the modules the copy uses)."""

    ref: str
    modules: tuple[str, ...]
    pickled: bytes | None = None


_COPIES: dict[int, tuple[Any, Crossing]] = {}  # id of a main script's tool -> (the tool, its copy): pickled once


def crossing(tool: Any) -> Crossing:
    """How ``tool`` (what was registered: a function, a callable object, a LangChain tool) crosses to a worker;
    NotIsolatable saying why when it cannot."""
    if not sys.platform.startswith("linux"):
        raise NotIsolatable(f"process isolation needs Linux (this is {sys.platform})")
    reason = (getattr(tool, "metadata", None) or {}).get(IN_PROCESS)
    if reason:
        raise NotIsolatable(f"{reason}, so it runs in the agent's process")
    func = getattr(tool, "func", None) or getattr(tool, "coroutine", None)  # a StructuredTool's function
    named = [obj for obj in (tool, func) if obj is not None and isinstance(getattr(obj, "__qualname__", None), str)]
    for obj in named:  # a function, or a @tool function whose module name now holds the tool
        if resolve_name(obj.__module__, obj.__qualname__) is tool:
            return _crossing(tool, obj.__module__, obj.__qualname__)
    for module in {type(tool).__module__, *(obj.__module__ for obj in named)}:  # an object bound to a module name
        for name, value in list(vars(sys.modules.get(module, object)).items()):
            if value is tool:
                return _crossing(tool, module, name)
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


def _crossing(tool: Any, module: str, qualname: str) -> Crossing:
    if module != "__main__":
        return Crossing(f"{module}:{qualname}", (module,))
    known = _COPIES.get(id(tool))
    if known is None or known[0] is not tool:
        known = _COPIES[id(tool)] = (tool, _copy(tool, qualname))
    return known[1]


def _copy(tool: Any, qualname: str) -> Crossing:
    """A main script's tool by value: cloudpickle's copy of it (with the globals its code uses, as they are now) and its
    type hints resolved here (the copy's globals hold only the names its code uses, not those its annotations name as
    text, under ``from __future__ import annotations``); the modules the copy refers to, recorded while pickling."""
    import cloudpickle

    modules: dict[str, None] = {"cloudpickle": None}

    class Copier(cloudpickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, types.ModuleType):
                modules[obj.__name__] = None
            elif isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
                home = getattr(obj, "__module__", None)
                if isinstance(home, str) and home in sys.modules and home not in ("__main__", "builtins"):
                    modules[home] = None
            return super().reducer_override(obj)

    buffer = io.BytesIO()
    try:
        Copier(buffer).dump((tool, _hints(tool)))
    except Exception as exc:
        culprit = _culprit(tool)
        raise NotIsolatable(
            "it is defined in the main script, which worker processes do not import, so it crosses to them by value "
            f"(pickled with cloudpickle), and {culprit or 'it'} cannot be pickled ({type(exc).__name__}: {exc}): make "
            f"{'that' if culprit else 'what cannot be pickled'} inside the tool, or define the tool in a module"
        ) from None
    pickled = buffer.getvalue()
    return Crossing(f"__main__:{qualname}@{hashlib.sha256(pickled).hexdigest()[:12]}", tuple(modules), pickled)


def _function(obj: Any) -> Any:
    """The main script's function that ``obj`` is or runs when called (a callable object's ``__call__``), or None."""
    func = obj if inspect.isfunction(obj) else getattr(type(obj), "__call__", None)
    return func if inspect.isfunction(func) and func.__module__ == "__main__" else None


def _hints(tool: Any) -> dict[str, Any] | None:
    func = _function(tool)
    try:
        return typing.get_type_hints(func, include_extras=True) if func is not None else None
    except Exception:  # the worker's validate_call then says which name it lacks
        return None


def _culprit(tool: Any) -> str | None:
    """'its global NAME (a TYPE)': the first global that the code the tool runs (its own, a callable object's
    ``__call__``, a LangChain tool's function) uses and that cannot be pickled, or None."""
    import cloudpickle

    for func in filter(None, map(_function, (tool, getattr(tool, "func", None), getattr(tool, "coroutine", None)))):
        names, codes = set(), [func.__code__]
        while codes:  # the names its code and its nested functions' code use
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
        for name in sorted(names & set(func.__globals__)):
            try:
                cloudpickle.dumps(func.__globals__[name])
            except Exception:
                return f"its global {name!r} (a {type(func.__globals__[name]).__name__})"
    return None
