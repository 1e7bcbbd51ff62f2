"""LangChain's agent middleware in reactgraph's loop: each ready-made middleware works (its effect asserted) or is
refused with the error that names reactgraph's equivalent; custom hooks; LangChain's order; a crash and resume
inside a wrapped call."""

from __future__ import annotations

import time
from typing import NotRequired

import pytest
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    HumanInTheLoopMiddleware,
    LLMToolSelectorMiddleware,
    ModelCallLimitMiddleware,
    ModelFallbackMiddleware,
    ModelRetryMiddleware,
    PIIMiddleware,
    SummarizationMiddleware,
    ToolCallLimitMiddleware,
    ToolRetryMiddleware,
    after_model,
    before_agent,
    before_model,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from reactgraph import MiddlewareError, ReActAgent, TerminationReason
from reactgraph.server import make_graph
from reactgraph.testing import ScriptedChatModel, tool_call, tool_calls


class Crash(BaseException):
    """Stops a run the way a killed process would: nothing catches it."""


def failing(exc: Exception):
    """A scripted reply that raises ``exc``."""

    def reply(messages):
        raise exc

    return reply


def prompt_text(call: dict) -> str:
    return "\n".join(str(m.content) for m in call["messages"])


def agent_with(model, tools, middleware, **options) -> ReActAgent:
    return ReActAgent(model, tools, checkpointer=None, middleware=middleware, **options)


# -- the ready-made middleware that works -------------------------------------------------------------


@pytest.mark.parametrize("as_messages", [False, True])
def test_pii_is_redacted_in_the_prompt_the_model_saw(math_tools, as_messages):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look it up."), "Final Answer: France"])
    agent = agent_with(model, math_tools, [PIIMiddleware("email", strategy="redact")])
    question = "Where is Paris? Write to bob@example.com"
    if as_messages:
        result = agent.graph.invoke({"messages": [HumanMessage(question)]}, {"configurable": {"thread_id": "m"}})
        steps = agent.get_trace("m").steps
        assert result["final_answer"] == "France"
    else:
        result = agent.run(question)
        assert result.final_answer == "France"
        steps = result.trace.steps
    for call in model.calls:
        assert "bob@example.com" not in prompt_text(call) and "[REDACTED_EMAIL]" in prompt_text(call)
    assert [h.hook for h in steps[0].hooks] == ["PIIMiddleware[email].before_model", "PIIMiddleware[email].after_model"]


def test_a_hook_that_writes_the_turns_message_anew_keeps_the_turns_record(math_tools):
    """An after_model hook that replaces the turn's AI message with one of its own (without the turn's record, which
    think put on it): the hook node keeps the record in ``current_turn``, so the calls still run and the trace keeps
    the turn as think recorded it."""

    @after_model
    def rewrite(state, runtime):
        last = state["messages"][-1]
        if isinstance(last, AIMessage):  # a tool turn's (a final answer's is no message yet)
            return {"messages": [AIMessage(content="[rewritten]", tool_calls=last.tool_calls, id=last.id)]}
        return None

    model = ScriptedChatModel(responses=[tool_call("add", {"a": 2, "b": 3}, thought="Add them."), "Final Answer: 5"])
    result = agent_with(model, math_tools, [rewrite]).run("2 + 3?")
    assert (result.final_answer, result.tool_usage, result.trace.total_iterations) == ("5", {"add": 1}, 2)
    assert result.trace.steps[0].thought == "Add them." and str(result.trace.steps[0].observation) == "5"


def test_the_fallback_model_answers_after_the_first_raised(math_tools):
    first = ScriptedChatModel(responses=[failing(ValueError("first model is down"))])
    second = ScriptedChatModel(responses=["Final Answer: from the fallback"])
    agent = agent_with(first, math_tools, [ModelFallbackMiddleware(second)])
    result = agent.run("Say something")
    assert result.final_answer == "from the fallback"
    assert len(first.calls) == 0 and len(second.calls) == 1  # the first raised before recording
    call = result.trace.steps[-1].calls[0]
    assert call.middleware == ["ModelFallbackMiddleware"] and call.model == "scripted"


def test_model_retry_calls_the_model_again(math_tools):
    model = ScriptedChatModel(responses=[failing(ValueError("flaky")), "Final Answer: 42"])
    agent = agent_with(model, math_tools, [ModelRetryMiddleware(max_retries=2, initial_delay=0, jitter=False)])
    result = agent.run("What is six times seven?")
    assert result.final_answer == "42" and model.position == 2  # one failed call, one retry


def test_a_reply_made_up_for_a_failed_model_is_no_answer(math_tools):
    model = ScriptedChatModel(responses=[failing(ValueError("down"))], repeat_last=True)
    retry = ModelRetryMiddleware(max_retries=1, initial_delay=0, jitter=False, on_failure="continue")
    result = agent_with(model, math_tools, [retry]).run("Anything?")
    assert result.termination_reason is TerminationReason.FAILURE and result.final_answer is None
    assert result.termination_detail == "model call failed: ValueError: down"


def test_tool_retry_runs_a_failing_tool_again(log):
    attempts = []

    def flaky(city: str) -> str:
        """The weather in a city."""
        attempts.append(city)
        if len(attempts) == 1:
            raise RuntimeError("service hiccup")
        return f"{city}: sunny"

    model = ScriptedChatModel(responses=[tool_call("flaky", {"city": "Rome"}, thought="Ask."), "Final Answer: sunny"])
    agent = agent_with(model, [flaky], [ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False)])
    result = agent.run("Weather in Rome?")
    observation = result.trace.steps[0].observations[0]
    assert attempts == ["Rome", "Rome"]
    assert (observation.status, observation.content, observation.retries) == ("ok", "Rome: sunny", 1)
    assert observation.middleware == ["ToolRetryMiddleware"]


def test_tool_call_limit_ends_the_run_with_a_typed_reason(math_tools, log):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="First.")], repeat_last=True)
    agent = agent_with(model, math_tools, [ToolCallLimitMiddleware(tool_name="lookup", run_limit=1, exit_behavior="end")])
    result = agent.run("Where is Paris?")
    assert result.termination_reason is TerminationReason.CUSTOM
    assert "ToolCallLimitMiddleware[lookup].after_model jumped to the end" in result.termination_detail
    assert log.calls == [("lookup", {"key": "paris"})]  # the second call was not run


def test_tool_call_limit_continue_blocks_the_call_and_the_run_goes_on(math_tools, log):
    model = ScriptedChatModel(responses=[tool_calls([("lookup", {"key": "paris"}), ("lookup", {"key": "rome"})], thought="Both."),
                                         "Final Answer: France"])
    agent = agent_with(model, math_tools, [ToolCallLimitMiddleware(tool_name="lookup", run_limit=1, exit_behavior="continue")])
    result = agent.run("Where are Paris and Rome?")
    assert result.final_answer == "France" and log.calls == [("lookup", {"key": "paris"})]
    blocked = result.trace.steps[0].observations[1]
    assert blocked.status == "error" and blocked.error_kind == "rejected" and "limit" in blocked.content.lower()


def test_model_call_limit_ends_the_run_with_a_typed_reason(math_tools):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look.")], repeat_last=True)
    agent = agent_with(model, math_tools, [ModelCallLimitMiddleware(run_limit=2, exit_behavior="end")])
    result = agent.run("Where is Paris?")
    assert len(model.calls) == 2
    assert result.termination_reason is TerminationReason.CUSTOM
    assert result.termination_detail.startswith("ModelCallLimitMiddleware.before_model jumped to the end: Model call limits exceeded")
    assert result.trace.steps[-1].hooks[0].jump_to == "end"


def test_the_tool_selector_binds_only_the_selected_tools(math_tools):
    selector = ScriptedChatModel(responses=[tool_call("ToolSelectionResponse", {"tools": ["multiply"]})])
    model = ScriptedChatModel(responses=[tool_call("multiply", {"a": 6, "b": 7}, thought="Multiply."), "Final Answer: 42"])
    agent = agent_with(model, math_tools, [LLMToolSelectorMiddleware(model=selector, max_tools=1)], allow_clarification=False)
    agent.run("What is 6 times 7?")
    assert model.calls[0]["tools"] == ["multiply"]


def test_the_tool_selector_narrows_the_tools_a_text_format_describes(math_tools):
    selector = ScriptedChatModel(responses=[tool_call("ToolSelectionResponse", {"tools": ["multiply"]})])
    model = ScriptedChatModel(responses=["Final Answer: 42"])
    agent = agent_with(model, math_tools, [LLMToolSelectorMiddleware(model=selector, max_tools=1)], tool_calling="text",
                       allow_clarification=False)
    agent.run("What is 6 times 7?")
    system = str(model.calls[0]["messages"][0].content)
    assert "multiply" in system and "lookup" not in system and "add(" not in system


def test_context_editing_clears_old_tool_results_from_the_prompt(math_tools):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="One."),
                                         tool_call("lookup", {"key": "rome"}, thought="Two."), "Final Answer: done"])
    edit = ClearToolUsesEdit(trigger=1, keep=0, placeholder="[cleared]")
    agent = agent_with(model, math_tools, [ContextEditingMiddleware(edits=[edit])])
    agent.run("Where are Paris and Rome?")
    tool_results = [m for m in model.calls[2]["messages"] if isinstance(m, ToolMessage)]
    assert tool_results and all(m.content == "[cleared]" for m in tool_results)


# -- refused, with reactgraph's equivalent ------------------------------------------------------------


@pytest.mark.parametrize(
    ("middleware", "named"),
    [
        (lambda: HumanInTheLoopMiddleware(interrupt_on={"lookup": {"allowed_decisions": ["approve"]}}), "approve_tools"),
        (lambda: SummarizationMiddleware(model=ScriptedChatModel(), trigger=("messages", 10)), "summarize node"),
    ],
)
def test_overlapping_middleware_is_refused_naming_the_equivalent(math_tools, middleware, named):
    with pytest.raises(MiddlewareError, match=named):
        agent_with(ScriptedChatModel(), math_tools, [middleware()])
    with pytest.raises(MiddlewareError, match=named):
        make_graph(ScriptedChatModel(), math_tools, middleware=[middleware()])


def test_human_in_the_loop_is_reactgraphs_approval(math_tools, log):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look."), "Final Answer: France"])
    agent = agent_with(model, math_tools, [HumanInTheLoopMiddleware(interrupt_on={"lookup": True, "add": False})])
    assert agent.config.approve_tools == ("lookup",) and agent.middleware == ()
    paused = agent.run("Where is Paris?")
    assert paused.termination_reason is TerminationReason.APPROVAL and log.calls == []
    result = agent.resume(paused.thread_id, approval={"type": "approve"})  # LangChain's decision, as HITL takes it
    assert result.final_answer == "France" and log.calls == [("lookup", {"key": "paris"})]


def test_async_only_hooks_and_twice_given_middleware_are_refused(math_tools):
    @wrap_model_call
    async def only_async(request, handler):
        return await handler(request)

    with pytest.raises(MiddlewareError, match="only an async awrap_model_call"):
        agent_with(ScriptedChatModel(), math_tools, [only_async])
    limit = ModelCallLimitMiddleware(run_limit=1)
    with pytest.raises(MiddlewareError, match="given twice"):
        agent_with(ScriptedChatModel(), math_tools, [limit, ModelCallLimitMiddleware(run_limit=2)])


# -- custom hooks ----------------------------------------------------------------------------------


def test_a_wrap_model_call_swaps_the_model(math_tools):
    configured = ScriptedChatModel(responses=["Final Answer: configured"])
    swapped = ScriptedChatModel(responses=["Final Answer: swapped"])

    @wrap_model_call
    def use_other_model(request, handler):
        return handler(request.override(model=swapped))

    result = agent_with(configured, math_tools, [use_other_model]).run("Which model answers?")
    assert result.final_answer == "swapped" and configured.calls == [] and len(swapped.calls) == 1
    assert result.trace.steps[-1].calls[0].middleware == ["use_other_model"]


def test_a_before_model_jumps_to_the_end(math_tools):
    model = ScriptedChatModel(responses=["Final Answer: never"])

    @before_model(can_jump_to=["end"])
    def stop_here(state, runtime):
        return {"jump_to": "end"}

    result = agent_with(model, math_tools, [stop_here]).run("Anything?")
    assert model.calls == []
    assert result.termination_reason is TerminationReason.CUSTOM
    assert result.termination_detail == "stop_here.before_model jumped to the end"
    assert result.question == "Anything?"


def test_a_jump_a_hook_did_not_declare_is_not_taken(math_tools):
    model = ScriptedChatModel(responses=["Final Answer: yes"])

    @before_model
    def wants_to_stop(state, runtime):
        return {"jump_to": "end"}

    assert agent_with(model, math_tools, [wants_to_stop]).run("Go on?").final_answer == "yes"


class Counted(AgentState):
    model_turns: NotRequired[int]


class CountTurns(AgentMiddleware):
    state_schema = Counted

    def after_model(self, state, runtime):
        return {"model_turns": state.get("model_turns", 0) + 1}


def test_a_middleware_state_schema_joins_the_state(math_tools):
    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look."), "Final Answer: France"])
    agent = agent_with(model, math_tools, [CountTurns()])
    result = agent.run("Where is Paris?", thread_id="c")
    assert agent.graph.get_state({"configurable": {"thread_id": "c"}}).values["model_turns"] == 2
    assert result.trace.steps[0].hooks[0].changed == ["model_turns"]


def test_order_is_langchains_first_wraps_outermost(math_tools):
    seen: list[str] = []

    def tracer(name: str) -> list[AgentMiddleware]:
        @before_agent(name=f"{name}_agent")
        def starting(state, runtime):
            seen.append(f"{name}.before_agent")

        @before_model(name=f"{name}_before")
        def before(state, runtime):
            seen.append(f"{name}.before_model")

        @wrap_model_call(name=f"{name}_wrap")
        def around(request, handler):
            seen.append(f"{name}.wrap:in")
            response = handler(request)
            seen.append(f"{name}.wrap:out")
            return response

        @wrap_tool_call(name=f"{name}_tool")
        def around_tool(request, handler):
            seen.append(f"{name}.tool:in")
            result = handler(request)
            seen.append(f"{name}.tool:out")
            return result

        @after_model(name=f"{name}_after")
        def after(state, runtime):
            seen.append(f"{name}.after_model")

        return [starting, before, around, around_tool, after]

    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look."), "Final Answer: France"])
    agent = agent_with(model, math_tools, [*tracer("a"), *tracer("b")])
    agent.run("Where is Paris?")
    turn = ["a.before_model", "b.before_model", "a.wrap:in", "b.wrap:in", "b.wrap:out", "a.wrap:out", "b.after_model", "a.after_model"]
    tools = ["a.tool:in", "b.tool:in", "b.tool:out", "a.tool:out"]
    assert seen == ["a.before_agent", "b.before_agent", *turn, *tools, *turn]
    nodes = set(agent.graph.get_graph().nodes)
    assert {"a_agent.before_agent", "b_before.before_model", "a_after.after_model"} <= nodes  # named as create_agent names them


def test_crash_and_resume_inside_a_wrapped_call_reruns_nothing_that_finished(tmp_path, math_tools, log):
    db = str(tmp_path / "runs.sqlite")
    crashed = []

    @wrap_tool_call
    def crash_once_on_rome(request, handler):
        if request.tool_call["args"].get("key") == "rome" and not crashed:
            deadline = time.monotonic() + 10
            while ("lookup", {"key": "paris"}) not in log.calls and time.monotonic() < deadline:
                time.sleep(0.01)  # the other call of the turn finishes first
            crashed.append(True)
            raise Crash()
        return handler(request)

    @wrap_model_call
    def passthrough(request, handler):
        return handler(request)

    turn = tool_calls([("lookup", {"key": "paris"}), ("lookup", {"key": "rome"})], thought="Both.")
    model = ScriptedChatModel(responses=[turn, "Final Answer: France and Italy"])
    with ReActAgent(model, math_tools, checkpointer=db, middleware=[passthrough, crash_once_on_rome], max_parallel_tools=1) as agent:
        with pytest.raises(Crash):
            agent.run("Where are Paris and Rome?", thread_id="t")
    assert len(model.calls) == 1
    with ReActAgent(model, math_tools, checkpointer=db, middleware=[passthrough, crash_once_on_rome]) as agent:
        result = agent.resume("t")
    assert result.final_answer == "France and Italy"
    assert len(model.calls) == 2  # the first turn's model call was not made again
    assert sorted(log.calls, key=str) == [("lookup", {"key": "paris"}), ("lookup", {"key": "rome"})]  # each once


def test_async_runs_forks_and_the_served_graph_take_middleware(math_tools):
    import asyncio

    model = ScriptedChatModel(responses=[tool_call("lookup", {"key": "paris"}, thought="Look."), "Final Answer: France"] * 3)
    pii = [PIIMiddleware("email", strategy="redact")]
    agent = agent_with(model, math_tools, pii)
    result = asyncio.run(agent.arun("Where is Paris? (bob@example.com)", thread_id="a"))
    assert result.final_answer == "France" and "[REDACTED_EMAIL]" in prompt_text(model.calls[0])
    forked = agent.fork("a", iteration=0)
    assert forked.final_answer == "France" and "bob@example.com" not in prompt_text(model.calls[2])
    served = make_graph(model, math_tools, middleware=pii)
    assert served.invoke({"query": "Where is Paris? (bob@example.com)"})["final_answer"] == "France"
    assert "PIIMiddleware[email].before_model" in served.get_graph().nodes
    assert "bob@example.com" not in prompt_text(model.calls[4])
