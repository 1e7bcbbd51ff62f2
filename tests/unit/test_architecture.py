"""The layout is the architecture: every module of the package sits in a room (a top-level module or package),
the rooms in layers, and imports point down the layers only, never in a circle. Every import counts: at the top
of a module, inside a function, under ``TYPE_CHECKING``. The layers are docs/ARCHITECTURE.md's. A module, package or
name whose own name starts with ``_`` is private to its room: no other room imports it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "reactgraph"

# Top to bottom. A room imports rooms of lower layers only; rooms of one layer do not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("cli", "testing"),  # the command line; the scripted model for users' tests
    ("commands",),  # the command line's subcommands
    ("evaluation",),  # the task suite, the peers, the reports
    ("queue", "server"),  # queued runs on Postgres; the graph langgraph dev serves
    ("agent", "loading"),  # ReActAgent; what --tools / --model name, loaded
    ("graph",),  # the state machine: nodes, routing, stop rules
    ("playbook",),  # what past runs taught
    ("persistence",),  # run stores, checkpointers, reading runs back
    ("answers",),  # results, typed answers, confidence, waiting runs
    ("tool_calling",),  # the tool-calling formats: describe tools, read replies
    ("tools", "models"),  # the registry and execution of tools; chat models and their calls
    ("config", "state", "prompts"),  # the settings, the typed state, the prompts' texts
    ("errors", "lazy", "threads"),  # the error kinds and their texts; a package's names imported on first use; worker threads
]
# The old paths of moved modules, kept until 0.2.0 (tests/unit/test_moved_modules.py): re-exports, not rooms.
MOVED = {"reactgraph.checkpoints", "reactgraph.confidence", "reactgraph.nodes", "reactgraph.workers"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: name -> (file, whether it is a package's __init__)."""
    return {module_name(p): (p, p.name == "__init__.py") for p in PACKAGE.rglob("*.py") if module_name(p) not in MOVED}


def imported(name: str, path: Path, is_package: bool, known: set[str]) -> Iterator[tuple[str, str | None]]:
    """Each import of the package's modules in ``name``, wherever it stands: (the module, the name imported from it,
    None when the import names the module itself)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            pairs: list[tuple[str, str | None]] = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            pairs = [(f"{source}.{alias.name}", None) if f"{source}.{alias.name}" in known else (source, alias.name) for alias in node.names]
        else:
            continue
        for target, imported_name in pairs:
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != name and target.startswith("reactgraph"):
                yield target, imported_name


def imports(name: str, path: Path, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports, wherever the import stands."""
    return {target for target, _ in imported(name, path, is_package, known)}


def import_graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, is_package, set(found)) for name, (path, is_package) in found.items()}


def room(module: str) -> str:
    return module.split(".")[1] if "." in module else "reactgraph"


def is_private(part: str) -> bool:
    """``_name``, not ``__init__`` or another dunder."""
    return part.startswith("_") and not part.startswith("__")


def private_part(target: str, imported_name: str | None) -> str | None:
    """What of ``target`` (a module below its room) and ``imported_name`` is private to the room: the first module,
    package or name on the way whose name starts with ``_``; None when all of it is public."""
    parts = target.split(".")[2:] + ([imported_name] if imported_name else [])
    for i, part in enumerate(parts):
        if is_private(part):
            return ".".join(target.split(".")[:2] + parts[: i + 1])
    return None


def private_reaches(found: dict[str, tuple[Path, bool]]) -> list[str]:
    """Every import of another room's private part, said so that the fix is plain."""
    reaches = []
    for module, (path, is_package) in sorted(found.items()):
        for target, imported_name in imported(module, path, is_package, set(found)):
            if room(target) != room(module) and (part := private_part(target, imported_name)):
                reaches.append(
                    f"{module} imports {part}, private to the {room(target)} room: import what "
                    f"reactgraph.{room(target)} makes public instead (docs/ARCHITECTURE.md, 'Private parts')"
                )
    return reaches


def layer_of(name: str) -> int:
    return next(i for i, rooms in enumerate(LAYERS) if name in rooms)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    assert circles(import_graph()) == []


def test_every_room_has_a_layer():
    rooms = {room(m) for m in modules()} - {"reactgraph"}
    listed = [name for layer in LAYERS for name in layer]
    assert sorted(listed) == sorted(set(listed)), "a room is listed twice"
    assert rooms == set(listed), "a new module or package at the top: give it a layer here and a row in docs/ARCHITECTURE.md"


def test_the_architecture_page_draws_these_layers():
    """docs/ARCHITECTURE.md's table has each room in its layer, and its opening says how many layers there are (the
    page and the check stay one picture; the walkthrough's document questions are answered from that sentence)."""
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = re.findall(r"^\| (\d+) \| `(\w+)/?` \|", page, re.M)
    assert [(int(layer) - 1, name) for layer, name in rows] == [(i, name) for i, rooms in enumerate(LAYERS) for name in rooms]
    assert f"one idea per package, in {len(LAYERS)} layers:" in page


def test_imports_point_down_the_layers():
    upward = []
    for module, targets in import_graph().items():
        if module == "reactgraph":  # the package's face names the public classes of every layer
            continue
        for target in targets:
            if target == "reactgraph":
                upward.append(f"{module} -> reactgraph (the package's face: import from the defining module)")
            elif room(module) != room(target) and layer_of(room(target)) <= layer_of(room(module)):
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_room_imports_another_rooms_private_parts():
    """A room's ``_module``, ``_package`` and ``_name`` are its own: the others import its public surface."""
    assert private_reaches(modules()) == []


def test_the_check_finds_a_private_part(tmp_path):
    """The check above can fail: a private module, a private package and a private name, reached from another room;
    the same room may reach them, and a dunder is not private."""
    assert private_part("reactgraph.graph.nodes._think", None) == "reactgraph.graph.nodes._think"
    assert private_part("reactgraph.agent._driving", "Drive") == "reactgraph.agent._driving"
    assert private_part("reactgraph.persistence.reading", "_latest") == "reactgraph.persistence.reading._latest"
    assert private_part("reactgraph.graph.nodes", "make_think") is None
    assert private_part("reactgraph.graph", "__all__") is None
    graph = {"reactgraph.commands.live": "from reactgraph.graph.nodes._act import outcome_of\n",
             "reactgraph.graph.nodes": "from reactgraph.graph.nodes._act import make_act\n"}
    found = {}
    for name, source in graph.items():
        path = tmp_path / f"{name}.py"  # stands in for the module's file
        path.write_text(source)
        found[name] = (path, name == "reactgraph.graph.nodes")
    (empty := tmp_path / "act.py").write_text("")
    found["reactgraph.graph.nodes._act"] = (empty, False)
    assert private_reaches(found) == [
        "reactgraph.commands.live imports reactgraph.graph.nodes._act, private to the graph room: import what "
        "reactgraph.graph makes public instead (docs/ARCHITECTURE.md, 'Private parts')"
    ]


def test_the_check_finds_a_circle_and_an_upward_import():
    """The checks above can fail: a made-up graph with a circle and an import up the layers."""
    graph = {"reactgraph.tools.a": {"reactgraph.tools.b"}, "reactgraph.tools.b": {"reactgraph.tools.a"}, "reactgraph.errors": set()}
    assert circles(graph) == [["reactgraph.tools.a", "reactgraph.tools.b"]]
    assert layer_of(room("reactgraph.errors")) > layer_of(room("reactgraph.graph.stops"))  # errors -> graph would be up
