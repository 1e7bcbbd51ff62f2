"""The JSON-lines file of a BFCL eval's records (``bfcl.jsonl`` in ``--out``): one line per entry and agent,
appended as each run ends, read back when the eval starts again, so an interrupted eval picks up where it stopped.
A record whose run crashed (``error``) is run again; a last line cut by a kill is dropped."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reactgraph.config import ConfigError
from reactgraph.evaluation.bfcl.runs import Record

FILE = "bfcl.jsonl"


class Journal:
    """The records of one ``--out`` directory, by (agent, entry id); the newest record of a pair wins."""

    def __init__(self, out: Path, model: str) -> None:
        self.path = out / FILE
        self.model = model
        self.records: dict[tuple[str, str], Record] = {}
        text = self.path.read_text() if self.path.exists() else ""
        self._cut = bool(text) and not text.endswith("\n")  # the next record starts on a line of its own
        if text:
            for line in text.splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short when the eval was killed: that entry runs again
                if record.get("model") != model:
                    raise ConfigError(
                        f"{self.path} holds runs of model {record.get('model')!r}, not {model!r}: "
                        "give another --out (or move the file away) to measure another model"
                    )
                self.records[(record["agent"], record["id"])] = record

    def done(self, agent: str, entry_id: str) -> bool:
        """Whether the pair has a record of a run that did not crash."""
        record = self.records.get((agent, entry_id))
        return record is not None and not record.get("error")

    def add(self, record: Record) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = ("\n" if self._cut else "") + json.dumps(record, ensure_ascii=False, default=str) + "\n"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:  # one write of the whole line: evals of other agents may append to the same file at once
            os.write(descriptor, line.encode())
        finally:
            os.close(descriptor)
        self._cut = False
        self.records[(record["agent"], record["id"])] = record
