"""A written reply that makes again calls the turn already made, then writes its final answer, is that answer.

Small models write the whole exchange in one reply: ``Action: calculator[397.8 + 100]`` then ``Final Answer:
497.8``. Before the call has run, the answer after it is a guess and the call runs (``cut_invented``). When each of
the reply's calls was made before in this turn, with the same arguments (compared as the stall rule does) and a
result, running it again shows nothing new: the answer after it is read as the reply's answer, and the answer
checks judge it as any other. (The local model wrote the call and 497.8 three times after the call had given
497.8, until the stall rule stopped the turn.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reactgraph.state import compared_call, runs
from reactgraph.tool_calling import ParsedReply, ReadContext
from reactgraph.tool_calling.tags import cut_invented, find_tag, outside_fences


def answered_again(parsed: ParsedReply, text: str, steps: Sequence[Mapping[str, Any]], ctx: ReadContext) -> ParsedReply:
    """``parsed`` as an answer when its calls are all calls this turn made before with a result and ``text`` has a
    final answer after them; else ``parsed`` as it is."""
    if parsed.source != "text" or not parsed.actions or not all(runs(a) for a in parsed.actions):
        return parsed
    done = [compared_call(a) for step in steps for a, o in zip(step.get("actions") or [], step.get("observations") or [], strict=False)
            if o.get("status") == "ok"]
    if not all(compared_call(a) in done for a in parsed.actions):
        return parsed
    own = outside_fences(text)
    action, final = find_tag(own, ctx.tags.action), find_tag(own, ctx.tags.final_answer)
    if final is None or (action is not None and final.start() < action.start()):
        return parsed
    answer = cut_invented(text[final.end() :], ctx.tags).strip()
    return ParsedReply(thought=parsed.thought, answer=answer) if answer else parsed

