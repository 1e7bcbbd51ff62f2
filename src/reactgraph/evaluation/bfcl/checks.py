"""What each reply check did on BFCL entries (``evaluation.checks``): a check that sent an answer or a give-up back
before any call ran would have left the entry with no call (right only where no function fits); a check that
rewrote the calls of the turn BFCL scores would have left the calls as the model made them, scored by BFCL's checker.
Anything else the trace cannot score."""

from __future__ import annotations

from typing import Any

from reactgraph.evaluation.bfcl.entries import Entry
from reactgraph.evaluation.bfcl.scoring import score
from reactgraph.evaluation.checks import Firing


def entry_firings(entry: Entry, record: dict[str, Any], right: bool) -> list[Firing]:
    """The checks that acted in ``record`` (a reactgraph run of ``entry``), each with what letting it through gave."""
    executed = record.get("executed_step")
    out = []
    for c in record.get("checks") or []:
        let = None
        before_scored = executed is None or c["step"] < executed
        if c["decision"] == "send_back" and c["reply"] in ("answer", "give_up") and before_scored:
            let = score(entry, []).valid
        elif c["decision"] == "rewrite" and c["step"] == executed:
            let = score(entry, c["calls"]).valid
        out.append(Firing(check=c["check"], decision=c["decision"], task=entry.id, right=right, if_let_through=let,
                          tokens_after=c["tokens_after"]))
    return out
