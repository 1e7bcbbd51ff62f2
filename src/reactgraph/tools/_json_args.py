"""Arguments checked against a JSON schema: the ``args_schema`` of MCP tools and of LangChain tools
built from a dict, checked with ``jsonschema`` the way a typed function's arguments are checked
with pydantic (``execution.validate_args``):

- a missing argument, a value of the wrong type or outside its ``enum``, and an argument the schema
  does not name (unless it allows more with ``additionalProperties``) are InvalidArguments that list
  the expected arguments;
- a number or a yes/no written as text (``"2"``, ``"true"``) is read as its type, as pydantic's lax
  mode reads it: the text tool-calling format writes every input as text.

A schema jsonschema cannot apply (a broken tool schema, not the model's mistake) leaves the arguments
unchecked, for the tool to judge.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

from reactgraph.tools.policy import InvalidArguments
from reactgraph.tools.specs import fits

SCALARS = ("integer", "number", "boolean")


def check_json_args(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """``args`` (text scalars read as their types) if they fit ``schema``; else InvalidArguments."""
    args = read_scalars(schema, args)
    validator = validator_for(schema)
    try:
        validator.check_schema(schema)
        errors = list(validator(schema).iter_errors(args))
    except (SchemaError, Unresolvable):
        return args
    problems = [f"unexpected argument {name!r}" for name in unexpected(schema, args)]
    problems += [_problem(e) for e in errors if not (e.validator == "additionalProperties" and not e.absolute_path)]
    if problems:
        raise InvalidArguments(f"{'; '.join(problems)}. Expected arguments: {expected(schema) or 'none'}")
    return args


def read_scalars(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with each text value of an integer, number or boolean argument read as that type
    (when it reads as one; an argument that may also be a string stays text)."""
    properties = schema.get("properties") or {}
    read = dict(args)
    for name, value in args.items():
        kinds = _types(properties.get(name), anywhere=True)
        if not isinstance(value, str) or "string" in kinds:
            continue
        kind = next((k for k in kinds if k in SCALARS and fits(value, k)), None)
        if kind == "boolean":
            read[name] = value.strip().lower() in ("true", "yes", "1")
        elif kind is not None:
            number = value.strip()
            read[name] = int(number) if re.fullmatch(r"[+-]?\d+", number) else float(number)
    return read


def unexpected(schema: dict[str, Any], args: dict[str, Any]) -> list[str]:
    """Arguments the schema does not name, when it names its arguments and allows no others."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or schema.get("additionalProperties", False) is not False or "patternProperties" in schema:
        return []
    return sorted(set(args) - set(properties))


def expected(schema: dict[str, Any]) -> str:
    """``a: integer, unit: "m" | "ft" (optional), n: number (optional, leave it out for 1)``."""
    required = set(schema.get("required") or ())
    parts = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = _resolved(schema, prop)
        if name in required:
            optional = ""
        elif isinstance(prop, dict) and "default" in prop:
            optional = f" (optional, leave it out for {prop['default']!r})"
        else:
            optional = " (optional)"
        parts.append(f"{name}: {_type_text(schema, prop)}{optional}")
    return ", ".join(parts)


def _type_text(root: dict[str, Any], prop: Any) -> str:
    prop = _resolved(root, prop)
    if not isinstance(prop, dict):
        return "any"
    if "enum" in prop:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"], ensure_ascii=False)
    if options := prop.get("anyOf") or prop.get("oneOf"):
        return " | ".join(_type_text(root, option) for option in options)
    if kinds := _types(prop):
        return " | ".join(kinds)
    return "object" if "properties" in prop else "any"


def _types(prop: Any, *, anywhere: bool = False) -> list[str]:
    """The JSON types ``prop`` names in its ``type`` (``anywhere``: also in its anyOf / oneOf options)."""
    if not isinstance(prop, dict):
        return []
    kind = prop.get("type")
    kinds = [kind] if isinstance(kind, str) else [k for k in kind if isinstance(k, str)] if isinstance(kind, list) else []
    if anywhere:
        kinds += [k for option in (prop.get("anyOf") or prop.get("oneOf") or []) for k in _types(option)]
    return kinds


def _resolved(root: dict[str, Any], prop: Any) -> Any:
    """``prop``, or the part of ``root`` its local ``$ref`` (``#/$defs/Point``) points to."""
    ref = prop.get("$ref") if isinstance(prop, dict) else None
    if not (isinstance(ref, str) and ref.startswith("#/")):
        return prop
    target: Any = root
    for key in ref[2:].split("/"):
        target = target.get(key) if isinstance(target, dict) else None
    return target if isinstance(target, dict) else prop


def _problem(error: Any) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return f"{path}: {error.message}" if path else error.message
