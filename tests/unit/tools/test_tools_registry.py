"""ToolRegistry: registration, validation at registration, metadata, search, hooks."""

from __future__ import annotations

import pytest
from langchain_core.tools import BaseTool, StructuredTool, tool
from pydantic import BaseModel

from reactgraph.tools import (
    BUILTINS,
    ToolMetadata,
    ToolPolicy,
    ToolRegistrationError,
    ToolRegistry,
    UnknownToolError,
)


def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


async def fetch_title(url: str, retries: int = 0) -> str:
    """Return the title of a page (async)."""
    return url.upper()


@tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


class EchoArgs(BaseModel):
    text: str


class Echo(BaseTool):
    name: str = "echo"
    description: str = "Echo the text back."
    args_schema: type[BaseModel] = EchoArgs

    def _run(self, text: str) -> str:
        return text


def test_register_name_tool_metadata_and_read_it_back():
    registry = ToolRegistry()
    entry = registry.register(
        "count_words",
        word_count,
        {"category": "utility", "parameters": {"text": "The text whose words to count."}, "examples": ["count_words(text='a b')"]},
    )
    assert registry.has("count_words") and not registry.has("word_count")
    assert registry.get("count_words") is entry
    assert entry.tool.name == "count_words"
    assert entry.description == "Count the words in a text."
    assert entry.category == "utility"
    assert entry.examples == ("count_words(text='a b')",)
    assert entry.parameters["text"]["description"] == "The text whose words to count."
    assert entry.tool.invoke({"text": "one two three"}) == 3


def test_function_async_function_and_langchain_tools_are_accepted():
    registry = ToolRegistry([word_count, shout, Echo()])
    registry.register(fetch_title)
    registry.register("shout_again", StructuredTool.from_function(func=lambda text: text, name="x", description="Echo."))
    assert registry.names() == ["word_count", "shout", "echo", "fetch_title", "shout_again"]
    assert registry.get("fetch_title").tool.coroutine is not None
    assert registry.get("shout_again").tool.name == "shout_again"
    assert registry.get("echo").tool.invoke({"text": "hi"}) == "hi"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((lambda x: x,), "tool 'thing': missing docstring"),
        ((42,), r"tool 'thing': not callable \(got int\)"),
        ((), "tool 'thing': no tool given"),
    ],
)
def test_registration_errors_name_the_tool_and_the_missing_piece(args, message):
    registry = ToolRegistry()
    with pytest.raises(ToolRegistrationError, match=message):
        registry.register("thing", *args)
    assert not registry.has("thing")


def test_unannotated_parameter_is_refused_naming_it():
    def area(width, height: float) -> float:
        """Area."""
        return width * height

    with pytest.raises(ToolRegistrationError, match=r"tool 'area': parameter 'width' has no type annotation"):
        ToolRegistry([area])


def test_varargs_and_missing_docstring_are_refused():
    def many(*values: int) -> int:
        """Sum."""
        return sum(values)

    def undocumented(x: int) -> int:
        return x

    with pytest.raises(ToolRegistrationError, match=r"'many'.*\*args/\*\*kwargs parameter 'values'"):
        ToolRegistry([many])
    with pytest.raises(ToolRegistrationError, match=r"'undocumented': missing docstring"):
        ToolRegistry([undocumented])


def test_bad_names_metadata_and_unknown_parameter_descriptions_are_refused():
    registry = ToolRegistry()
    with pytest.raises(ToolRegistrationError, match="tool name 'has space'"):
        registry.register("has space", word_count)
    with pytest.raises(ToolRegistrationError, match="'wc': bad metadata"):
        registry.register("wc", word_count, {"colour": "red"})
    with pytest.raises(ToolRegistrationError, match=r"'wc': metadata describes unknown parameter\(s\) txt; its parameters are: text"):
        registry.register("wc", word_count, {"parameters": {"txt": "typo"}})
    assert registry.names() == []


def test_registering_a_name_twice_is_an_error_unless_replace():
    registry = ToolRegistry([word_count])
    with pytest.raises(ToolRegistrationError, match="'word_count' is already registered"):
        registry.register(word_count)
    replaced = registry.register("word_count", shout, replace=True)
    assert registry.get("word_count") is replaced
    assert registry.get("word_count").tool.invoke({"text": "a"}) == "A"


def test_unregister_and_unknown_names():
    registry = ToolRegistry([word_count, shout])
    removed = registry.unregister("word_count")
    assert removed.name == "word_count" and registry.names() == ["shout"]
    with pytest.raises(UnknownToolError, match="no tool 'word_count' to unregister; registered: shout"):
        registry.unregister("word_count")
    assert registry.get("word_count") is None


def test_list_by_category_and_select():
    registry = ToolRegistry()
    registry.register("a", word_count, ToolMetadata(category="basic"))
    registry.register("b", shout, {"category": "utility"})
    registry.register("c", fetch_title)
    assert [t.name for t in registry.list()] == ["a", "b", "c"]
    assert [t.name for t in registry.list("utility")] == ["b"]
    assert [t.name for t in registry.list("user")] == ["c"]
    assert registry.categories() == ["basic", "user", "utility"]
    assert registry.select(("c", "a")) == ["c", "a"]
    assert registry.select(None) == ["a", "b", "c"]
    with pytest.raises(UnknownToolError, match=r"^no tool named 'missing'; available: a, b, c$"):
        registry.select(("c", "missing", "a"))  # a name that is not registered is never dropped silently
    assert registry.select(("c", "missing", "a"), strict=False) == ["c", "a"]


def test_search_ranks_name_matches_before_description_matches():
    registry = ToolRegistry.with_builtins(root=".", documents={"d": "x"})
    ranked = [t.name for t in registry.search("area")]
    assert ranked[:3] == ["circle_area", "rectangle_area", "triangle_area"]  # name hits, then by name
    assert [t.name for t in registry.search("circle area")][0] == "circle_area"
    assert [t.name for t in registry.search("calculator")] == ["calculator"]
    assert "read_file" in [t.name for t in registry.search("read a text file")][:2]
    assert registry.search("zzzz") == []


def test_policy_is_kept_per_tool():
    registry = ToolRegistry()
    entry = registry.register(word_count, policy=ToolPolicy(timeout=2, max_retries=0, cacheable=True))
    assert entry.policy.timeout == 2 and entry.policy.cacheable
    assert ToolRegistry([shout]).get("shout").policy == ToolPolicy()


def test_hooks_are_kept_in_order():
    seen = []
    registry = ToolRegistry(hooks=[lambda tool, args: seen.append(tool) or args])

    @registry.add_hook
    def second(tool: str, args: dict) -> dict:
        return args

    assert registry.hooks[1] is second and len(registry.hooks) == 2


def test_with_builtins_by_name_and_their_requirements(tmp_path):
    assert ToolRegistry.with_builtins(["calculator", "text"]).names() == ["calculator", "text"]
    everything = ToolRegistry.with_builtins(root=tmp_path, documents=["some text"])
    assert everything.names() == list(BUILTINS)
    assert set(ToolRegistry.with_builtins().names()) == set(BUILTINS) - {"read_file", "list_directory", "grep_search", "search_documents"}
    assert all(t.policy.cacheable for t in everything.list())
    assert {t.category for t in everything.list()} == {"basic", "utility"}
    with pytest.raises(ToolRegistrationError, match="tool 'read_file': needs root="):
        ToolRegistry.with_builtins(["read_file"])
    with pytest.raises(ToolRegistrationError, match="no built-in tool 'weather'"):
        ToolRegistry.with_builtins(["weather"])
    mine = ToolRegistry.with_builtins(["calculator"], tools=[word_count])
    assert mine.names() == ["word_count", "calculator"]


def test_register_a_tool_with_metadata_under_its_own_name():
    registry = ToolRegistry()
    entry = registry.register(word_count, {"category": "utility"})
    assert entry.name == "word_count" and entry.category == "utility"
    with pytest.raises(ToolRegistrationError, match="not both"):
        registry.register(shout, {"category": "x"}, {"category": "y"})


def test_callable_objects_are_accepted_with_a_name():
    class Counter:
        def __call__(self, text: str) -> int:
            """Count characters."""
            return len(text)

    registry = ToolRegistry()
    with pytest.raises(ToolRegistrationError, match="has no __name__; pass a name"):
        registry.register(Counter())
    assert registry.register("count_chars", Counter()).tool.invoke({"text": "abc"}) == 3
    with pytest.raises(ToolRegistrationError, match="not callable"):
        registry.register("cls", Counter)
