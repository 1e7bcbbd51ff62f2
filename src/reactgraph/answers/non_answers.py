"""Which final replies are answers.

A reply that says nothing, only repeats what the agent itself showed the model (an error
observation, the budget line, a format instruction), says it will call a tool without calling it,
or shows the output of code that nothing ran, is not an answer: think sends it back as an
unreadable reply, and the eval counts such copies for every agent. A copy is found by words, not
by exact text: the reply starts like an error observation or a rejection (``Error (kind): ...``,
``Not run (kind)``), or at least half of its word pairs come from one text the model was shown (a
reply of five words or more)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from reactgraph import prompts

# "Error (timeout)", "Not run (unfounded_call)", "Not accepted yet (unverified_answer)": how an observation of ours starts
ERROR_START = re.compile(r"^\W*(error|tool error|not run(?: yet)?|not accepted yet)\s*\(\s*[a-z_]+\s*\)", re.IGNORECASE)
# "I will use the calculator function", "I'll need to use the researcher", "Let's call the tools": a call announced, not made.
ANNOUNCED = (
    r"\b(?:(?:i|we)(?:['’]ll| will| am going to| are going to| need to| can| should| must)|let(?:['’]s| us| me))"
    r"(?:\s+(?:need|have) to)?\s+(?:now\s+|first\s+)?(?:use|call|invoke|run)\b"
)
# "To double 397.8, you can use the calculator function with the expression "397.8 * 2"": the user told to call it
ADVISED = r"\byou\s+(?:can|could|should|may|need to|would need to)\s+(?:now\s+)?(?:use|call|invoke|run)\b"
# "... is 30", "= 30": a result given beside the advice ("You can use the calculator to check: 12% of 250 is 30.")
GIVES_RESULT = re.compile(r"(?:\bis|\bare|\bwas|=|\bequals|\bgives)\s*[-+$€£]?\d", re.IGNORECASE)
# "```output\n435\n```" after a code block: the model wrote the code and the output it imagined.
MADE_UP_OUTPUT = re.compile(r"```[^\S\n]*(?:output|result|stdout|console)[^\S\n]*\n", re.IGNORECASE)
MIN_WORDS = 5
COPIED_SHARE = 0.5
MAX_NAMING_WORDS = 10  # an answer this short that is a name: checked against the question and the results


def non_answer(answer: str | None, shown: Iterable[tuple[str, str]]) -> str | None:
    """Why ``answer`` is not an answer, or None when it is one. ``shown`` holds (what, text) pairs:
    texts the model was shown that are not answers (error observations, the status line, format
    instructions), ``what`` naming each for the model ("an error observation")."""
    text = (answer or "").strip()
    if not text:
        return "Your reply was empty"
    if ERROR_START.match(text):
        return "Your reply repeats an error message instead of answering the question"
    words = _words(text)
    if len(words) < MIN_WORDS:
        return None
    pairs = _pairs(words)
    for what, source in shown:
        if source and len(pairs & _pairs(_words(source))) >= COPIED_SHARE * len(pairs):
            return f"Your reply repeats {what} instead of answering the question"
    return None


def copied_rule(answer: str, rules: str) -> bool:
    """Whether ``answer`` is mostly one line of ``rules`` (half of the line's word pairs and half of its own): "I
    cannot complete the task only after the tools failed, ..." copied from the system prompt, not "I cannot complete
    the task", which a rule merely shares words with."""
    said = _pairs(_words(answer))
    for line in rules.splitlines():
        pairs = _pairs(_words(line))
        if len(pairs) >= MIN_WORDS and len(shared := said & pairs) >= COPIED_SHARE * len(pairs) and len(shared) >= COPIED_SHARE * len(said):
            return True
    return False


def unfounded_names(answer: str, sources: Iterable[str]) -> list[str]:
    """The names that make a short ``answer`` (``MAX_NAMING_WORDS`` words at most, half of them or more in such names)
    and that none of ``sources`` (the question, the tool results) holds: runs of capitalised words (not all capitals:
    "NOT ENOUGH INFO" is a label) with a word the sources lack (a sentence's first word and "I" are not taken for
    names by themselves). "John Doe", for a mayor that no result names, gives ["John Doe"]; "Rome is in Italy." gives
    none (a fact around a name the results hold)."""
    words = len(re.findall(r"\w+", answer))
    if words > MAX_NAMING_WORDS:
        return []
    known = {word for source in sources for word in _words(source)}
    names = []
    for sentence in re.split(r"(?<=[.!?])\s+", answer.strip()):
        runs: list[list[re.Match]] = []
        for word in re.finditer(r"[^\W\d_][\w'-]*", sentence):
            if not (word.group()[0].isupper() and any(c.islower() for c in word.group())):  # "NOT ENOUGH INFO": a label
                continue
            if runs and not sentence[runs[-1][-1].end():word.start()].strip():
                runs[-1].append(word)
            else:
                runs.append([word])
        for run in runs:
            named = [w.group() for w in run if w.start() > 0 and w.group() != "I"]
            if any(not set(_words(word)) <= known for word in named):
                names.append(" ".join(w.group() for w in run))
    return names if 2 * sum(len(re.findall(r"\w+", name)) for name in names) >= words else []


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:[.,][0-9]+)*", text.lower())


def _pairs(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:], strict=False))


def announced_call(answer: str, tools: Iterable[str]) -> str | None:
    """Why ``answer`` is no answer when it says it will call one of ``tools`` (or "the tool"), or tells the user to
    and gives no result, and calls none; None otherwise. A give-up is checked before this: it may say what it would
    call."""
    names = "|".join(["tools?", "functions?", *(re.escape(name) for name in tools)])
    if re.search(rf"{ANNOUNCED}[^.\n]{{0,80}}?\b(?:{names})\b", answer, re.IGNORECASE):
        return "Your reply says it will call a tool, but it calls none and gives no answer"
    if re.search(rf"{ADVISED}[^.\n]{{0,80}}?\b(?:{names})\b", answer, re.IGNORECASE) and not GIVES_RESULT.search(answer):
        return "Your reply tells the user to call a tool, but it calls none and gives no answer: call it yourself"
    return None


def made_up_output(answer: str) -> str | None:
    """Why ``answer`` is no answer when it shows the output of code it wrote (a fenced ``output`` block):
    nothing ran it, so its numbers are the model's guess. None otherwise."""
    return prompts.MADE_UP_OUTPUT if MADE_UP_OUTPUT.search(answer) else None

