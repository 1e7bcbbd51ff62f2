"""The system prompt variants of the first-reply screen: writes NAME.json, a JSON string for ``--set system_prompt``
(v0 the default; v1 a rule against working out by hand or in code what a tool does; v2 the call first; v3 v1 and the
give-up line reworded). The budget line (n1) is no prompt variant: run3.sh runs it from a worktree with the change."""

import json

from reactgraph.prompts import SYSTEM_PROMPT as V0

GIVE_UP = "- Say that you cannot complete the task only after the tools failed, or when no tool fits the question at all."
BY_HAND = "- Do not work out by hand or in code what a tool on offer does: call the tool.\n- Call a tool only"
FIRST = "- When a tool on offer does what the question asks, reply with the call first; explain after its result.\n- Call a tool only"
VARIANTS = {
    "v0": V0,
    "v1": V0.replace("- Call a tool only", BY_HAND),
    "v2": V0.replace("- Call a tool only", FIRST),
    "v3": V0.replace("- Call a tool only", BY_HAND).replace(GIVE_UP, "- If the tools failed, or no tool fits the question at all, say so and why."),
}

if __name__ == "__main__":
    for name, text in VARIANTS.items():
        with open(f"{name}.json", "w") as out:
            out.write(json.dumps(text))
