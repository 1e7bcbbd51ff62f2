"""The agent a task describes: its tools (built-ins reading the suite's files/ and docs/, tools named by
'module:attribute', sub-agents), its config (the eval's non-interactive defaults unless the task is interactive),
its middleware, reply checks and answer type, on the eval's model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.store.base import BaseStore

from reactgraph.agent import ReActAgent
from reactgraph.config import AgentConfig
from reactgraph.evaluation.faults import inject_fault
from reactgraph.evaluation.suite import Task, is_spec
from reactgraph.loading import load_object, register_spec
from reactgraph.tools.registry import ToolRegistry

# Nobody answers questions during an eval (and the prebuilt agent has no such tool): no ask_user.
NON_INTERACTIVE: dict[str, Any] = {"allow_clarification": False}


def task_config(task: Task, overrides: dict[str, Any]) -> AgentConfig:
    """The run's config: the task's own settings over the suite-wide overrides over non-interactive defaults (an
    interactive task: the product's defaults). Each layer is applied on the one below, so a flat name in one and
    its grouped or dotted form in another (``max_iterations``, ``limits.max_iterations``) override, not clash."""
    return base_config(task.interactive).override(**overrides).override(**task.config)


def base_config(interactive: bool) -> AgentConfig:
    """The config a task's layers go on: the product's defaults, with ``NON_INTERACTIVE`` unless ``interactive``."""
    return AgentConfig() if interactive else AgentConfig().override(**NON_INTERACTIVE)


def task_registry(task: Task, suite_dir: Path, model: BaseChatModel | None = None) -> ToolRegistry:
    """The task's tools: the built-ins it names (file tools rooted at the suite's files/, search over docs/), the
    tools its 'module:attribute' names load, its sub-agents on ``model``; faults injected."""
    builtins = [name for name in task.tools if not is_spec(name)]
    root, documents = (path if path.is_dir() else None for path in (suite_dir / "files", suite_dir / "docs"))
    registry = ToolRegistry.with_builtins(builtins, root=root, documents=documents)
    for spec in task.tools:
        if is_spec(spec):
            register_spec(registry, spec)
    for sub in task.subagents:
        if model is None:
            raise ValueError(f"task {task.id}: its sub-agent {sub.name!r} needs the model")
        config = base_config(task.interactive).override(**sub.config)
        root, documents = (suite_dir / where if where else None for where in (sub.root, sub.documents))
        tools = ToolRegistry.with_builtins(sub.tools, root=root, documents=documents)
        child = ReActAgent(model=model, tools=tools, config=config, checkpointer=None)
        registry.register_agent(child, sub.name, sub.description)
    if task.fault:
        inject_fault(registry, task.fault)
    return registry


def task_agent(
    task: Task, model: BaseChatModel, suite_dir: Path, overrides: dict[str, Any], playbook: BaseStore | None = None
) -> ReActAgent:
    """The agent of an agent- or graph-driven task, runs kept in memory; with ``playbook`` (a store) it uses and feeds
    the playbook in it (a task whose config turns the playbook on gets one in memory)."""
    config = task_config(task, overrides)
    options: dict[str, Any] = {}
    if task.reply_checks:
        options["reply_checks"] = [*config.checks.reply_checks, *(load_object(spec) for spec in task.reply_checks)]
    return ReActAgent(
        model=model,
        tools=task_registry(task, suite_dir, model),
        config=config,
        checkpointer=None,
        playbook=playbook or config.learning.playbook,
        middleware=load_object(task.middleware)() if task.middleware else (),
        output_schema=task.output_schema,
        **options,
    )
