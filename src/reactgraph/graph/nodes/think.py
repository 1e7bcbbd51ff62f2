"""think: one model call that yields a thought and tool calls, or the final answer.

The run's current format (``tool_calling``) binds the tools and builds the prompt; the call is bounded by
the time budget and by ``cancel()``, retried on transient errors and falls back to
``fallback_models``. The format reads the reply; under ``tool_calling="auto"`` a model that writes
its calls as text moves the run to the text format. An unreadable reply, or a final reply that is
no answer (empty, a copied error or status line), becomes an error observation, and
``max_parse_retries`` of them in a row end the run with failure. With an output schema, the final
answer is read into it (``checked_output``); one that does not fit is sent back, up to
``max_output_retries`` times. LangChain middleware's ``wrap_model_call`` wraps the model call itself (``wrapped``),
inside reactgraph's retries and fallback models."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.types import Overwrite
from pydantic import BaseModel

from reactgraph import prompts
from reactgraph.answers.confidence import check_reason, confidence_of, numbers_in
from reactgraph.answers.non_answers import (
    announced_call,
    copied_result,
    copied_rule,
    made_up_output,
    non_answer,
    unfounded_names,
)
from reactgraph.answers.typed import answer_not_call, answer_shape, read_answer, typed_value
from reactgraph.config import AgentConfig
from reactgraph.errors import ErrorKind, error_text
from reactgraph.graph import stops
from reactgraph.graph.conversation import is_new_turn, last_human, question_of
from reactgraph.graph.deps import ASK_USER, NodeDeps
from reactgraph.graph.fan_out import fanned_out
from reactgraph.graph.grounding import known_numbers, named, premature, results
from reactgraph.graph.learning import shown_block
from reactgraph.graph.middleware import model_call, request_prompt, with_hook
from reactgraph.graph.runtime import middleware_runtime, tell_user
from reactgraph.graph.scratchpad import left_out, left_out_notice, status_text, think_messages
from reactgraph.models.calls import CallCancelled, CallCut, invoke_within, model_label, with_retries
from reactgraph.models.tokens import usage_of
from reactgraph.playbook.bullets import keywords
from reactgraph.state import (
    Action,
    ReActState,
    Termination,
    TokenCount,
    Turn,
    add_usage,
    checked_query,
    current_turn,
    iteration_of,
    sum_usage,
    summarized_through,
    tokens_used,
    tool_stats,
    with_turn,
)
from reactgraph.tool_calling import (
    Format,
    ParsedReply,
    ReadContext,
    Tags,
    next_format,
    parse_failed,
    prepare,
    reply_text,
    starting_format,
)
from reactgraph.tool_calling.tags import phrase_at_line_start
from reactgraph.tools.breaker import disabled_message, disabled_tools
from reactgraph.tools.specs import ToolSpec, tool_specs


class Exchange(NamedTuple):
    """One answered model call: the reply, the prompt, the model that answered, and its format; with
    wrap_model_call middleware, their names and the state updates their commands made."""

    reply: AIMessage
    messages: list[BaseMessage]
    model: BaseChatModel
    fmt: Format
    ctx: ReadContext
    middleware: tuple[str, ...] = ()
    update: dict[str, Any] = {}


DEGENERATE_THOUGHT = re.compile(
    r"^(ok(ay)?[,.]?\s*)?(i('ll| will| am going to| need to| should)|let me|let's|now i will)\s+"
    r"(use|call|run|try|invoke)\s+(the\s+|a\s+)?(\w+\s+)?(tool|function)s?[.!]?$",
    re.IGNORECASE,
)


def find_phrase(text: str, phrases: tuple[str, ...]) -> tuple[str, str] | None:
    """(phrase, text after it) for the first phrase found, case-insensitive."""
    lowered = text.lower()
    for phrase in phrases:
        if (at := lowered.find(phrase.lower())) >= 0:
            return phrase, text[at + len(phrase) :].strip()
    return None


def thought_problem(thought: str, cfg: AgentConfig) -> bool:
    """True when require_thought is on and the thought is missing, too short or empty filler."""
    if not cfg.require_thought:
        return False
    text = thought.strip()
    return len(text) < cfg.min_thought_chars or bool(DEGENERATE_THOUGHT.match(text))


TOOLS_QUESTION = re.compile(
    r"\b(tools?|functions?)\b.*\b(what|which|how|available|can i|could i|should i|list|exist)\b"
    r"|\b(what|which|how|available|can i|could i|should i|list|exist)\b.*\b(tools?|functions?)\b",
    re.IGNORECASE | re.DOTALL,
)


def about_tools(question: str) -> bool:
    """Whether a question the model would ask the user is about its own tools (which there are, how to call
    them): the agent answers it, the user is not asked."""
    return bool(TOOLS_QUESTION.search(question))


def decide(
    parsed: ParsedReply,
    cfg: AgentConfig,
    disabled: set[str],
    shown: Sequence[tuple[str, str]] = (),
    specs: Sequence[ToolSpec] = (),
) -> dict[str, Any]:
    """The state update for a parsed reply: a stop (success/failure) or the actions to run. A success
    phrase counts at the start of a line only (inside a line or a fenced block it is quoted), and not
    beside native tool calls (they run). A final reply that is no
    answer (empty, a copy of one of the ``shown`` texts, a call to one of the tools announced but not
    made) is sent back. A question for the user about the tools (``about_tools``) is answered with the
    tools of ``specs`` and their arguments. A call with a list for a single value is one call per item
    (``fan_out``)."""
    native = parsed.source == "native"  # calls made through the API are the model's act, whatever its text says
    if not native and (hit := phrase_at_line_start(parsed.thought, cfg.success_phrases)) is not None and hit[1]:
        return _stop("success", f"the model's reply contains {hit[0]!r}", hit[1])
    if parsed.unanswered and (hit := find_phrase(parsed.unanswered, cfg.failure_phrases)) is not None:
        return _stop("failure", f"the model gave up ({hit[0]!r})", parsed.unanswered)
    if parsed.answer is not None:
        if problem := non_answer(parsed.answer, shown) or copied_rules(parsed.answer, cfg):
            kind = ErrorKind.NON_ANSWER if parsed.answer.strip() else ErrorKind.EMPTY_REPLY
            return {"pending_actions": [_rejected(0, kind, prompts.NOT_AN_ANSWER.format(problem=problem))]}
        if (hit := find_phrase(parsed.answer, cfg.failure_phrases)) is not None:
            return _stop("failure", f"the model gave up ({hit[0]!r})", parsed.answer)
        if problem := announced_call(parsed.answer, [s.name for s in specs]) or made_up_output(parsed.answer):
            return {"pending_actions": [_rejected(0, ErrorKind.NON_ANSWER, prompts.NOT_AN_ANSWER.format(problem=problem))]}
        return _stop("success", "the model gave a final answer", parsed.answer)
    actions, asked = [], False
    for action in parsed.actions:
        if "rejection" in action:
            pass
        elif action["tool"] == ASK_USER and asked:  # one question at a time: one pause, one answer
            action = {**action, "rejection_kind": ErrorKind.INVALID_PARAMETERS.value, "rejection": prompts.ONE_QUESTION}
        elif action["tool"] == ASK_USER and about_tools(str(action["args"].get("question", ""))):
            listed = "; ".join(f"{s.signature()}: {s.description}" for s in specs if s.name != ASK_USER)
            action = {**action, "answered": prompts.TOOLS_ANSWER.format(tools=listed or "none")}
        elif thought_problem(parsed.thought, cfg):
            action = {**action, "rejection_kind": ErrorKind.MISSING_THOUGHT.value, "rejection": prompts.THOUGHT_REQUIRED}
        elif action["tool"] in disabled:
            action = {**action, "rejection_kind": ErrorKind.DISABLED.value, "rejection": disabled_message(action["tool"], cfg)}
        asked = asked or (action["tool"] == ASK_USER and "answered" not in action)
        actions.append(action)
    return {"pending_actions": fanned_out(actions, specs)}


def copied_rules(answer: str, cfg: AgentConfig) -> str | None:
    """Why ``answer`` is no answer when it is a line of the default system prompt's rules (geo-triangle on the local
    model, sent back: "I cannot complete the task only after the tools failed, ..."); a user's own prompt may hold facts."""
    if cfg.system_prompt is None and copied_rule(answer, prompts.SYSTEM_PROMPT):
        return "Your reply repeats the instructions instead of answering the question"
    return None


def tools_could_answer(question: str, specs: Sequence[ToolSpec]) -> bool:
    """Whether a tool on offer could work out the question's answer: the question has numbers to compute from,
    or it shares a word (its first five letters) with a tool's name or description. An answer to a question no
    tool fits (a year the model knows, beside a calculator), or with no tool on offer, is not sent back to be checked."""
    tools = [s for s in specs if s.name != ASK_USER]
    if not tools:
        return False
    if numbers_in(question):
        return True
    asked = {w[:5] for w in keywords(question) if len(w) >= 4}
    told = {w[:5] for s in tools for w in keywords(f"{s.name.replace('_', ' ')} {s.description}") if len(w) >= 4}
    return bool(asked & told)


def checked_answer(state: ReActState, cfg: AgentConfig, decision: dict[str, Any], offer: Offer, iteration: int) -> dict[str, Any]:
    """``decision``, or, for a final answer that is weakly supported (``answers.confidence.check_reason``: no tool
    result has its number, or no tool was called for it while a tool could work it out) and that the turn may
    still check (``answer_checks`` left, an iteration left), the answer sent back once to be checked with a tool:
    an unverified_answer observation, a step of kind ``check``."""
    termination = decision.get("termination") or {}
    checks = state.get("answer_checks", 0)
    if termination.get("reason") != "success" or not decision.get("final_answer"):
        return decision
    if checks >= cfg.answer_checks or iteration >= cfg.max_iterations:
        return decision
    proposed = {**state, "final_answer": decision["final_answer"], "termination": termination, "partial": False}
    signals = confidence_of(proposed).signals
    if "unchecked" in signals and not tools_could_answer(state["question"], offer.specs):
        return decision
    if (reason := check_reason(signals)) is None:
        return decision
    return _sent_back(decision, prompts.CHECK_ANSWER.format(reason=reason)) | {"answer_checks": checks + 1}


def sent_back(state: ReActState) -> bool:
    """Whether the run sent an answer or a give-up back already (an unverified_answer observation)."""
    return any(o.get("error_kind") == ErrorKind.UNVERIFIED_ANSWER
               for step in state.get("steps") or [] for o in step.get("observations") or [])


def read_out(state: ReActState, cfg: AgentConfig, decision: dict[str, Any], iteration: int) -> dict[str, Any]:
    """``decision``, or a final answer sent back once in the run (an unverified_answer observation, a step of kind
    ``check``) that repeats most of a tool result (``copied_result``: a small model often hands back the search hit
    or the file it read instead of the number or name asked for), or that is a name no tool result nor the question
    holds (``unfounded_names``: "John Doe" for a mayor the search did not find). The next reply stands."""
    termination = decision.get("termination") or {}
    if termination.get("reason") != "success" or not decision.get("final_answer") or iteration >= cfg.max_iterations:
        return decision
    found = results(state)
    if sent_back(state) or not found:
        return decision
    if copied_result(decision["final_answer"], found):
        problem = prompts.COPIED_RESULT
    elif names := unfounded_names(decision["final_answer"], [state["question"], *found]):
        problem = prompts.UNFOUNDED_NAME.format(names=" ".join(dict.fromkeys(names)))
    else:
        return decision
    return _sent_back(decision, problem)


NO_REPLY = frozenset({ErrorKind.NON_ANSWER, ErrorKind.EMPTY_REPLY, ErrorKind.MISSING_ACTION})
"""Replies that say nothing new: empty, a copy of what the prompt showed, a Thought alone."""


def stood(state: ReActState, cfg: AgentConfig, decision: dict[str, Any]) -> dict[str, Any]:
    """``decision``, or, when the turn before sent an answer (or a give-up) back to be checked and this reply says
    nothing new (``NO_REPLY``: the local model answered with the check's request, or wrote a Thought alone, until the
    run stalled), the answer sent back: it stands, as the request said it may, and the run ends with it."""
    steps = state.get("steps") or []
    actions = decision.get("pending_actions") or []
    if not steps or steps[-1].get("kind") != "check" or not (answer := steps[-1].get("answer")):
        return decision
    if not actions or not all(a.get("rejection_kind") in NO_REPLY for a in actions):
        return decision
    if (hit := find_phrase(answer, cfg.failure_phrases)) is not None:
        return _stop("failure", f"the model gave up ({hit[0]!r}); sent back to be checked, it said nothing new", answer)
    return _stop("success", "the model gave a final answer; sent back to be checked, it said nothing new", answer)


MISCALLED = frozenset({ErrorKind.INVALID_PARAMETERS, ErrorKind.PREMATURE_CALL})
"""Failures of how a call was written (its arguments; numbers it guessed), not of the tool."""


def tried_first(state: ReActState, cfg: AgentConfig, decision: dict[str, Any], offer: Offer, iteration: int) -> dict[str, Any]:
    """``decision``, or the model's give-up sent back once (an unverified_answer observation, a step of kind
    ``check``) when the tools were not really tried: no tool was called yet in the run, to a question a tool on
    offer could work on (``tools_could_answer``); or the only failed calls were the model's own mistakes in writing
    them (``MISCALLED``) while another call gave a result. The next reply stands, and so does a give-up after
    the tools themselves failed (the model says so)."""
    termination = decision.get("termination") or {}
    if termination.get("reason") != "failure" or not str(termination.get("detail", "")).startswith("the model gave up"):
        return decision
    if iteration >= cfg.max_iterations or sent_back(state):
        return decision
    called = [o for step in state.get("steps") or [] for o in step.get("observations") or [] if o.get("tool")]
    if not called and tools_could_answer(state["question"], offer.specs):
        problem = prompts.UNTRIED_GIVE_UP
    elif any(o.get("status") == "ok" for o in called) and any(o.get("error_kind") in MISCALLED for o in called) and all(
        o.get("status") == "ok" or o.get("error_kind") in MISCALLED for o in called
    ):
        problem = prompts.MISCALLED_GIVE_UP
    else:
        return decision
    return _sent_back(decision, problem)


def not_answers(state: ReActState, cfg: AgentConfig, fmt: Format, ctx: ReadContext, status: str) -> list[tuple[str, str]]:
    """What the prompt showed the model that is no answer: error observations of the recent steps
    (not invalid_output's: an answer in the shape it shows shares its words), the budget line, the
    format's instructions and reminder."""
    recent = (state.get("steps") or [])[-cfg.keep_recent_steps :]
    shown = [("an error message", obs["content"]) for step in recent for obs in step["observations"]
             if obs.get("status") == "error" and obs.get("error_kind") != ErrorKind.INVALID_OUTPUT]
    reminders = [("the instructions", fmt.reminder(ctx)), ("the instructions", fmt.reminder(ctx, repeated=True, failed=True))]
    return shown + [("the budget line", status), ("the format instructions", ctx.hint), *reminders]


class Offer(NamedTuple):
    """What a turn offers the model: the tools (ask_user too), their specs, the tools the breaker took out, the tags."""

    tools: list[Any]
    specs: tuple[ToolSpec, ...]
    disabled: set[str]
    tags: Tags


class Bounds(NamedTuple):
    """The run's deadline and cancel check, for the turn's model calls."""

    deadline: float | None
    cancelled: Callable[[], bool]


TURN_FIELDS = {  # the keys of think's update that go into the turn's record (``folded``), by field
    "iteration": "iteration",
    "thought": "thought",
    "pending_actions": "actions",
    "turn_format": "format",
    "turn_written": "written",
    "turn_answer": "answer",
    "turn_usage": "usage",
    "turn_calls": "calls",
    "turn_tokens": "tokens",
    "turn_left_out": "left_out",
}


def make_think(deps: NodeDeps) -> Callable[[ReActState], dict[str, Any]]:
    def think(state: ReActState) -> dict[str, Any]:
        """Reads question, summary, recent steps, tools, budgets, the run's format and parse failures
        so far; writes the turn's record (thought, pending actions, format, the call's usage, the run's tokens: on
        the turn's AI message when it calls tools, else in ``current_turn``) or the final answer, the run's next
        format, and parse failures."""
        return folded(turned(deps, state))

    return think


def turned(deps: NodeDeps, state: ReActState) -> dict[str, Any]:
    """think's update, with the turn's fields and its AI message still apart (``TURN_FIELDS``, ``turn_message``;
    ``folded`` puts them together)."""
    cfg = deps.run_config()
    now = time.time()
    state, update = started_turn(state, now, cfg)
    if not state["question"]:
        return update | _stop("failure", "no question: send a 'query' or a human message", None)
    update["iteration"] = iteration = iteration_of(state) + 1
    offer = offered(deps, cfg, state)
    if "question" in update and cfg.playbook:  # a new run: the playbook's block for its question
        update["playbook"] = shown_block(deps, cfg, state["question"], [s.name for s in offer.specs])
        state = {**state, "playbook": update["playbook"]}
    bounds = Bounds(*deps.run_bounds(state, cfg))
    try:
        exchange = asked(deps, state, cfg, offer, iteration, now, bounds)
    except CallCut as cut:  # the time budget ran out, or the run was cancelled, during the call
        return update | {"termination": stopped_during_call(state, cfg, cut), "pending_actions": []}
    except Exception as exc:  # the model failed (after retries and fallbacks): a stop, reported as data
        return update | _stop("failure", f"model call failed: {type(exc).__name__}: {exc}", None)
    parsed = answer_not_call(exchange.fmt.read(exchange.reply, exchange.ctx), reply_text(exchange.reply), deps.output_schema)
    following = next_format(cfg.tool_calling, exchange.fmt.name, parsed)
    if following != exchange.fmt.name:
        deps.learn_format(exchange.model, following)
    decision, typing_calls = decided(deps, state, cfg, exchange, parsed, offer, iteration, now, bounds)
    written = reply_text(exchange.reply) if parsed.source in ("json", "text") else None
    formats = {"tool_format": following, "turn_format": exchange.fmt.name, "turn_written": written}
    if message := calls_message(parsed.thought, decision["pending_actions"]):  # the chat's, after a new turn's question
        update["turn_message"] = message
    counts = accounted(exchange, state["current_turn"], typing_calls)
    if left := left_out(state, cfg, exchange.fmt):  # images a text-only prompt could not send: on the step, told once
        update["turn_left_out"] = left
        tell_user(left_out_notice(state, left, exchange.fmt))
    return update | exchange.update | formats | counts | {"thought": parsed.thought} | decision


def folded(update: dict[str, Any]) -> dict[str, Any]:
    """``update`` with the turn's fields (``TURN_FIELDS``) moved into its record: on the turn's AI message when it has
    one (a tool turn: ``state.with_turn``), which the update appends to the chat, else in ``current_turn``."""
    turn = dict(update.pop("current_turn"))
    for key, field in TURN_FIELDS.items():
        if key in update:
            turn[field] = update.pop(key)  # type: ignore[literal-required]
    if (message := update.pop("turn_message", None)) is None:
        return update | {"current_turn": turn}
    return update | {"messages": [*update.get("messages", []), with_turn(message, turn)]}  # type: ignore[arg-type]


def started_turn(state: ReActState, now: float, cfg: AgentConfig) -> tuple[ReActState, dict[str, Any]]:
    """(the state as the turn sees it, the turn's first update): the current turn's record started (its iteration
    still the last one's: think counts it once the question is there; the calls made ahead of it its first, the
    run's counts carried on), and a new turn's fields reset when a new turn of the conversation starts
    (``is_new_turn``: its count starts with the conversation's fold, if one was made for it)."""
    update: dict[str, Any] = {}
    last = current_turn(state)
    iteration, ahead = iteration_of(state), last.get("ahead", [])
    tokens, through = tokens_used(state), summarized_through(state)
    if is_new_turn(state):
        state, update = _fresh_turn(state, now, cfg)
        iteration, through = 0, 0
        ahead = [c for c in ahead if c["purpose"] == "conversation"]
        tokens = sum_usage(c["token_usage"] for c in ahead)
    turn = Turn(
        run=state.get("turn", 0), iteration=iteration, thought="", actions=[], started=now, format=None, written=None,
        usage={}, calls=list(ahead), tokens=tokens, summarized_through=through,
    )
    return {**state, "current_turn": turn}, update | {"current_turn": turn}


def offered(deps: NodeDeps, cfg: AgentConfig, state: ReActState) -> Offer:
    """The tools of the turn: the run's selection without the ones the breaker took out, and ask_user."""
    disabled = disabled_tools(tool_stats(state).get("failures"), cfg)
    tools = deps.offered_tools(cfg, disabled)
    return Offer(tools, deps.specs(tools), disabled, Tags.from_config(cfg))


def asked(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, offer: Offer, iteration: int, now: float, bounds: Bounds
) -> Exchange:
    """The turn's model call, in the run's format (or, for a model's first turn, the one learnt for it), on
    the run's model and then its fallbacks; CallCut when the run's deadline or a cancel cut it."""
    shape = answer_shape(deps.output_schema) if deps.output_schema else ""

    def attempt(model: BaseChatModel) -> Exchange:
        name = state.get("tool_format") or starting_format(cfg.tool_calling, deps.learned_format(model))
        bound, fmt, ctx = deps.prepared(model, offer.tools, offer.specs, offer.tags, name, cfg.tool_calling)
        messages = think_messages(
            state, cfg, question=state["question"], iteration=iteration, now=now, fmt=fmt, ctx=ctx, answer_shape=shape
        )
        if not (wrapping := with_hook(deps.middleware, "wrap_model_call")):
            reply = invoke_within(bound, messages, deadline=bounds.deadline, cancelled=bounds.cancelled)
            return Exchange(reply, messages, model, fmt, ctx)
        return wrapped(deps, state, cfg, offer, bounds, Exchange(AIMessage(""), messages, model, fmt, ctx), wrapping)

    return deps.call_model(cfg, attempt, deadline=bounds.deadline)


def wrapped(
    deps: NodeDeps, state: ReActState, cfg: AgentConfig, offer: Offer, bounds: Bounds, built: Exchange,
    wrapping: list[AgentMiddleware],
) -> Exchange:
    """The turn's model call through the wrap_model_call middleware (``graph.middleware.model_call``): the
    request holds the prompt reactgraph ``built``, the tools on offer and the model. The innermost call binds
    the request's tools to the request's model in the turn's format (a format that describes the tools in the
    prompt describes the request's tools instead), with the request's ``model_settings``, and sends the request's
    messages. A cut call (the deadline,
    a cancel) stays cut, and a model that raised stays failed, whatever reply a middleware made up for it
    (``ModelRetryMiddleware(on_failure="continue")``'s text is no answer)."""
    sent: list[Exchange] = []
    failed: list[Exception] = []

    def call(request: ModelRequest) -> AIMessage:
        tools = list(request.tools)
        bound, fmt, ctx = prepare(request.model, tools, tool_specs(tools), offer.tags, built.fmt.name, cfg.tool_calling)
        if request.model_settings:  # what a middleware asked of this call (create_agent binds them too)
            bound = bound.bind(**request.model_settings)
        messages = retold(request_prompt(request), built.fmt.tools_prompt(built.ctx), fmt.tools_prompt(ctx))
        try:
            reply = invoke_within(bound, messages, deadline=bounds.deadline, cancelled=bounds.cancelled)
        except Exception as exc:
            failed.append(exc)
            raise
        sent.append(Exchange(reply, messages, request.model, fmt, ctx))
        return reply

    system, *rest = built.messages
    request = ModelRequest(
        model=built.model, messages=rest, system_message=system if isinstance(system, SystemMessage) else None,
        tools=list(offer.tools), state=state, runtime=middleware_runtime(deps.user_context()),
    )
    if not isinstance(system, SystemMessage):
        request = request.override(messages=list(built.messages))
    outcome = model_call(wrapping, request, call)
    if cut := next((e for e in failed if isinstance(e, CallCut)), None):
        raise cut
    names = tuple(m.name for m in wrapping)
    answered = next((e for e in reversed(sent) if e.reply is outcome.reply), None)
    if answered is None and failed:  # a middleware wrote a reply for a model that raised: the model failed
        raise failed[-1]
    return (answered or built._replace(reply=outcome.reply))._replace(middleware=names, update=outcome.update)


def retold(messages: list[BaseMessage], described: str, describe: str) -> list[BaseMessage]:
    """``messages`` with the tools' description in the system prompt (``described``) replaced by ``describe``
    (a middleware changed the tools); the rest as the middleware left it."""
    if described == describe or not messages or not isinstance(messages[0], SystemMessage):
        return messages
    system = messages[0]
    return [system.model_copy(update={"content": system.text.replace(described, describe)}), *messages[1:]]


def decided(
    deps: NodeDeps,
    state: ReActState,
    cfg: AgentConfig,
    exchange: Exchange,
    parsed: ParsedReply,
    offer: Offer,
    iteration: int,
    now: float,
    bounds: Bounds,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the decision, the model calls typing the answer took): ``decide`` on the reply, the answer read into
    the output schema (``checked_output``), and the run failed after ``max_parse_retries`` unreadable
    replies in a row (``parse_failures`` counts them)."""
    status = status_text(state, cfg, now, iteration)
    shown = not_answers(state, cfg, exchange.fmt, exchange.ctx, status)
    decision = checked_answer(state, cfg, decide(parsed, cfg, offer.disabled, shown, offer.specs), offer, iteration)
    decision = tried_first(state, cfg, decision, offer, iteration)
    decision = read_out(state, cfg, decision, iteration)
    decision = stood(state, cfg, decision)
    if len(decision.get("pending_actions") or []) > 1:
        offered = {spec.name for spec in offer.specs}
        decision = decision | {"pending_actions": premature(decision["pending_actions"], known_numbers(state), offered)}
    if decision.get("pending_actions") and state.get("steps"):
        decision = decision | {"pending_actions": named(decision["pending_actions"], results(state))}
    typing_calls: list[dict[str, Any]] = []
    if (schema := deps.output_schema) is not None:

        def structure(answer: str) -> tuple[BaseModel | None, TokenCount | None]:
            return structured(exchange.model, schema, state["question"], answer, cfg, bounds.deadline, bounds.cancelled)

        decision, typing_calls = checked_output(decision, schema, state, cfg, structure if exchange.fmt.structured_output else None)
    failures = state.get("parse_failures", 0) + 1 if parse_failed(decision["pending_actions"]) else 0
    if failures >= cfg.max_parse_retries:
        problem = decision["pending_actions"][0]["rejection"].splitlines()[0]
        detail = f"{failures} unreadable model replies in a row (max_parse_retries={cfg.max_parse_retries}); last: {problem}"
        decision = _stop("failure", detail, None)
    return decision | {"parse_failures": failures}, typing_calls


def accounted(exchange: Exchange, turn: Turn, typing: list[dict[str, Any]]) -> dict[str, Any]:
    """The turn's model calls (those made ahead of it, think's own, the ones typing the answer), the usage of
    think's own call and the run's tokens with them counted."""
    usage = usage_of(exchange.reply, exchange.messages)
    own: dict[str, Any] = {"purpose": "think", "token_usage": usage}
    if exchange.middleware:
        own |= {"middleware": list(exchange.middleware), "model": model_label(exchange.model)}
    calls = [own, *typing]
    tokens = add_usage(turn["tokens"], sum_usage(c["token_usage"] for c in calls))
    return {"turn_usage": usage, "turn_calls": [*turn["calls"], *calls], "turn_tokens": tokens}


Structure = Callable[[str], tuple[BaseModel | None, TokenCount | None]]


def checked_output(
    decision: dict[str, Any], schema: type[BaseModel], state: ReActState, cfg: AgentConfig, structure: Structure | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A success's answer read into ``schema`` (the decision then also writes ``output``, plain data),
    and the model calls that took. An answer whose text does not fit goes to ``structure`` (the
    model's structured output, in formats that use its API); still not fitting, it is sent back as an
    invalid_output observation, or, after ``max_output_retries`` of them in the run, the run fails
    with the text answer kept. Any other decision is returned as it is."""
    termination = decision.get("termination")
    if not termination or termination["reason"] != "success":
        return decision, []
    answer = decision["final_answer"]
    value, problem = read_answer(answer, schema)
    calls: list[dict[str, Any]] = []
    if value is None and structure is not None:
        value, used = structure(answer)
        calls = [{"purpose": "structured_output", "token_usage": used}] if used else []
    if value is not None:
        return decision | {"output": value.model_dump(mode="json")}, calls
    failures = state.get("output_failures", 0) + 1
    if failures > cfg.max_output_retries:
        limit = f"max_output_retries={cfg.max_output_retries}"
        detail = f"the answer did not fit the output schema {failures} times ({limit}); last: {problem}"
        return _stop("failure", detail, answer) | {"output_failures": failures}, calls
    again = prompts.OUTPUT_AGAIN.format(shape=answer_shape(schema))
    text = f"{error_text(ErrorKind.INVALID_OUTPUT, problem=problem or '')} {again}"
    return {"pending_actions": [_rejected(0, ErrorKind.INVALID_OUTPUT, text)], "output_failures": failures}, calls


def structured(
    model: BaseChatModel,
    schema: type[BaseModel],
    question: str,
    answer: str,
    cfg: AgentConfig,
    deadline: float | None,
    cancelled: Callable[[], bool],
) -> tuple[BaseModel | None, TokenCount | None]:
    """``answer`` put into ``schema`` by one call to the model's structured output
    (``with_structured_output``: Ollama's ``format``, a forced tool call, ...), and the call's usage;
    None for a model without structured output, a failed call, or a reply that does not fit."""
    messages: list[BaseMessage] = [HumanMessage(prompts.STRUCTURE_PROMPT.format(question=question, answer=answer))]
    try:
        runnable = model.with_structured_output(schema, include_raw=True)
        out: Any = with_retries(
            lambda: invoke_within(runnable, messages, deadline=deadline, cancelled=cancelled), cfg, deadline=deadline
        )
    except Exception:  # no structured output (NotImplementedError), or the call failed or was cut: the answer goes back
        return None, None
    raw = out.get("raw")
    usage = usage_of(raw, messages) if isinstance(raw, AIMessage) else None
    return typed_value(out.get("parsed"), schema), usage


def calls_message(thought: str, actions: Sequence[Action]) -> AIMessage | None:
    """The turn in the chat: the thought with the calls of named tools (act answers each with a
    ToolMessage); None for a turn without any (an answer, an unreadable reply)."""
    calls = [
        {"name": a["tool"], "args": a["args"] if isinstance(a.get("args"), dict) else {}, "id": a["id"], "type": "tool_call"}
        for a in actions
        if a.get("tool")
    ]
    return AIMessage(content=thought, tool_calls=calls) if calls else None


def stopped_during_call(state: ReActState, cfg: AgentConfig, cut: CallCut) -> Termination:
    """The stop for a model call the run cut: the time budget's, or the cancellation's."""
    now = time.time()
    if isinstance(cut, CallCancelled):
        return stops.cancellation(stops.Observed(**{**state, "cancel_requested": True}), cfg, now)  # type: ignore[return-value]
    found = stops.time_budget(state, cfg, now)
    assert found is not None  # the call was cut at the deadline
    return {**found, "detail": f"{found['detail']}, during a model call"}


def _fresh_turn(state: ReActState, now: float, cfg: AgentConfig) -> tuple[ReActState, dict[str, Any]]:
    """A new turn of the thread's conversation (its first question, or the next one after a turn ended): the
    run's fields reset, the conversation's kept (with ``new_conversation``, its earlier turns no longer shown).
    A question sent as ``query`` also goes into the chat ``messages``, so a chat view shows what was asked."""
    message = last_human(state)
    question = question_of(state)
    from_query = bool((checked_query(state.get("query")) or "").strip())
    if from_query:
        message = HumanMessage(content=question, id=f"question-{uuid.uuid4().hex}")
    turns = len(state.get("turns") or [])
    fresh: dict[str, Any] = {
        "question": question,
        "query": None,  # read: a later query on this thread is a new turn
        "question_message": message.id if message else None,
        "turn": turns + 1,
        "started_at": now,
        "finished_at": None,
        "summary": "",
        "parse_failures": 0,
        "termination": None,
        "final_answer": None,
        "partial": False,
        "confidence": None,
        "confidence_signals": {},
        "tool_format": None,
        "output": None,
        "output_failures": 0,
        "answer_checks": 0,
        "playbook": None,
    }
    if from_query:
        fresh["messages"] = [message]
    if cfg.new_conversation:
        fresh |= {"conversation_summary": "", "folded_turns": turns}
    if state.get("steps") or state.get("termination"):
        fresh |= {"steps": Overwrite([]), "errors": Overwrite([]), "tool_cache": Overwrite({}), "token_usage": {}}
    view = {**state, **{k: v for k, v in fresh.items() if not isinstance(v, Overwrite) and k != "messages"}, "steps": []}
    return view, fresh


def _stop(reason: str, detail: str, answer: str | None) -> dict[str, Any]:
    termination: Termination = {"reason": reason, "detail": detail, "limit": None, "observed": None}
    return {"termination": termination, "final_answer": answer, "pending_actions": []}


def _sent_back(decision: dict[str, Any], problem: str) -> dict[str, Any]:
    """The update that sends ``decision``'s final answer or give-up back to the model (an unverified_answer
    observation), the answer kept on the turn: the next prompt shows the model the answer it gave."""
    text = error_text(ErrorKind.UNVERIFIED_ANSWER, problem=problem)
    return {"pending_actions": [_rejected(0, ErrorKind.UNVERIFIED_ANSWER, text)], "turn_answer": decision.get("final_answer") or ""}


def _rejected(index: int, kind: ErrorKind, text: str) -> dict[str, Any]:
    return {"id": f"rejected_{index}", "tool": "", "args": {}, "index": index, "rejection_kind": kind.value, "rejection": text}
