"""Optional arguments on nothing the run was given (``unfounded_options``, on by default): a made-up date and a yes/no
against the declared default are left out of the call, so the tool's default applies; required arguments, defaults,
numbers, given values and yes/no answers the question names stay."""

from __future__ import annotations

from reactgraph import ReActAgent, TerminationReason
from reactgraph.config import DEFAULT_REPLY_CHECKS
from reactgraph.testing import ScriptedChatModel, tool_call

ran: list[dict] = []


def connect_to_server(nickname: str, timeout: int = 30, retry_attempts: int = 3, use_ssl: bool = True) -> str:
    """Connect to a server by its nickname."""
    ran.append({"nickname": nickname, "timeout": timeout, "retry_attempts": retry_attempts, "use_ssl": use_ssl})
    return "connected"


def list_projects(user_id: str, include_completed: bool = False, since: str | None = None) -> str:
    """List a user's projects, from a date on (YYYY-MM-DD) when given."""
    ran.append({"user_id": user_id, "include_completed": include_completed, "since": since})
    return "reactgraph, website"


def agent(model: ScriptedChatModel, checks: tuple[str, ...] = DEFAULT_REPLY_CHECKS) -> ReActAgent:
    return ReActAgent(model=model, tools=[connect_to_server, list_projects], checkpointer=None, summary_every=0, reply_checks=checks)


def test_made_up_options_are_left_out_and_the_tool_s_defaults_apply():
    """BFCL's live_multiple_100-42-4 (2026-11-29): use_ssl=False for "connect to 'text01'" goes; a number stays."""
    ran.clear()
    call = tool_call("connect_to_server", {"nickname": "text01", "timeout": 30, "retry_attempts": 2, "use_ssl": False})
    result = agent(ScriptedChatModel(responses=[call, "Connected."])).run("Could you connect to the server nicknamed 'text01'?")
    assert result.termination_reason is TerminationReason.SUCCESS
    assert ran == [{"nickname": "text01", "timeout": 30, "retry_attempts": 2, "use_ssl": True}]
    step = result.trace.steps[0]
    assert step.actions[0].args == {"nickname": "text01", "timeout": 30, "retry_attempts": 2}
    assert [(c.check, c.decision, c.calls[0]["args"]) for c in step.checks] == [
        ("unfounded_options", "rewrite", {"nickname": "text01", "timeout": 30, "retry_attempts": 2, "use_ssl": False})]


def test_given_values_and_named_yes_no_options_stay():
    ran.clear()
    connect = tool_call("connect_to_server", {"nickname": "SQL01", "timeout": 60, "use_ssl": False})
    agent(ScriptedChatModel(responses=[connect, "ok"])).run("Connect to 'SQL01' with a 60 second timeout, without SSL.")
    listing = tool_call("list_projects", {"user_id": "1234", "include_completed": True, "since": "2023-12-31"})
    agent(ScriptedChatModel(responses=[listing, "ok"])).run("Which projects, completed ones too, has user 1234 had since 2023-12-31?")
    assert ran == [
        {"nickname": "SQL01", "timeout": 60, "retry_attempts": 3, "use_ssl": False},  # "ssl" is in the question
        {"user_id": "1234", "include_completed": True, "since": "2023-12-31"},
    ]


def test_a_made_up_date_and_yes_no_go_and_the_check_can_be_left_out():
    ran.clear()
    listing = tool_call("list_projects", {"user_id": "1234", "include_completed": True, "since": "2023-12-31"})
    agent(ScriptedChatModel(responses=[listing, "ok"])).run("Which projects is user 1234 working on?")
    without = tuple(c for c in DEFAULT_REPLY_CHECKS if c != "unfounded_options")
    agent(ScriptedChatModel(responses=[listing, "ok"]), without).run("Which projects is user 1234 working on?")
    assert ran == [
        {"user_id": "1234", "include_completed": False, "since": None},
        {"user_id": "1234", "include_completed": True, "since": "2023-12-31"},
    ]
