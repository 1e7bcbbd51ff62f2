"""What a format knows of a tool: its name, description, inputs and their types."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from reactgraph import prompts

EXAMPLE = re.compile(r"\bExample:\s*\"([^\"]+)\"")
"""How a tool's description gives an example input (the calculator's ``Example: "sqrt(16) + 2**3"``)."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the reader and the prompt see it."""

    name: str
    description: str = ""
    params: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    types: tuple[str, ...] = ()  # each param's JSON-schema type ("" when not a simple type)
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (param, its allowed values) for enum params
    schema: str = ""  # the JSON schema of its inputs, as JSON text (the Python format lists it whole)

    def takes_positionally(self, values: Sequence[str]) -> bool:
        """Whether comma-separated text inputs are, in order, this tool's params: as many as it takes;
        when it needs at most one, only if each fits its param's type and one beyond the first is a
        number or a yes/no (so ``grep[Hello, world]`` stays one text, ``read_file[a.txt, 1, 5]`` splits)."""
        if len(values) < 2 or not len(self.required) <= len(values) <= len(self.params):
            return False
        if len(self.required) > 1:
            return True
        types = self.types or ("",) * len(self.params)
        typed = any(kind in ("integer", "number", "boolean") for kind in types[1 : len(values)])
        return typed and all(fits(value, kind) for value, kind in zip(values, types, strict=False))

    @property
    def example(self) -> str | None:
        """The example input of a tool with one input, when its description gives one."""
        found = EXAMPLE.search(self.description) if len(self.params) == 1 else None
        return found.group(1) if found else None

    def signature(self) -> str:
        """How the tool list writes a call: ``name[<param>, ...]``, each input a placeholder (listed as
        ``calculator[expression]``, the local model wrote ``calculator[expression]{"num1": 397.8, ...}``)."""
        return f"{self.name}[{', '.join(f'<{p}>' for p in self.params)}]"


def tool_specs(tools: Iterable[Any]) -> tuple[ToolSpec, ...]:
    """ToolSpecs of LangChain tools, functions or pydantic models (as bound to a model)."""
    specs = []
    for tool in tools:
        fn = convert_to_openai_tool(tool)["function"]
        params = fn.get("parameters") or {}
        specs.append(
            ToolSpec(
                name=fn["name"],
                description=" ".join((fn.get("description") or "").split()),
                params=tuple(properties := params.get("properties") or {}),
                required=tuple(params.get("required") or ()),
                types=tuple(str(p.get("type", "")) for p in properties.values()),
                choices=tuple((k, tuple(map(str, p["enum"]))) for k, p in properties.items() if p.get("enum")),
                schema=json.dumps(params, ensure_ascii=False, default=str),
            )
        )
    return tuple(specs)


def fits(value: str, kind: str) -> bool:
    """Whether a text input can be a value of a JSON-schema type."""
    if kind == "integer":
        return re.fullmatch(r"[+-]?\d+", value.strip()) is not None
    if kind == "number":
        return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", value.strip()) is not None
    if kind == "boolean":
        return value.strip().lower() in {"true", "false", "yes", "no", "1", "0"}
    return True


def option_tool(name: str, args: Any, specs: Sequence[ToolSpec]) -> tuple[ToolSpec, str, str] | None:
    """(the tool, its parameter, the option as the tool spells it) when ``name`` is not a tool but an option of one
    tool's parameter (``count`` of ``text``'s ``operation``) and the call's arguments, an object, name only that
    tool's parameters and give that one ``name`` or nothing: the call meant that tool. None when another reading is
    possible (two tools take the option, an argument the tool lacks, the parameter set to another option)."""
    if not isinstance(args, dict) or any(spec.name.lower() == name.strip().lower() for spec in specs):
        return None
    found = [
        (spec, param, value) for spec in specs for param, values in spec.choices for value in values
        if value.lower() == name.strip().lower()
    ]
    if len(found) != 1:
        return None
    spec, param, value = found[0]
    given = args.get(param)
    if not set(args) <= set(spec.params) or (given is not None and str(given).lower() != value.lower()):
        return None
    return spec, param, value


def unknown_tool(name: str, specs: Sequence[ToolSpec]) -> str:
    """What to tell a model that called a tool that is not on offer: the tools there are, and the
    one it probably meant (a close name, or a tool that takes ``name`` as one of its options); with
    neither, that it may call none (a made-up call to the one tool there is is worse than no call)."""
    names = [spec.name for spec in specs]
    text = f"there is no tool {name!r}; the tools are: {', '.join(names) or 'none'}"
    for spec in specs:
        for param, values in spec.choices:
            if name.lower() in (value.lower() for value in values):
                return f"{text}. {name!r} is an option ({param}) of {spec.name}: call {spec.name} with {param}={name!r}"
    if close := difflib.get_close_matches(name, names, n=1, cutoff=0.7):
        return f"{text}; the closest name is {close[0]}"
    return f"{text}; {prompts.NO_TOOL_FITS}"
