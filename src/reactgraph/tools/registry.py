"""ToolRegistry: the tools an agent may offer, validated at registration, not mid-run.

    registry = ToolRegistry()
    registry.register("word_count", word_count, {"category": "utility", "examples": ["word_count(text='a b')"]})
    registry.register(lookup, policy=ToolPolicy(timeout=5, cacheable=True))   # name from the function
    registry.add_hook(lambda tool, args: {**args, "text": args["text"].strip()})

A tool is a plain function, an async function or a LangChain tool. A function must be
callable, annotate every parameter and have a docstring (the description the model
sees); its argument schema comes from the signature (pydantic). A tool that runs in a worker
process (``ToolPolicy(isolation="process")``, or the run's ``tool_execution.isolation``) must be importable by
module and name, or defined in the main script and picklable (``reactgraph.tools.isolation.reference``): checked
when it is registered, and for the run's setting when an agent is made or a run starts.
"""

from __future__ import annotations

import builtins
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, create_model
from pydantic.fields import FieldInfo

from reactgraph.config import AgentConfig
from reactgraph.errors import did_you_mean
from reactgraph.tools.base import RegisteredTool, ToolMetadata, ToolRegistrationError, to_langchain_tool
from reactgraph.tools.builtin import register_builtins
from reactgraph.tools.isolation.pool import start_server
from reactgraph.tools.isolation.reference import IN_PROCESS, NotIsolatable, crossing
from reactgraph.tools.policy import ToolPolicy

BeforeCall = Callable[[str, dict[str, Any]], dict[str, Any]]
"""A pre-execution hook: ``(tool_name, args) -> args`` (possibly rewritten), or raise to refuse the call."""


class UnknownToolError(KeyError):
    """No tool of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown tool"


def _with_metadata(tool: BaseTool, name: str, meta: ToolMetadata) -> BaseTool:
    """The tool renamed, re-described and with parameter descriptions applied to its schema."""
    update: dict[str, Any] = {}
    if tool.name != name:
        update["name"] = name
    if meta.description:
        update["description"] = meta.description
    if meta.parameters:
        unknown = sorted(set(meta.parameters) - set(tool.args))
        if unknown:
            raise ToolRegistrationError(
                f"tool {name!r}: metadata describes unknown parameter(s) {', '.join(unknown)}; "
                f"its parameters are: {', '.join(tool.args) or 'none'}"
            )
        schema = tool.args_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            fields: dict[str, Any] = {
                p: (schema.model_fields[p].annotation, FieldInfo.merge_field_infos(schema.model_fields[p], description=text))
                for p, text in meta.parameters.items()
            }
            update["args_schema"] = create_model(schema.__name__, __base__=schema, **fields)
        elif isinstance(schema, dict):  # a JSON schema (MCP tools): a copy with the descriptions set
            properties = {
                p: {**prop, "description": meta.parameters[p]} if p in meta.parameters else prop
                for p, prop in schema["properties"].items()
            }
            update["args_schema"] = {**schema, "properties": properties}
    return tool.model_copy(update=update) if update else tool


class ToolRegistry:
    """Named tools with categories; the agent offers and runs tools only through it.

    ``ToolRegistry(tools)`` registers each tool under its own name; ``hooks`` are
    ``before_call(tool_name, args)`` functions run, in order, before every call.
    """

    def __init__(self, tools: Iterable[Any] = (), *, hooks: Iterable[BeforeCall] = ()) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        self.hooks: list[BeforeCall] = list(hooks)
        # the worker processes of its isolated tools serve no other registry's calls (``isolation.pool``)
        self.worker_group = uuid.uuid4().hex
        for tool in tools:
            self.register(tool)

    @classmethod
    def with_builtins(
        cls,
        names: Iterable[str] | None = None,
        *,
        root: str | Path | None = None,
        documents: Any = None,
        tools: Iterable[Any] = (),
    ) -> ToolRegistry:
        """A registry of ``tools`` plus the built-ins (all that the given root/documents allow, or ``names``).

        The file tools need ``root`` (the only directory they may read); search needs ``documents``.
        """
        registry = cls(tools)
        register_builtins(registry, names, root=root, documents=documents)
        return registry

    def register(
        self,
        name: str | Any,
        tool: Any = None,
        metadata: ToolMetadata | Mapping[str, Any] | None = None,
        *,
        policy: ToolPolicy | None = None,
        replace: bool = False,
    ) -> RegisteredTool:
        """Validate and add a tool: ``register(name, tool, metadata)``, or ``register(tool[, metadata])``
        to use the tool's own name. Registering a taken name is an error unless ``replace=True``.
        """
        if not isinstance(name, str) and name is not None:  # register(tool[, metadata])
            if metadata is not None:
                raise ToolRegistrationError("register(name, tool, metadata) or register(tool, metadata), not both")
            name, tool, metadata = None, name, tool
        if name is not None and not (isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)):
            raise ToolRegistrationError(f"tool name {name!r}: use 1-64 letters, digits, '_' or '-'")
        if tool is None:
            raise ToolRegistrationError(f"tool {name!r}: no tool given (register(name, tool, metadata))")
        try:
            meta = metadata if isinstance(metadata, ToolMetadata) else ToolMetadata.model_validate(metadata or {})
        except ValueError as exc:
            raise ToolRegistrationError(f"tool {name or getattr(tool, '__name__', tool)!r}: bad metadata: {exc}") from None
        lc_tool = to_langchain_tool(tool, name)
        tool_name = name or lc_tool.name
        if tool_name in self._tools and not replace:
            raise ToolRegistrationError(f"tool {tool_name!r} is already registered (pass replace=True to replace it)")
        if cycle := self._cycle_through(lc_tool, [tool_name]):
            raise ToolRegistrationError(
                f"sub-agent {tool_name!r} would call itself ({' -> '.join(cycle)} -> {tool_name}): an agent cannot be "
                "its own sub-agent, directly or through others"
            )
        policy = _placed(tool_name, tool, lc_tool, policy or ToolPolicy())
        entry = RegisteredTool(tool_name, _with_metadata(lc_tool, tool_name, meta), meta, policy, tool)
        self._tools[tool_name] = entry
        return entry

    def _cycle_through(self, tool: Any, path: builtins.list[str], seen: set[int] | None = None) -> builtins.list[str] | None:
        """The chain of sub-agent tools by which ``tool`` (a sub-agent's, which ``delegates_to`` a registry)
        leads back to this registry, or None."""
        registry, seen = getattr(tool, "delegates_to", None), seen if seen is not None else set()
        if not isinstance(registry, ToolRegistry) or id(registry) in seen:
            return None
        if registry is self:
            return path
        seen.add(id(registry))
        for entry in registry._tools.values():
            if found := self._cycle_through(entry.tool, [*path, entry.name], seen):
                return found
        return None

    def register_agent(
        self, agent: Any, name: str, description: str, metadata: ToolMetadata | Mapping[str, Any] | None = None, **options: Any
    ) -> RegisteredTool:
        """Register a ReActAgent as a sub-agent tool (``agent.as_tool(name, description)``); its category
        is ``agents`` unless ``metadata`` says otherwise; ``options`` as for ``register``."""
        meta = metadata if isinstance(metadata, ToolMetadata) else ToolMetadata.model_validate({"category": "agents", **(metadata or {})})
        return self.register(name, agent.as_tool(name, description), meta, **options)

    def unregister(self, name: str) -> RegisteredTool:
        """Remove and return a tool; UnknownToolError when there is none of that name."""
        if name not in self._tools:
            raise UnknownToolError(f"no tool {name!r} to unregister; registered: {', '.join(self._tools) or 'none'}")
        return self._tools.pop(name)

    def add_hook(self, hook: BeforeCall) -> BeforeCall:
        """Run ``hook(tool_name, args) -> args`` before every call (usable as a decorator)."""
        self.hooks.append(hook)
        return hook

    def has(self, name: str) -> bool:
        return name in self._tools

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def __getitem__(self, name: str) -> RegisteredTool:
        """The registered tool ``name`` (KeyError when there is none): for names the registry gave."""
        return self._tools[name]

    def list(self, category: str | None = None) -> builtins.list[RegisteredTool]:
        """Registered tools in registration order, optionally of one category."""
        return [t for t in self._tools.values() if category is None or t.category == category]

    def names(self) -> builtins.list[str]:
        return builtins.list(self._tools)

    def categories(self) -> builtins.list[str]:
        return sorted({t.category for t in self._tools.values()})

    def select(self, names: Iterable[str] | None, *, strict: bool = True) -> builtins.list[str]:
        """The tools ``names`` (all registered ones when None), in the given order. A name that is not
        registered is an UnknownToolError naming the close matches; ``strict=False`` leaves it out."""
        if names is None:
            return self.names()
        names = builtins.list(names)
        unknown = [n for n in names if n not in self._tools]
        if unknown and strict:
            raise UnknownToolError(
                "; ".join(f"no tool named {n!r}{did_you_mean(n, self._tools)}" for n in unknown)
                + f"; available: {', '.join(self._tools) or 'none'}"
            )
        return [n for n in names if n in self._tools]

    def check(self, config: AgentConfig) -> None:
        """The tool names ``config`` refers to (``tools``, and ``approve_tools`` besides '*') are registered;
        UnknownToolError naming the close matches otherwise. The tools it runs in worker processes
        (``tool_execution.isolation``) can be; ToolRegistrationError saying why not and how to opt out otherwise. When there
        are such tools, the worker processes' fork server is started in the background, to preload their modules
        (``isolation.pool.start_server``)."""
        offered = self.select(config.tools)
        reachable = self.reachable()
        if unknown := [n for n in config.tool_execution.approve_tools if n != "*" and n not in reachable]:
            raise UnknownToolError(
                "approve_tools: " + "; ".join(f"no tool named {n!r}{did_you_mean(n, reachable)}" for n in unknown)
                + f"; available: {', '.join(dict.fromkeys([*self._tools, *sorted(reachable)])) or 'none'}"
            )
        problems: builtins.list[str] = []
        modules: builtins.list[str] = []
        for entry in (self._tools[name] for name in offered):
            if entry.policy.isolation_in(config.tool_execution.isolation) == "process":
                try:
                    modules.extend(crossing(entry.source if entry.source is not None else entry.tool).modules)
                    if takes_store(entry.tool):
                        raise NotIsolatable("it takes the store (InjectedStore), a live connection, which cannot cross to it")
                except NotIsolatable as exc:
                    problems.append(f"tool {entry.name!r} cannot run in a worker process: {exc}")
        if problems:
            raise ToolRegistrationError(
                f"tool_execution.isolation='process': {'; '.join(problems)} (or register it with ToolPolicy(isolation='none'))"
            )
        if modules:
            start_server(modules)

    def reachable(self, seen: set[int] | None = None) -> set[str]:
        """The names of this registry's tools and of the tools its sub-agents (and handoffs) call, through theirs:
        what ``approve_tools`` may name (a sub-agent's run takes its parent's approvals)."""
        seen = seen if seen is not None else set()
        seen.add(id(self))
        names = set(self._tools)
        for entry in self._tools.values():
            inner = getattr(entry.tool, "delegates_to", None)
            if isinstance(inner, ToolRegistry) and id(inner) not in seen:
                names |= inner.reachable(seen)
        return names

    def search(self, query: str) -> builtins.list[RegisteredTool]:
        """Tools matching ``query``, best first: whole-name, then name words, then description words."""
        terms = [t for t in re.findall(r"[a-z0-9]+", query.lower()) if t]
        scored = []
        for entry in self._tools.values():
            score = _match_score(entry, query.strip().lower(), terms)
            if score > 0:
                scored.append((-score, entry.name, entry))
        return [entry for *_, entry in sorted(scored, key=lambda s: (s[0], s[1]))]


def _placed(name: str, source: Any, tool: BaseTool, policy: ToolPolicy) -> ToolPolicy:
    """``policy``, with isolation 'none' for a tool that runs only in the agent's process (a sub-agent, an MCP
    tool) and leaves it unset; ToolRegistrationError when the policy puts a tool a worker cannot import there."""
    if policy.isolation is None and policy.limits is None and (tool.metadata or {}).get(IN_PROCESS):
        return policy.model_copy(update={"isolation": "none"})
    if policy.isolation_in("none") == "process":
        try:
            crossing(source)
            if takes_store(tool):
                raise NotIsolatable("it takes the store (InjectedStore), a live connection, which cannot cross to it")
        except NotIsolatable as exc:
            raise ToolRegistrationError(f"tool {name!r}: cannot run in a worker process: {exc}") from None
    return policy


def takes_store(tool: BaseTool) -> bool:
    """Whether ``tool`` takes the store (``InjectedStore``), which cannot cross to a worker process. Read here, not
    at import: ``reactgraph tools`` lists the tools without loading LangGraph."""
    from reactgraph.tools.injection import injected

    return bool(injected(tool).args.store)


def _match_score(entry: RegisteredTool, phrase: str, terms: builtins.list[str]) -> float:
    name = entry.name.lower()
    name_words = set(re.findall(r"[a-z0-9]+", name))
    text_words = re.findall(r"[a-z0-9]+", f"{entry.description} {entry.category}".lower())
    score = 0.0
    if phrase and phrase == name:
        score += 100
    elif phrase and phrase in name:
        score += 20
    for term in terms:
        if term in name_words:
            score += 10
        elif term in name:
            score += 5
        hits = sum(1 for w in text_words if w == term or (len(term) > 3 and w.startswith(term)))
        score += min(hits, 3)
    return score
