"""The python format's first reply on BFCL entries, as the product writes its prompt (v0) or in BFCL's order and words
(v2: how to call first, "you MUST put the calls in the format of [func_name1(params_name1=params_value1, ...)]", then
the functions as one JSON list): the first prompt reactgraph builds, one model call, read by the python format, scored
by BFCL's checker on the calls read. A run per variant, one model job at a time:

    OLLAMA_HOST=http://127.0.0.1:11434 python first_reply.py v2 first-replies-v2.jsonl --offset 100 --offset 60
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from reactgraph import ReActAgent
from reactgraph.config import AgentConfig
from reactgraph.evaluation.bfcl.entries import select
from reactgraph.evaluation.bfcl.scoring import score
from reactgraph.evaluation.bfcl.tools import bfcl_name, entry_tools
from reactgraph.evaluation.building import NON_INTERACTIVE
from reactgraph.models.resolve import resolve_model
from reactgraph.testing import ScriptedChatModel
from reactgraph.tool_calling import FORMATS
from reactgraph.tool_calling._python_calls import PythonFormat
from reactgraph.tool_calling.reading import ReadContext
from reactgraph.tool_calling.tags import Tags
from reactgraph.tools import ToolRegistry
from reactgraph.tools.specs import ToolSpec, tool_specs

CATEGORIES = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple", "irrelevance"]
BFCL_ORDER = (
    "If you decide to invoke any of the functions, you MUST put the calls in the format of "
    "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)], "
    "and you SHOULD NOT include any other text in that reply; the results come back to you. "
    "When the results answer the question, reply with the answer in plain words and no call."
)


def bfcl_order(self: PythonFormat, ctx: ReadContext) -> str:
    listed = ",\n".join(json.dumps(self.listed(spec), ensure_ascii=False) for spec in ctx.tools)
    return f"{ctx.hint}\n\nHere is a list of functions in JSON format that you can invoke.\n[\n{listed}\n]"


def bfcl_expected(self: PythonFormat, specs: tuple[ToolSpec, ...], tags: Tags) -> str:
    return BFCL_ORDER


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("variant", choices=["v0", "v2"])
    parser.add_argument("out")
    parser.add_argument("--offset", type=int, action="append", required=True)
    parser.add_argument("--limit", type=int, default=8)
    args = parser.parse_args()
    if args.variant == "v2":
        PythonFormat.tools_prompt = bfcl_order  # type: ignore[method-assign]
        PythonFormat.expected = bfcl_expected  # type: ignore[method-assign]
    config = AgentConfig().override(**NON_INTERACTIVE).override(tool_calling="python")
    model, fmt = resolve_model("ollama:qwen2.5-coder:1.5b", config), FORMATS["python"]
    entries = [entry for offset in args.offset for entry in select(CATEGORIES, offset=offset, limit=args.limit)]
    right, asked = Counter(), Counter()
    with open(args.out, "w") as out:
        for n, entry in enumerate(entries, 1):
            tools, names = entry_tools(entry)
            scripted = ScriptedChatModel(responses=["x"])  # the first prompt, as the agent builds it
            ReActAgent(model=scripted, tools=ToolRegistry(tools), config=config, checkpointer=None).run(entry.question)
            start = time.perf_counter()
            reply = model.invoke(scripted.calls[0]["messages"], stop=["\nObservation:"])
            seconds = time.perf_counter() - start
            parsed = fmt.read(reply, fmt.context(tool_specs(tools), Tags()))
            calls = [{"name": bfcl_name(a["tool"], names), "args": a["args"]} for a in parsed.actions if "rejection" not in a]
            valid = bool(score(entry, calls).valid)
            right[entry.category] += valid
            asked[entry.category] += 1
            row = {"id": entry.id, "category": entry.category, "valid": valid, "text": reply.text, "seconds": round(seconds, 2)}
            out.write(json.dumps(row) + "\n")
            print(f"{n}/{len(entries)} {entry.id} {'ok' if valid else 'miss'} {seconds:.1f}s", file=sys.stderr, flush=True)
    print(args.variant, {c: f"{right[c]}/{asked[c]}" for c in asked}, "total", sum(right.values()), "/", len(entries))


if __name__ == "__main__":
    main()
