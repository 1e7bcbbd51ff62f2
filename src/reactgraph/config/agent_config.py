"""AgentConfig: every limit, budget and policy of a run, in groups where a user would look for them.

Precedence is per-run override (``run(**overrides)`` or the LangGraph runtime ``context``) > per-agent config >
the defaults. Only the options a run sets explicitly override the agent's config (pydantic's
``model_fields_set``, option by option inside a group). Containment is the exception (``merge``): the agent's
``tool_execution.approve_tools`` and ``tool_execution.isolation`` are floors a run can raise but not lower, and
its ``tool_execution.isolated_env`` a ceiling a run can narrow but not widen.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from reactgraph.config.base import ConfigError, Group
from reactgraph.config.checks import Checks
from reactgraph.config.defaults import DEFAULT_MODEL
from reactgraph.config.learning import Learning
from reactgraph.config.limits import Limits
from reactgraph.config.model_settings import ModelSettings
from reactgraph.config.names import ALWAYS_ON, FLAT, RENAMED, unknown_option, where
from reactgraph.config.prompt import Prompt
from reactgraph.config.text_format import TextFormat
from reactgraph.config.tool_execution import ToolExecution

GROUPS: dict[str, type[Group]] = {
    group.group: group for group in (Limits, Prompt, TextFormat, Checks, ToolExecution, ModelSettings, Learning)
}


def flat_properties(schema: dict[str, Any]) -> None:
    """Add each flat name (``names.FLAT``) to a JSON schema of AgentConfig's, described as the grouped option it
    stands for: the LangGraph server keeps only the context keys its schema names, and clients send flat ones."""
    schema["properties"] |= copy.deepcopy(flat_schema())  # a caller may change the schema it gets


@functools.cache
def flat_schema() -> dict[str, Any]:
    """The JSON schema properties of the flat names (made once: the server asks for the schema on every run)."""
    properties: dict[str, Any] = {}
    for name, path in FLAT.items():
        group, leaf = path.split(".", 1)
        found = GROUPS[group].model_json_schema()["properties"].get(leaf)
        if found is not None:  # a model's schema (tool_limits) stands as an object: its $ref is the group's own
            about = f"The flat form of {path}: {GROUPS[group].model_fields[leaf].description}"
            found = {k: v for k, v in found.items() if k not in ("default", "title")} if "$ref" not in str(found) else {"type": "object"}
            properties[name] = found | {"description": about} | ({"deprecated": True} if name in RENAMED else {})
    return properties


class AgentConfig(BaseModel):
    """Limits, budgets and policies of a ReAct run (also the graph's context schema): a few choices at the top
    (the model, the tool-calling format, the tools) and the rest in groups (``AgentConfig(limits=Limits(...))``,
    or a dict of the group's options: ``AgentConfig(limits={"max_iterations": 6})``)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", arbitrary_types_allowed=True, json_schema_extra=lambda s, _: flat_properties(s)
    )

    model: Annotated[str, Field(json_schema_extra={"__template_metadata__": {"kind": "llm"}})] = Field(
        default=DEFAULT_MODEL,
        description="Chat model as 'provider:model' (e.g. 'ollama:qwen2.5:7b'). "
        "Ignored when the agent was given a model instance and the run does not set it.",
    )
    tool_calling: Literal["auto", "native", "text", "json", "python"] = Field(
        default="auto",
        description="'auto': native tool calling, switching the run (and the agent's later runs) to 'text' once the "
        "model writes its calls as text; 'native': the model's tool-calling API; 'text': tools described in the "
        "prompt, replies as Thought/Action text; 'json': calls as JSON objects in the reply; 'python': calls as one "
        "Python list, [tool(a=1), other(b='x')] (BFCL's prompt format).",
    )
    tools: tuple[str, ...] | None = Field(
        default=None, description="Names of the registered tools to offer in this run (None = all)."
    )
    allow_clarification: bool = Field(
        default=True, description="Offer the model an ask_user tool; the run pauses (interrupt) until the user answers."
    )
    output_mode: Literal["simple", "structured"] = Field(
        default="structured", description="'simple': run() returns the answer string; 'structured': the ReActResult."
    )
    durability: Literal["sync", "async", "exit"] = Field(
        default="sync",
        description="When the run's checkpoints are written (LangGraph's durability): 'sync' before the next step "
        "starts (a crash loses at most the step running); 'async' while the next step runs (a crash can lose the "
        "last step: a tool call that finished may run again on resume); 'exit' only when the run ends or waits (a "
        "crash loses the whole run, and its history has no steps to fork from).",
    )
    termination_callback: SkipJsonSchema[Callable[[Any], bool] | None] = Field(
        default=None,
        exclude=True,
        description="Called with each completed ReActStep; returning True ends the run with reason 'custom'.",
    )
    limits: Limits = Field(default_factory=Limits, description=Limits.__doc__)
    prompt: Prompt = Field(default_factory=Prompt, description=Prompt.__doc__)
    checks: Checks = Field(default_factory=Checks, description=Checks.__doc__)
    tool_execution: ToolExecution = Field(default_factory=ToolExecution, description=ToolExecution.__doc__)
    text_format: TextFormat = Field(default_factory=TextFormat, description=TextFormat.__doc__)
    model_settings: ModelSettings = Field(default_factory=ModelSettings, description=ModelSettings.__doc__)
    learning: Learning = Field(default_factory=Learning, description=Learning.__doc__)

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, values: Any) -> Any:
        """Each flat name (``max_iterations``) or dotted one (``limits.max_iterations``) moved into its group; an
        unknown name is an error naming the close matches (a typo is never dropped silently). The options of the
        design documents reactgraph grew from that it does another way (``ALWAYS_ON``) are taken when they ask for
        what reactgraph does anyway, and refused, saying why, when they ask for something else."""
        if not isinstance(values, dict):
            return values
        top: dict[str, Any] = {}
        moved: dict[str, dict[str, Any]] = {}
        unknown: list[str] = []
        for key, value in values.items():
            if key in ALWAYS_ON:
                if value is not True:
                    raise PydanticCustomError("always_on", f"{key}={value!r}: {ALWAYS_ON[key]}")
            elif key in FLAT or (isinstance(key, str) and key.partition(".")[0] in GROUPS and "." in key):
                group, leaf = where(key) if key in FLAT else key.split(".", 1)
                if leaf in moved.setdefault(group, {}):
                    raise PydanticCustomError("given_twice", f"{group}.{leaf} is given twice")
                moved[group][leaf] = value
            elif key in cls.model_fields:
                top[key] = value
            else:
                unknown.append(str(key))
        if unknown:
            raise PydanticCustomError("unknown_option", "; ".join(unknown_option(k, "", list(cls.model_fields)) for k in unknown))
        for group, leaves in moved.items():
            given = top.get(group, {})
            given = given.set_values() if isinstance(given, Group) else given
            if not isinstance(given, dict):
                continue  # not a group's options: pydantic says so
            if twice := sorted(given.keys() & leaves.keys()):
                raise PydanticCustomError("given_twice", f"{group}.{twice[0]} is given twice")
            top[group] = given | leaves
        return top

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """A flat name reads its grouped option (``config.max_iterations`` is ``config.limits.max_iterations``)."""
            if name in FLAT:
                group, leaf = where(name)
                return getattr(getattr(self, group), leaf)
            return super().__getattr__(name)

    def set_values(self) -> dict[str, Any]:
        """The options set explicitly: name -> value, a group's as a dict of the options set in it."""
        return {k: v.set_values() if isinstance(v := getattr(self, k), Group) else v for k in self.model_fields_set}

    def updated(self, values: dict[str, Any]) -> AgentConfig:
        """A copy with ``values`` (``set_values``' shape, already validated) applied on top, a group's one by one."""
        return self.model_copy(
            update={k: getattr(self, k).model_copy(update=v) if k in GROUPS else v for k, v in values.items()}
        )

    def override(self, **values: Any) -> AgentConfig:
        """A copy with ``values`` (grouped, flat or dotted; validated) applied on top: the operator's own settings,
        containment included (a run's go through ``merge``)."""
        return self.updated(make_config(**values).set_values())

    def merge(self, run: AgentConfig | None) -> AgentConfig:
        """A copy with the options that ``run`` set explicitly applied on top, except that a run cannot
        loosen containment (``ToolExecution.contained``)."""
        if run is None or run is self:
            return self
        values = run.set_values()
        if "tool_execution" in values:
            values["tool_execution"] |= self.tool_execution.contained(values["tool_execution"])
        return self.updated(values)


def make_config(**values: Any) -> AgentConfig:
    """Build an AgentConfig, turning validation errors into a ConfigError that names each bad field."""
    try:
        return AgentConfig(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']} (got {err.get('input')!r})" if err["loc"] else err["msg"]
            for err in exc.errors()
        )
        raise ConfigError(f"invalid reactgraph config: {problems}") from None


def is_option(name: str) -> bool:
    """Whether ``name`` names an option: one at AgentConfig's top, a flat one, or a dotted one (``limits.max_iterations``)."""
    group, dot, leaf = name.partition(".")
    return name in AgentConfig.model_fields or name in FLAT or bool(dot and group in GROUPS and leaf in GROUPS[group].model_fields)


def option_names() -> list[str]:
    """The names a misspelt option is matched against: AgentConfig's own, then the flat ones."""
    return [*AgentConfig.model_fields, *FLAT]

