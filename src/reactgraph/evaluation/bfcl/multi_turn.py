"""The live API instances of one run of a multi-turn BFCL entry (GorillaFileSystem, TradingBot, TicketAPI...),
driven as BFCL's own inference loop drives them: each call the agent makes becomes a call string, built from the
structured call (``name(key=repr(value),...)``, as BFCL's ``convert_to_function_call``), never from model text,
and is run by BFCL's executor (``execute_multi_turn_func_call``), whose result text is what the model sees.

BFCL's executor keeps the instances in its module's globals, named by model name, entry id and class: a run under
a name another run used would start from that run's state. Every run and every scoring takes a fresh name
(``fresh_name``) and drops its instances when done (``forget``)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from langchain_core.tools import ToolException

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.package import multi_turn_executor

JSON_SCALARS = (str, int, float, bool, type(None))


def fresh_name(purpose: str) -> str:
    """A model name no other run or scoring uses (BFCL names the instances after it)."""
    return f"reactgraph_{purpose}_{uuid.uuid4().hex}"


def forget(name: str) -> None:
    """Drop the instances BFCL's executor made under ``name`` (and the checker under ``name``'s suffixed forms)."""
    space = vars(multi_turn_executor())
    for key in [k for k in space if k.startswith(f"{name}_")]:
        del space[key]


def call_string(name: str, args: Any) -> str:
    """The call as BFCL's executor is given it: ``name(k=repr(v),...)``. Refused (ToolException) unless ``name``
    and every key are identifiers and every value is made of JSON types, so the text is a literal call."""
    if not name.isidentifier():
        raise ToolException(f"{name!r} is not a function name")
    if not isinstance(args, dict):
        raise ToolException("the arguments must be an object of named values")
    for key, value in args.items():
        if not (isinstance(key, str) and key.isidentifier()):
            raise ToolException(f"{key!r} is not a parameter name")
        if not _json_value(value):
            raise ToolException(f"the value of {key} is not a JSON value")
    return f"{name}({','.join(f'{k}={v!r}' for k, v in args.items())})"


def _json_value(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_value(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_value(v) for v in value)
    return isinstance(value, JSON_SCALARS)


class Session:
    """One run's instances of the entry's API classes (built from its initial configuration on the first call) and
    the call strings executed, per user turn, in the order they ran. Calls run one at a time."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.name = fresh_name("run")
        self.turns: list[list[str]] = []
        self._lock = threading.Lock()

    def start_turn(self) -> None:
        self.turns.append([])

    def execute(self, function: str, args: Any) -> str:
        """Run one call of the current turn; BFCL's result text (an error in it reads ``Error during execution``)."""
        call = call_string(function, args)
        with self._lock:
            results, _ = multi_turn_executor().execute_multi_turn_func_call(
                [call], self.entry.initial_config, list(self.entry.involved_classes), self.name, self.entry.id,
                long_context=False, is_evaL_run=False,
            )
            self.turns[-1].append(call)
        return results[0]

    def close(self) -> None:
        forget(self.name)
