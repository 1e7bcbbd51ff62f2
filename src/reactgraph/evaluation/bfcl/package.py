"""BFCL's own code and data, from the ``bfcl-eval`` package at the version pinned here.

The package is installed without its dependencies (``pip install --no-deps``): as shipped, its AST checker
imports ``bfcl_eval.constants.model_config``, which imports every vendor's SDK (about 470 MB) only to look up
``underscore_to_dot`` by model name. ``ast_checker`` puts a small module of ours in its place before the
import: the one model name the checker is given here, with dotted names compared as they are (the tools' names
are mapped back to BFCL's before scoring, ``tools.bfcl_name``). The checker then needs the standard library only.
BFCL's prompt mode (``prompt_mode``: its system prompt and decoder, for the ``bare`` agent) needs ``filelock`` (the
``bench`` extra) and, for Java and JavaScript only, tree-sitter's parsers: those two modules are stood in for by ones
that refuse, as every category run here is Python.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from reactgraph.config import ConfigError

VERSION = "2026.3.23"
REQUIREMENT = f"bfcl-eval=={VERSION}"
INSTALL = f'pip install -e ".[bench]" && pip install --no-deps "{REQUIREMENT}"'
# The name the checker is told the model has: it decides only how dotted function names are compared.
MODEL_NAME = "reactgraph"
MODEL_CONFIG = "bfcl_eval.constants.model_config"
# BFCL's parsers of Java and JavaScript calls (tree-sitter, not installed): what prompt_mode stands in for
TREE_SITTER_PARSERS = {
    "bfcl_eval.model_handler.parser.java_parser": "parse_java_function_call",
    "bfcl_eval.model_handler.parser.js_parser": "parse_javascript_function_call",
}


class BfclUnavailable(ConfigError):
    """bfcl-eval is not installed (or not at a version with the data and checker this eval reads)."""


def installed_version() -> str | None:
    """The installed bfcl-eval's version, or None."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bfcl-eval")
    except PackageNotFoundError:
        return None


def data_dir() -> Path:
    """BFCL's data: the entries of each category and ``possible_answer/`` (the ground truth)."""
    try:
        root = resources.files("bfcl_eval")
    except ModuleNotFoundError:
        raise BfclUnavailable(f"the BFCL suite needs the bfcl-eval package; install it with: {INSTALL}") from None
    return Path(str(root / "data"))


def version_prefix() -> str:
    """The prefix of BFCL's data files (``BFCL_v4``)."""
    data_dir()
    from bfcl_eval.constants.category_mapping import VERSION_PREFIX

    return VERSION_PREFIX


def ast_checker() -> Any:
    """BFCL's ``ast_checker`` function, imported without the model registry."""
    data_dir()
    if MODEL_CONFIG not in sys.modules:
        sys.modules[MODEL_CONFIG] = _model_config()
    mapping = sys.modules[MODEL_CONFIG].MODEL_CONFIG_MAPPING
    if MODEL_NAME not in mapping:  # the real registry, imported by someone else: add our name to it
        mapping[MODEL_NAME] = types.SimpleNamespace(underscore_to_dot=False)
    return importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker").ast_checker


def python_language() -> Any:
    """BFCL's ``Language.PYTHON`` (every single-turn category run here is Python)."""
    data_dir()
    from bfcl_eval.constants.enums import Language

    return Language.PYTHON


def openapi_types() -> dict[str, str]:
    """BFCL's mapping of its parameter types to JSON-schema types (``dict`` -> ``object``, ``float`` -> ``number``)."""
    data_dir()
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI

    return dict(GORILLA_TO_OPENAPI)


def multi_turn_checker() -> Callable[..., dict[str, Any]]:
    """BFCL's ``multi_turn_checker`` (state and execution-response checks after each turn; standard library only)."""
    data_dir()
    return importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker").multi_turn_checker


def multi_turn_executor() -> types.ModuleType:
    """BFCL's ``multi_turn_utils``: ``execute_multi_turn_func_call``, which keeps each run's API instances in the
    module's globals, named by model name, entry id and class."""
    data_dir()
    return importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils")


def step_limit() -> int:
    """The model replies with calls BFCL allows per user turn (``MAXIMUM_STEP_LIMIT``; one more ends the entry)."""
    data_dir()
    from bfcl_eval.constants.default_prompts import MAXIMUM_STEP_LIMIT

    return int(MAXIMUM_STEP_LIMIT)


def func_doc_files() -> dict[str, str]:
    """The file of each multi-turn API class's function docs, in ``multi_turn_func_doc/``."""
    data_dir()
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    return dict(MULTI_TURN_FUNC_DOC_FILE_MAPPING)


def prompt_mode() -> types.SimpleNamespace:
    """BFCL's prompt mode, as its handlers for chat models in prompt mode use it (``base_oss_handler``):
    ``add_language_specific_hint_to_function_doc`` (the functions' descriptions get the Python hint),
    ``system_prompt_pre_processing_chat_model`` (the default system prompt listing the functions, put before the
    question), ``default_decode_ast_prompting`` (a reply's ``[f(a=1), g(b=2)]`` -> ``[{"f": {"a": 1}}, ...]``) and
    ``is_function_calling_format_output`` (whether what it decoded is a list of calls, the empty list among them)."""
    data_dir()
    for name, function in TREE_SITTER_PARSERS.items():
        if name not in sys.modules and importlib.util.find_spec("tree_sitter") is None:
            sys.modules[name] = _refusing_parser(name, function)
    try:
        hints = importlib.import_module("bfcl_eval.utils")
        handler = importlib.import_module("bfcl_eval.model_handler.utils")
    except ModuleNotFoundError as exc:
        raise BfclUnavailable(f"BFCL's prompt mode needs {exc.name}; install it with: {INSTALL}") from None
    return types.SimpleNamespace(
        add_language_specific_hint_to_function_doc=hints.add_language_specific_hint_to_function_doc,
        system_prompt_pre_processing_chat_model=handler.system_prompt_pre_processing_chat_model,
        default_decode_ast_prompting=handler.default_decode_ast_prompting,
        is_function_calling_format_output=hints.is_function_calling_format_output,
    )


def _refusing_parser(name: str, function: str) -> types.ModuleType:
    module = types.ModuleType(name, "reactgraph's stand-in for a BFCL parser that needs tree-sitter (not installed).")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise BfclUnavailable(f"{function} needs tree-sitter: only BFCL's Python categories are run here")

    setattr(module, function, refuse)
    return module


def _model_config() -> types.ModuleType:
    module = types.ModuleType(MODEL_CONFIG, "reactgraph's stand-in for BFCL's model registry: one model name.")
    module.MODEL_CONFIG_MAPPING = {MODEL_NAME: types.SimpleNamespace(underscore_to_dot=False)}  # type: ignore[attr-defined]
    return module
