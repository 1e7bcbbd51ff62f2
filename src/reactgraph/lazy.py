"""A package's public names imported on first use (PEP 562), so importing the package stays cheap: one
``__getattr__``/``__dir__`` pair for ``reactgraph``, ``reactgraph.tools`` and ``reactgraph.tools.isolation``.
Standard library only."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str], exported: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: a name of ``homes`` (public name -> the module that
    defines it) is imported from its module when first read, then kept in the package (later reads do not come
    here); ``dir()`` lists the package's names and ``exported``."""
    namespace = sys.modules[package].__dict__
    names = set(exported)

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | names)

    return __getattr__, __dir__
