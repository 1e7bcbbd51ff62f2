"""Typed final answers (``ReActAgent(..., output_schema=...)``): the schema, an answer read into it, and
its shape as the prompt shows it.

The schema is a pydantic model class, or a signature string such as ``"question -> answer: float,
unit: str"`` that becomes one (``parse_signature``): the fields after ``->``, each ``name: type``
with the types str, int, float, bool, list[...], dict[str, ...] and ``X | None``, read without eval;
a name alone is a str. An answer is read from a JSON object in its text (also inside a fence, or
with prose around it); a schema of one field also takes a bare value (``42.5``). What does not fit
comes back as text that names each field's problem: the model is shown it."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from types import GenericAlias
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from reactgraph.tool_calling.json_blocks import bracketed_spans, loads_lenient
from reactgraph.tool_calling.reading import ParsedReply

OutputSchema = type[BaseModel] | str  # what output_schema= takes
SIGNATURE_MODEL = "Answer"  # the class name of a signature's model (the tool name of its structured output)
TYPE_NAMES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "None": None}
TYPES_HELP = "str, int, float, bool, list[T], dict[str, T], T | None"
TOKEN = re.compile(r"\s*(?:([A-Za-z_]\w*)|([\[\],|]))")
FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
MAX_SHOWN = 80  # characters of a wrong value or answer quoted in a problem
MAX_SCHEMA_DEPTH = 16  # levels of objects and lists an output schema may nest


class SchemaError(ValueError):
    """An output schema that cannot be used (nested deeper than ``MAX_SCHEMA_DEPTH``); the message says why."""


class SignatureError(SchemaError):
    """A signature string that cannot be read; the message names the bad part."""


def output_model(schema: type[BaseModel] | str | None) -> type[BaseModel] | None:
    """The pydantic model of an ``output_schema``: the class itself, or a signature string's model; SchemaError
    when it nests deeper than ``MAX_SCHEMA_DEPTH`` (its shape could not be shown, nor an answer checked)."""
    if schema is None:
        return None
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return checked_depth(schema)
    if isinstance(schema, str):
        return checked_depth(parse_signature(schema))
    raise TypeError(
        "output_schema must be a pydantic model class or a signature string such as "
        f"'question -> answer: float, unit: str', got {schema!r}"
    )


def parse_signature(signature: str) -> type[BaseModel]:
    """The model of ``"inputs -> name: type, ..."`` (the inputs are named only; ``->`` may be left out)."""
    inputs, arrow, outputs = signature.partition("->")
    if not arrow:
        inputs, outputs = "", signature
    if "->" in outputs:
        raise SignatureError(f"signature {signature!r}: more than one '->'")
    for name in _top_level(inputs):
        if not name.split(":")[0].strip().isidentifier():
            raise SignatureError(f"signature {signature!r}: {name.strip()!r} is not an input name")
    fields: dict[str, Any] = {}
    for part in _top_level(outputs):
        name, colon, type_text = (piece.strip() for piece in part.partition(":"))
        if not name.isidentifier():
            raise SignatureError(f"signature {signature!r}: {name!r} is not a field name")
        if name in fields:
            raise SignatureError(f"signature {signature!r}: {name!r} is named twice")
        if name.startswith(("_", "model_")) or hasattr(BaseModel, name):
            raise SignatureError(f"signature {signature!r}: {name!r} is a name pydantic reserves; choose another")
        try:
            annotation = _parse_type(type_text) if colon else str
        except SignatureError as exc:
            raise SignatureError(f"signature {signature!r}: {exc} in {part.strip()!r} (types: {TYPES_HELP})") from None
        fields[name] = (annotation, None) if _optional(annotation) else (annotation, ...)
    if not fields:
        raise SignatureError(f"signature {signature!r}: no output field after '->' (e.g. 'question -> answer: float')")
    return create_model(SIGNATURE_MODEL, __doc__=f"The answer ({outputs.strip()}).", **fields)


def checked_depth(model: type[BaseModel]) -> type[BaseModel]:
    """``model``, when its JSON schema nests no deeper than ``MAX_SCHEMA_DEPTH``; SchemaError otherwise."""
    too_deep = SchemaError(
        f"output_schema {model.__name__}: nested deeper than {MAX_SCHEMA_DEPTH} levels; an answer that deep is no "
        "answer to show or check (flatten it)"
    )
    try:
        root = model.model_json_schema()
    except RecursionError:
        raise too_deep from None
    if _depth(root, root.get("$defs", {}), ()) > MAX_SCHEMA_DEPTH:
        raise too_deep
    return model


def _depth(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> int:
    """Levels of objects and arrays in a JSON schema (a model that refers to itself counts once; counting stops
    past ``MAX_SCHEMA_DEPTH``)."""
    if not isinstance(node, dict) or len(seen) > MAX_SCHEMA_DEPTH + 1:
        return len(seen)
    if ref := node.get("$ref"):
        name = ref.rsplit("/", 1)[-1]
        return 0 if name in seen else _depth(defs.get(name, {}), defs, (*seen, name))
    children = [*(node.get("properties") or {}).values(), *(node.get("anyOf") or node.get("oneOf") or [])]
    children += [node[key] for key in ("items", "additionalProperties") if isinstance(node.get(key), dict)]
    nests = node.get("type") in ("object", "array")
    return max((_depth(child, defs, (*seen, "") if nests else seen) for child in children), default=len(seen) + nests)


def _top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, blank parts dropped."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


def _parse_type(text: str) -> Any:
    """A type written as ``int``, ``list[str]``, ``dict[str, float]``, ``float | None`` (recursive descent)."""
    tokens, at = [], 0
    while at < len(text.rstrip()):
        found = TOKEN.match(text, at)
        if not found:
            raise SignatureError(f"cannot read {text[at:].strip()!r}")
        tokens.append(found.group(1) or found.group(2))
        at = found.end()
    if not tokens:
        raise SignatureError("no type after ':'")
    depth = 0
    for token in tokens:  # before the recursive descent: a deep type is refused, not a RecursionError
        depth += {"[": 1, "]": -1}.get(token, 0)
        if depth >= MAX_SCHEMA_DEPTH:  # the answer's object is a level too
            raise SignatureError(f"nested deeper than {MAX_SCHEMA_DEPTH} levels")
    annotation, used = _union(tokens, 0)
    if used != len(tokens):
        raise SignatureError(f"unexpected {tokens[used]!r}")
    if annotation is None:
        raise SignatureError("'None' alone is no type")
    return annotation


def _union(tokens: list[str], at: int) -> tuple[Any, int]:
    options = []
    while True:
        option, at = _atom(tokens, at)
        options.append(type(None) if option is None else option)
        if at >= len(tokens) or tokens[at] != "|":
            break
        at += 1
    if len(options) == 1:
        return (None if options[0] is type(None) else options[0]), at
    return Union[tuple(options)], at  # noqa: UP007 (the options are only known at run time)


def _atom(tokens: list[str], at: int) -> tuple[Any, int]:
    if at >= len(tokens):
        raise SignatureError("a type is missing")
    name = tokens[at]
    if name not in TYPE_NAMES:
        raise SignatureError(f"unknown type {name!r}")
    at += 1
    if at >= len(tokens) or tokens[at] != "[":
        return (dict[str, Any] if name == "dict" else TYPE_NAMES[name]), at
    if name not in ("list", "dict"):
        raise SignatureError(f"{name} takes no [...]")
    args = []
    while True:
        arg, at = _union(tokens, at + 1)
        args.append(arg)
        if at >= len(tokens):
            raise SignatureError("'[' is not closed")
        if tokens[at] == "]":
            break
        if tokens[at] != ",":
            raise SignatureError(f"unexpected {tokens[at]!r}")
    if name == "list":
        if len(args) != 1:
            raise SignatureError("list takes one type: list[T]")
        return GenericAlias(list, (args[0],)), at + 1  # list[args[0]]
    if len(args) != 2 or args[0] is not str:
        raise SignatureError("dict keys are strings: dict[str, T]")
    return GenericAlias(dict, (str, args[1])), at + 1  # dict[str, args[1]]


def _optional(annotation: Any) -> bool:
    return type(None) in getattr(annotation, "__args__", ()) and getattr(annotation, "__origin__", None) is Union


def read_answer(text: str, schema: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """(the answer as a ``schema`` instance, None), or (None, what does not fit, as the model is told)."""
    values = _json_values(text)
    objects = [value for value in values if isinstance(value, dict)]
    fields = list(schema.model_fields)
    data: Any = next((o for o in objects if set(o) & set(fields)), objects[0] if objects else None)
    if len(fields) == 1 and not (isinstance(data, dict) and fields[0] in data):
        data = {fields[0]: data if data is not None else values[0] if values else text.strip()}
    if data is None:
        return None, f"the answer is no JSON object: {_shown(text.strip())}"
    try:
        return schema.model_validate(data), None
    except ValidationError as exc:
        return None, validation_problem(exc)


def answer_not_call(parsed: ParsedReply, text: str, schema: type[BaseModel] | None) -> ParsedReply:
    """``parsed``, unless its calls were read from JSON in the reply's text and that JSON is an answer of the
    output schema (an object of the schema's own fields that fits it): then the reply is that answer. A typed
    answer shaped like a call (``{"name": ..., "arguments": ...}`` for a schema with those fields) is data, and
    never runs a tool. Calls made through the model's tool-calling API are calls."""
    if schema is None or parsed.source != "json":
        return parsed
    fields = set(schema.model_fields)
    for value in _json_values(text):
        if isinstance(value, dict) and value and set(value) <= fields:
            try:
                schema.model_validate(value)
            except ValidationError:
                continue
            return ParsedReply(thought=text, answer=text)
    return parsed


def _json_values(text: str) -> list[Any]:
    """The JSON values in ``text``: in fences, the whole text, then each ``{...}`` span in it."""
    candidates = [*FENCE.findall(text), text, *bracketed_spans(text)]
    values = [loads_lenient(candidate.strip()) for candidate in candidates if candidate.strip()]
    return [value for value in values if value is not None]


def validation_problem(exc: ValidationError) -> str:
    """Each error as ``field: message (got value)``, joined by ``; ``."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"])
        got = "" if error["type"] == "missing" else f" (got {_shown(error.get('input'))})"
        problems.append(f"{where}: {error['msg']}{got}" if where else f"{error['msg']}{got}")
    return "; ".join(problems)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


class StoredOutput(BaseModel):
    """A typed answer read back without its schema (``reactgraph trace``, an agent that only reads runs): the
    fields as the run stored them, as attributes (``output.value``) and in ``model_dump()``."""

    model_config = ConfigDict(extra="allow", frozen=True)


def stored_output(data: Any, schema: type[BaseModel] | None) -> BaseModel | None:
    """The run's stored ``output``: a ``schema`` instance (None when it does not fit); without a schema, the
    stored fields as a StoredOutput."""
    if schema is None:
        return StoredOutput.model_validate(data) if isinstance(data, dict) else None
    return typed_value(data, schema)


def typed_value(data: Any, schema: type[BaseModel] | None) -> BaseModel | None:
    """The stored plain data as a ``schema`` instance; None without a schema, data, or a fit."""
    if schema is None or data is None:
        return None
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


@lru_cache(maxsize=64)
def answer_shape(schema: type[BaseModel]) -> str:
    """The answer's JSON shape on one line (``{"answer": <number>, "unit": <string>}``), then a line
    ``- field: description`` for each described field."""
    root = schema.model_json_schema()
    lines = [_shape(root, root.get("$defs", {}), ())]
    lines += [f"- {name}: {p['description']}" for name, p in root.get("properties", {}).items() if p.get("description")]
    return "\n".join(lines)


def _shape(node: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> str:
    """A JSON schema written as an example shape; a model that refers to itself again is ``<object>``."""
    if ref := node.get("$ref"):
        name = ref.rsplit("/", 1)[-1]
        return "<object>" if name in seen else _shape(defs.get(name, {}), defs, (*seen, name))
    if options := node.get("anyOf") or node.get("oneOf"):
        return " | ".join(_shape(option, defs, seen) for option in options)
    if "enum" in node:
        return " | ".join(json.dumps(value) for value in node["enum"])
    kind = node.get("type")
    if kind == "object" and (properties := node.get("properties")):
        return "{" + ", ".join(f"{json.dumps(k)}: {_shape(v, defs, seen)}" for k, v in properties.items()) + "}"
    if kind == "object":
        extra = node.get("additionalProperties")
        return f"{{<string>: {_shape(extra, defs, seen)}}}" if isinstance(extra, dict) and extra else "{...}"
    if kind == "array":
        return f"[{_shape(node['items'], defs, seen)}, ...]" if node.get("items") else "[...]"
    if kind == "null":
        return "null"
    return f"<{kind}>" if isinstance(kind, str) else "<any>"
