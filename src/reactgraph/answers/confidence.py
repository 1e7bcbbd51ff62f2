"""Confidence: a score in [0, 1] of how likely a finished run's answer is right, and the signals
behind it. A pure function of the finished state (``confidence_of``); terminate writes it.

The rule, each step a named signal whose effect is what it added (the effects add up to the score):

1. ``ended`` — a base by how the run ended: ``success`` 0.7; the model gave up (``failure``) 0.5;
   a partial answer after a limit (``max_iterations``, ``token_budget``, ``timeout``) or after
   unreadable replies 0.35; a ``stalled`` run 0.2; any other stop 0.4.
2. ``support`` — when tools were called, is the answer in an ok observation (a give-up is not
   checked)? If the answer has numbers the question does not, they decide: one of them in an
   observation, compared as numbers (``1,234.50`` = ``1234.5``; ``3.14`` matches ``3.14159``
   rounded to the answer's decimals), is supported; of an answer that shows its working (``4.80 * 60 + 5.20 * 35 =
   177.60``) only the result's numbers count, after the last "=". Otherwise its distinctive words (three letters
   or more, not in the question, not common words) decide: at least half of them in an observation
   is supported. Supported +0.2, unsupported -0.25; an answer with neither is not checked.
   ``unchecked`` (effect 0) — no tool was called, and the answer has numbers the question does not: they
   came from the model alone. It does not change the score; ``check_reason`` reads it.
   ``uncovered`` — -0.2 when the question names two or more things (places, names, dates) and the run's tool calls
   and results hold some of them but not the others: part of the question has nothing behind it.
   ``unused`` — -0.2 when a number the question gives (not 0 or 1) is in no tool call's arguments and not in the
   answer: the run left part of the question out ("How many layers does the architecture have, times 3?" answered
   with the 13 a sub-agent found, no multiplication by 3: 0.90 before, 0.70 with it). Replayed on the recorded runs
   of the local model it raised the AUROC of every suite run and changed no walkthrough run's
   (benchmarks/confidence_replay.py).
   ``guessed`` — -0.3 when a call that gave a result was made on a number with decimals that neither the question,
   an earlier answer of the conversation nor a result of that reply or before it holds, or is a calculation on
   whole numbers none of which was given (``guessed_inputs``): the model wrote a value it had not been given (the
   area of a circle, before the lookup that gives it came back; "my two lucky numbers" as 7 and 13), or a calculation
   made beside a lookup on a whole number nothing gave (``multiply(a=5, b=3)`` beside the researcher that found 13).
   ``stumbled`` — -0.2 when the run ended with an answer after a reply of the model's was sent back as no answer
   (code with the output it imagined, a call announced but not made, a copy of the prompt): the answer came after
   the model had worked it out its own way. Replayed on 14 recorded runs of the local model it raised the AUROC in
   every suite run and changed no walkthrough run (mean 0.65 -> 0.77; benchmarks/confidence_replay.py).
3. ``tool_errors`` — -0.1 for each tool call that failed (a retry did not recover it), at most -0.3.
4. ``retries`` — -0.03 for each retry a recovered tool call needed, at most -0.1.
5. ``clamp`` — the sum so far, kept within [0, 1].
6. ``own_estimate`` — when the model gave its own estimate (``ask_confidence``: a last line such as
   ``Confidence: 0.8``, read and cut from the answer by ``read_estimate``), the score becomes
   0.7 × the rule + 0.3 × the estimate.

A run without an answer (none given, or paused for a question or an approval) has no score: None.

``check_reason`` is the rule by which think sends a final answer back once to be checked with a tool
(``answer_checks``): the ``support`` signal found no tool result with it, or the ``unchecked`` one applies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel

BASE = {
    "success": 0.7,
    "failure": 0.5,
    "max_iterations": 0.35,
    "token_budget": 0.35,
    "timeout": 0.35,
    "stalled": 0.2,
}
OTHER_BASE = 0.4  # custom, cancelled
PARTIAL_BASE = 0.35  # a partial answer starts at most here
SUPPORTED, UNSUPPORTED = 0.2, -0.25
UNCOVERED = -0.2  # parts of the question no tool call or result covers
UNUSED = -0.2  # numbers of the question no tool call and not the answer uses
GUESSED = -0.3  # a call made on a number nothing had given yet (guessed_inputs)
SUPPORTED_SHARE = 0.5  # of an answer's distinctive words found in observations
STUMBLED = -0.2  # an answer after a reply sent back as no answer
PLAIN = frozenset({Decimal(0), Decimal(1)})  # numbers any call may use without having read them anywhere
ARITHMETIC = re.compile(r"[\d\s.,+\-*/()%^x×÷]*\d[\d\s.,+\-*/()%^x×÷]*")
NO_ANSWER_KINDS = frozenset({"non_answer", "empty_reply"})  # ErrorKind's values for a reply sent back as no answer
TOOL_ERROR, MAX_TOOL_ERRORS = -0.1, -0.3
RETRY, MAX_RETRIES = -0.03, -0.1
OWN_WEIGHT = 0.3
MODEL_REPLY = "(model reply)"  # observe's tool name for an unreadable reply's error

# 1,234.50 / 1234.5 / -7 / .5 / 1e3; digits inside a word (q1, 2nd) are not numbers
NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?![\w])")
WORD = re.compile(r"[^\W_]+")
COMMON = frozenset(
    "the and for are was were been being has have had not but its it's this that these those with from into "
    "onto than then there their they them you your our his her she him who whom whose which what when where why "
    "how all any each both few more most other some such only own same too very can will just should would could "
    "may might must shall about above after again against below between during before over under out off once "
    "here yes also answer result results question total value number equals equal approximately".split()
)
ESTIMATE = re.compile(
    r"^[ \t]*[*_#>-]*[ \t]*confidence[ \t]*[*_]*[ \t]*[:=][ \t]*[*_]*[ \t]*(\d+(?:\.\d+)?|\.\d+)[ \t]*(%?)[ \t]*[*_.]*[ \t]*(?:\n|$)",
    re.IGNORECASE | re.MULTILINE,
)


class ConfidenceSignal(BaseModel):
    """One signal behind a confidence score: how much it added to the score, and why (``numbers``: the answer's
    own numbers it is about, for the support of a numeric answer and ``unchecked``)."""

    effect: float
    detail: str
    numbers: list[str] = []


@dataclass(frozen=True)
class Confidence:
    """The score (None without an answer) and its signals, by name, in the order they applied."""

    score: float | None
    signals: dict[str, ConfidenceSignal] = field(default_factory=dict)

    def as_state(self) -> dict[str, Any]:
        """The state update: ``confidence`` and ``confidence_signals`` as plain data."""
        return {"confidence": self.score, "confidence_signals": {k: s.model_dump() for k, s in self.signals.items()}}


def read_estimate(text: str) -> tuple[str, float | None]:
    """(``text`` without its ``Confidence: 0.8`` lines, the last one's value in [0, 1]). ``80%`` and
    ``80`` are read as 0.8. No such line: (``text``, None); a reply that is nothing but the line
    keeps its text."""
    found = [m for m in ESTIMATE.finditer(text) if _estimate(m) is not None]
    if not found:
        return text, None
    rest = ESTIMATE.sub(lambda m: "" if _estimate(m) is not None else m.group(0), text).strip()
    return (rest or text), _estimate(found[-1])


def _estimate(match: re.Match[str]) -> float | None:
    value = float(match.group(1))
    if match.group(2) or value > 1:
        value /= 100
    return value if 0 <= value <= 1 else None


def confidence_of(state: Mapping[str, Any], estimate: float | None = None) -> Confidence:
    """The score of a finished state (its ``final_answer``, ``termination``, ``partial``, ``steps``,
    ``errors`` and ``question``) by the rule above, blended with the model's ``estimate`` if any."""
    answer = (state.get("final_answer") or "").strip()
    if not answer:
        return Confidence(None)
    reason = (state.get("termination") or {}).get("reason", "failure")
    partial = bool(state.get("partial"))
    signals: dict[str, ConfidenceSignal] = {"ended": _ended(reason, partial)}
    observations = [o for step in state.get("steps") or [] for o in step.get("observations") or [] if o.get("tool")]
    gave_up = reason == "failure" and not partial
    question = state.get("question") or ""
    if observations and not gave_up:
        found = [o["content"] for o in observations if o.get("status") == "ok"]
        calls = called(state)
        if (support := _support(answer, question, found)) is not None:
            signals["support"] = support
        if missing := uncovered(question, [*found, *calls]):
            signals["uncovered"] = ConfidenceSignal(
                effect=UNCOVERED, detail=f"no tool call or result covers {', '.join(missing)}"
            )
        if unused := unused_numbers(question, calls, answer):
            signals["unused"] = ConfidenceSignal(
                effect=UNUSED, detail=f"no tool call and not the answer uses the question's {', '.join(unused[:3])}"
            )
        if guesses := guessed_inputs(state):
            shown = [str(n) for n in guesses[:3]]
            signals["guessed"] = ConfidenceSignal(
                effect=GUESSED, detail=f"a tool was called on number(s) nothing had given: {', '.join(shown)}", numbers=shown
            )
    elif not gave_up and (numbers := new_numbers(answer, question)):
        shown = [str(n) for n in numbers[:5]]
        signals["unchecked"] = ConfidenceSignal(
            effect=0.0, detail=f"no tool was called for the number(s) {', '.join(shown)}", numbers=shown
        )
    if reason == "success" and (refused := no_answer_replies(state)):
        signals["stumbled"] = ConfidenceSignal(effect=STUMBLED, detail=f"{refused} repl{'y' if refused == 1 else 'ies'} sent back as no answer")
    errors = [e for e in state.get("errors") or [] if e.get("tool") != MODEL_REPLY]
    if failed := sum(not e.get("recovered") for e in errors):
        signals["tool_errors"] = ConfidenceSignal(
            effect=max(MAX_TOOL_ERRORS, TOOL_ERROR * failed), detail=f"{failed} failed tool call(s)"
        )
    if retries := sum(e.get("retries") or 0 for e in errors if e.get("recovered")):
        signals["retries"] = ConfidenceSignal(
            effect=max(MAX_RETRIES, RETRY * retries), detail=f"{retries} retr{'y' if retries == 1 else 'ies'} before a tool call worked"
        )
    rule = sum(s.effect for s in signals.values())
    score = min(1.0, max(0.0, rule))
    if score != rule:
        signals["clamp"] = ConfidenceSignal(effect=score - rule, detail="kept within [0, 1]")
    if estimate is not None:
        blended = (1 - OWN_WEIGHT) * score + OWN_WEIGHT * estimate
        signals["own_estimate"] = ConfidenceSignal(
            effect=blended - score, detail=f"{estimate:.2f}, the model's own estimate, weighs {OWN_WEIGHT:g}"
        )
        score = blended
    rounded = {k: s.model_copy(update={"effect": round(s.effect, 3)}) for k, s in signals.items()}
    return Confidence(round(score, 3), rounded)


def called(state: Mapping[str, Any]) -> list[str]:
    """The arguments of every tool call of the run, as text."""
    return [str(a.get("args") or "") for step in state.get("steps") or [] for a in step.get("actions") or [] if a.get("tool")]


def no_answer_replies(state: Mapping[str, Any]) -> int:
    """How many of the run's replies were sent back as no answer (their observations' error kind)."""
    return sum(o.get("error_kind") in NO_ANSWER_KINDS for step in state.get("steps") or [] for o in step.get("observations") or [])


def guessed_inputs(state: Mapping[str, Any]) -> list[Decimal]:
    """The numbers in the arguments of the run's calls that gave a result which neither the question, an earlier
    turn's answer nor a result of that reply or an earlier one holds: numbers with decimals, and the whole numbers
    of a calculation none of whose numbers was given (``multiply(a=7, b=13)`` for "my two lucky numbers") or made in
    the same reply as a lookup, a call with no number (``multiply(a=5, b=3)`` beside ``researcher(task="Count the
    layers")``, which found 13). Other whole numbers are left out: counts, limits and factors such as 2 or 100 are
    written freely."""
    earlier = [state.get("question") or "", *(t.get("answer") or "" for t in state.get("turns") or [])]
    known = [n for text in earlier for n in numbers_in(text)]
    out: list[Decimal] = []
    for step in state.get("steps") or []:
        ran = [(a, seen) for a, seen in zip(step.get("actions") or [], step.get("observations") or [], strict=False)
               if a.get("tool") and seen.get("status") == "ok"]
        known += [n for _, seen in ran for n in numbers_in(seen.get("content") or "")]
        given = [numbers_in(json.dumps(a.get("args") or {}, default=str)) for a, _ in ran]  # each call's numbers
        lookup = any(not numbers for numbers in given)
        for (action, _), numbers in zip(ran, given, strict=True):
            args = action.get("args") or {}
            written = [n for n in numbers if n not in PLAIN]
            new = [n for n in written if not any(_same_number(n, k) or _same_number(k, n) for k in known)]
            # a calculation on nothing it was given, or beside a lookup whose result its number should have been
            whole = is_calculation(args) and (len(new) == len(written) or lookup)
            out += [n for n in new if whole or n != n.to_integral_value()]
    return out


def is_calculation(args: Mapping[str, Any]) -> bool:
    """Whether every argument is a number or an arithmetic expression of numbers (``"7 * 13"``)."""
    return bool(args) and all(
        (isinstance(v, (int, float)) and not isinstance(v, bool)) or (isinstance(v, str) and ARITHMETIC.fullmatch(v) is not None)
        for v in args.values()
    )


def _ended(reason: str, partial: bool) -> ConfidenceSignal:
    base = BASE.get(reason, OTHER_BASE)
    if partial:
        base = min(base, PARTIAL_BASE)
        return ConfidenceSignal(effect=base, detail=f"{reason}: a partial answer")
    detail = "the model gave up" if reason == "failure" else "the model's answer" if reason == "success" else "stopped"
    return ConfidenceSignal(effect=base, detail=f"{reason}: {detail}")


def _support(answer: str, question: str, observed: list[str]) -> ConfidenceSignal | None:
    """Supported or unsupported by the ok observations (see the module's rule); None when the answer
    has nothing to check."""
    if numbers := new_numbers(worked_out(answer), question):
        seen = [n for text in observed for n in numbers_in(text)]
        hit = next((n for n in numbers if any(_same_number(n, s) for s in seen)), None)
        if hit is not None:
            return ConfidenceSignal(effect=SUPPORTED, detail=f"the number {hit} is in a tool result")
        shown = [str(n) for n in numbers[:5]]
        return ConfidenceSignal(effect=UNSUPPORTED, detail=f"no tool result has the number(s) {', '.join(shown)}", numbers=shown)
    words = distinctive_words(answer, question)
    if not words:
        return None
    seen_words = {w for text in observed for w in _words(text)}
    hits = [w for w in words if w in seen_words]
    if hits and len(hits) >= SUPPORTED_SHARE * len(words):
        return ConfidenceSignal(effect=SUPPORTED, detail=f"tool results have {', '.join(hits[:5])}")
    return ConfidenceSignal(effect=UNSUPPORTED, detail=f"no tool result has {', '.join(words[:5])}")


NAMED = re.compile(r"(?<![\w'])[A-Z][a-z][\w'-]*(?:[ \t]+[A-Z][a-z][\w'-]*)*|\b\d{4}-\d{2}-\d{2}\b")
SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+)$")


def named_parts(question: str) -> list[str]:
    """What a question names: runs of capitalised words that do not open a sentence ("Rome", "New York") and dates
    (``2026-05-01``), in order, once each."""
    return list(dict.fromkeys(m.group(0) for m in NAMED.finditer(question) if not SENTENCE_START.search(question[: m.start()])))


def uncovered(question: str, texts: Iterable[str]) -> list[str]:
    """The parts of a question that names two or more (``named_parts``) which no text of ``texts`` (the run's tool
    calls and results) holds, when at least one part is held: the run looked up some of what was asked and not the
    rest. [] when it names fewer than two, or holds none of them (then the tools were about something else)."""
    parts = named_parts(question)
    if len(parts) < 2:
        return []
    seen = " ".join(texts).lower()
    missing = [p for p in parts if p.lower() not in seen]
    return missing if len(missing) < len(parts) else []


def unused_numbers(question: str, calls: Iterable[str], answer: str) -> list[str]:
    """The numbers of ``question`` (as written; 0 and 1 left out) that no text of ``calls`` (the run's tool calls'
    arguments) and not ``answer`` holds, compared as numbers; one written with dots as thousands (``2.340`` in a
    German question) counts when a call has it as a whole number (2340)."""
    used = {n for text in [*calls, answer] for n in numbers_in(text)}
    unused = []
    for token in NUMBER.findall(question):
        value = numbers_in(token)
        if not value or value[0] in PLAIN or value[0] in used or Decimal(re.sub(r"\D", "", token)) in used:
            continue
        unused.append(token)
    return unused


def check_reason(signals: Mapping[str, ConfidenceSignal]) -> str | None:
    """Why a numeric answer should be checked with a tool before it is accepted (what the model is told), or
    None: no tool result has its numbers (``support`` below 0), or no tool was called for them (``unchecked``).
    An answer in words is not sent back: its words may explain rather than state a found fact."""
    if (support := signals.get("support")) is not None and support.effect < 0 and support.numbers:
        return f"Your answer is not backed by a tool result: {support.detail}"
    if (unchecked := signals.get("unchecked")) is not None:
        return f"Your answer was not worked out with a tool: {unchecked.detail}"
    return None


WORKING = re.compile(r".*=\s*(?=[$€£]?\s*[-+]?\.?\d)", re.DOTALL)


def worked_out(answer: str) -> str:
    """What an answer that shows its working gives: ``4.80 * 60 + 5.20 * 35 = 177.60`` -> ``177.60``, the part after
    its last "=" and a number (the numbers before it are the operands: one of them in a tool result does not back the
    result). Any other answer, whole."""
    found = WORKING.match(answer)
    return answer[found.end():] if found else answer


def new_numbers(answer: str, question: str) -> list[Decimal]:
    """The numbers of ``answer`` that ``question`` does not have (the ones the answer itself brings)."""
    asked = set(numbers_in(question))
    return [n for n in numbers_in(answer) if n not in asked]


def numbers_in(text: str) -> list[Decimal]:
    """The numbers written in ``text``, thousands separators dropped (``1,234.50`` -> 1234.50): how the
    confidence's support signal and the eval's numeric check read an answer."""
    out = []
    for token in NUMBER.findall(text):
        try:
            out.append(Decimal(token.replace(",", "")))
        except InvalidOperation:
            continue
    return out


def _same_number(answer: Decimal, observed: Decimal) -> bool:
    """Equal, or ``observed`` rounded to the decimals ``answer`` is written with equals it."""
    if answer == observed:
        return True
    places = max(0, -int(answer.as_tuple().exponent))
    try:
        return observed.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN) == answer
    except InvalidOperation:  # more digits than the context holds
        return False


def distinctive_words(answer: str, question: str) -> list[str]:
    """The answer's words of three letters or more that are neither in the question nor common, in order."""
    asked = set(_words(question))
    return list(dict.fromkeys(w for w in _words(answer) if len(w) >= 3 and not w.isdigit() and w not in asked and w not in COMMON))


def _words(text: str) -> Iterable[str]:
    return (w.lower() for w in WORD.findall(text))
