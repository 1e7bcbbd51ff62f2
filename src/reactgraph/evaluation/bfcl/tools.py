"""An entry's functions as tools every agent is given alike: named as OpenAI-style APIs require
(``math.factorial`` becomes ``math_factorial``, mapped back by ``bfcl_name`` before scoring), their parameters as
the JSON schema BFCL's own function-calling handlers send (``dict`` -> ``object``, ``float`` -> ``number`` with a
note, the Python hint on the description).

A single-turn tool records the call and returns directly (``return_direct``: the peers end their run on it;
reactgraph's run ends by its ``termination_callback``): BFCL scores the first calls an agent makes, and its
single-turn functions have no implementation to run. A multi-turn entry's tools run each call on the run's API
instances (``execute``, a ``multi_turn.Session``'s) and give back BFCL's result text; a call refused before it
runs comes back as an error text (``handle_tool_error``), the same for every agent."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.tools import StructuredTool

from reactgraph.config import ConfigError
from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.package import openapi_types

PYTHON_HINT = " Note that the provided function is in Python 3 syntax."  # BFCL's hint for Python categories
NOT_A_NAME = re.compile(r"[^a-zA-Z0-9_-]")  # what OpenAI-style tool names may not hold


def tool_name(name: str) -> str:
    """``name`` as an OpenAI-style tool name: BFCL replaces the dots (and we anything else outside ``[a-zA-Z0-9_-]``)."""
    return NOT_A_NAME.sub("_", name)[:64]


def entry_tools(
    entry: Entry, execute: Callable[[str, Any], str] | None = None
) -> tuple[list[StructuredTool], dict[str, str]]:
    """The entry's tools, and the map from each tool's name back to BFCL's function name; with ``execute``
    (BFCL's function name, the arguments -> the result text) the tools run their calls through it."""
    names: dict[str, str] = {}
    tools = []
    mapping = openapi_types()
    for function in entry.functions:
        name = tool_name(function["name"])
        if name in names:
            raise ConfigError(f"BFCL entry {entry.id}: {function['name']!r} and {names[name]!r} both become tool {name!r}")
        names[name] = function["name"]
        tools.append(
            StructuredTool(
                name=name,
                description=function.get("description", "") + PYTHON_HINT,
                args_schema=json_schema(function.get("parameters") or {}, mapping),
                func=_recorder(name) if execute is None else _executor(function["name"], execute),
                return_direct=execute is None,
                handle_tool_error=execute is not None,
            )
        )
    return tools, names


def json_schema(parameters: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """BFCL's parameters as a JSON schema, converted as BFCL's ``convert_to_tool`` does for OpenAI-style models."""
    schema = copy.deepcopy(dict(parameters))
    schema["type"] = "object"
    schema["properties"] = _cast(schema.get("properties") or {}, mapping)
    return schema


def _cast(properties: dict[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """BFCL's ``_cast_to_openai_type``: each property's type mapped (unknown: string), floats noted, nested
    properties and items cast too."""
    for prop in properties.values():
        kind = prop.get("type")
        if kind == "float":
            prop["format"] = "float"
            prop["description"] = prop.get("description", "") + " This is a float type value."
        prop["type"] = mapping.get(kind, "string") if kind else "string"
        if prop["type"] not in ("array", "object"):
            continue
        items = prop.get("items")
        if "properties" in prop:
            prop["properties"] = _cast(prop["properties"], mapping)
        elif isinstance(items, dict) and items.get("type"):
            items["type"] = mapping.get(items["type"], "string")
            inner = items.get("items")
            if items["type"] == "array" and isinstance(inner, dict) and inner.get("type"):
                inner["type"] = mapping.get(inner["type"], "string")
            elif items["type"] == "object" and "properties" in items:
                items["properties"] = _cast(items["properties"], mapping)
    return properties


def _recorder(name: str) -> Any:
    def record(**arguments: Any) -> str:
        return f"Recorded the call {name}({json.dumps(arguments, ensure_ascii=False, default=str)})."

    return record


def _executor(function: str, execute: Callable[[str, Any], str]) -> Any:
    def run(**arguments: Any) -> str:
        return execute(function, arguments)

    return run


def bfcl_name(name: str, names: Mapping[str, str]) -> str:
    """A tool's name as BFCL names the function (a name not on offer stays as the model wrote it)."""
    return names.get(name, name)
