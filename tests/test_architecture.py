"""The package's layers only look down, and no module imports itself back.

The layers are those of ``ARCHITECTURE.md``. Every ``import`` counts: module level, inside a
function, and under ``TYPE_CHECKING`` (a type a layer names is a layer it depends on).
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections import defaultdict

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "paimon_lens"

#: Module (or package) -> layer; a module's layer is that of its longest listed prefix. Within the
#: services layer the packages are ordered too: the writer below the inventories, pruning above
#: them, the advisor on top.
LAYERS: dict[str, int] = {
    "paimon_lens.errors": 0,
    "paimon_lens.types": 0,
    "paimon_lens.values": 0,
    "paimon_lens.units": 0,
    "paimon_lens.progress": 0,
    "paimon_lens.rendering": 0,
    "paimon_lens._version": 0,
    "paimon_lens.io": 10,
    "paimon_lens.metadata": 20,
    "paimon_lens.formats": 30,
    "paimon_lens.predicate": 40,
    "paimon_lens.workload": 40,
    "paimon_lens.engines": 50,
    "paimon_lens.writer": 60,
    "paimon_lens.synth": 61,
    "paimon_lens.inventory": 62,
    "paimon_lens.pruning": 63,
    "paimon_lens.advisor": 64,
    "paimon_lens.history": 64,
    "paimon_lens.distributed": 65,
    "paimon_lens.presentation": 70,
    "paimon_lens.table": 70,
    "paimon_lens.catalog": 70,
    "paimon_lens": 70,
    "paimon_lens.__main__": 70,
}

def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts)
        out[name.removesuffix(".__init__")] = path
    return out


MODULES = _modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The package modules an import statement loads (``from pkg import name`` loads
    ``pkg.name`` when that is a module, else ``pkg``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            prefix = ".".join(base) + (f".{node.module}" if node.module else "")
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]
    out = []
    for name in names:
        while name not in MODULES and "." in name:
            name = name.rpartition(".")[0]
        if name in MODULES and name != module:
            out.append(name)
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module].update(_targets(module, node))
    return graph


def layer(module: str) -> int:
    """The layer of a module: that of its longest prefix in :data:`LAYERS`."""
    name = module
    while name not in LAYERS:
        if "." not in name:
            raise KeyError(f"{module} has no layer in LAYERS: add it (and to ARCHITECTURE.md)")
        name = name.rpartition(".")[0]
    return LAYERS[name]


def _short(module: str) -> str:
    return module.removeprefix("paimon_lens").removeprefix(".")


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    for root in sorted(MODULES):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer(module)


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports (importer, imported) whose target sits in a higher layer."""
    return sorted((_short(a), _short(b)) for a, targets in graph.items() for b in targets if layer(b) > layer(a))


def test_no_upward_import() -> None:
    upward = upward_imports(_graph())
    assert not upward, "imports that climb a layer (ARCHITECTURE.md): " + ", ".join(f"{a} -> {b}" for a, b in upward)


def test_no_import_cycle() -> None:
    cycles = [sorted(_short(m) for m in c) for c in _cycles(_graph())]
    assert not cycles, f"import cycles: {cycles}"


def test_layer_check_sees_an_upward_import() -> None:
    graph = {"paimon_lens.formats.bloom": {"paimon_lens.table", "paimon_lens.io.byte_reader"},
             "paimon_lens.pruning.scan": {"paimon_lens.metadata.snapshot_reader"}}
    assert upward_imports(graph) == [("formats.bloom", "table")]


@pytest.mark.parametrize(("source", "expected"), [
    ("from .b import c\n", {"paimon_lens.x.b"}),
    ("from . import b\n", {"paimon_lens.x.b"}),
    ("from ..errors import E\n", {"paimon_lens.errors"}),
    ("import paimon_lens.x.b\n", {"paimon_lens.x.b"}),
    ("if TYPE_CHECKING:\n    from .b import c\n", {"paimon_lens.x.b"}),
    ("def f():\n    from .b import c\n", {"paimon_lens.x.b"}),
])
def test_imports_are_found_wherever_they_are(source: str, expected: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fake = {"paimon_lens.x.a": pathlib.Path("a.py"), "paimon_lens.x.b": pathlib.Path("b.py"),
            "paimon_lens.x": pathlib.Path("__init__.py"), "paimon_lens.errors": pathlib.Path("errors.py")}
    monkeypatch.setitem(globals(), "MODULES", fake)
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(_targets("paimon_lens.x.a", node))
    assert found == expected


def test_cycle_finder_finds_a_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(globals(), "MODULES", {"a": PACKAGE, "b": PACKAGE, "c": PACKAGE})
    assert _cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == [{"a", "b"}]


#: The modules the package root may hold besides its packages: the foundation every layer shares
#: (at most six modules) and the package's entry points. A new module goes into the package of its layer.
ROOT_MODULES = {"__init__", "__main__", "_version", "errors", "types", "values", "units", "progress", "rendering"}


def test_the_package_root_holds_only_the_foundation() -> None:
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose <= ROOT_MODULES, f"modules at the package root outside the foundation: {sorted(loose - ROOT_MODULES)}"


def test_architecture_md_names_every_package_and_root_module() -> None:
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    modules = {f"{p.name}" for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    missing = sorted(name for name in packages | modules if name not in text)
    assert not missing, f"ARCHITECTURE.md does not say where these are: {missing}"
    stale = sorted(set(re.findall(r"`([a-z_]+\.py)`", text)) - {p.name for p in PACKAGE.rglob("*.py")})
    assert not stale, f"ARCHITECTURE.md names modules that do not exist: {stale}"


def test_every_layer_in_the_table_exists() -> None:
    assert not [m for m in LAYERS if m not in MODULES], "LAYERS names modules that do not exist"


def test_compound_predicates_are_walked_by_the_visitor() -> None:
    """No module compares a compound's function to a string: AND/OR trees are folded by
    ``predicate.visitor`` (the model itself and the parsers building trees aside)."""
    allowed = {"paimon_lens.predicate.model", "paimon_lens.predicate.fast", "paimon_lens.predicate.sqlglot_parser",
               "paimon_lens.predicate.builder"}
    found = []
    for module, path in MODULES.items():
        if module in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Constant) and s.value in ("And", "Or") for s in sides):
                    found.append(f"{_short(module)}:{node.lineno}")
    assert not found, f"compound functions compared as strings (use predicate.visitor): {found}"


def test_every_registered_view_resolves_to_a_presentation_function() -> None:
    """The services' answers are shown by presentation functions registered by name: each names a
    class that exists and a function of the presentation layer that exists."""
    import importlib

    import paimon_lens  # noqa: F401  (registers the views)
    from paimon_lens.rendering import registered_views

    views = registered_views()
    assert views
    for (class_path, view), target in views.items():
        module_name, _, cls_name = class_path.rpartition(".")
        assert hasattr(importlib.import_module(module_name), cls_name), f"{class_path} does not exist"
        module, _, function = target.partition(":")
        assert layer(module) == LAYERS["paimon_lens.presentation"], f"{class_path} {view}: {module} is no presentation"
        assert callable(getattr(importlib.import_module(module), function, None)), f"{target} does not exist"


def test_services_build_no_frames() -> None:
    """Below the presentation no module builds a frame or imports pandas' display: services return
    records, ``presentation/`` turns them into frames."""
    found = []
    for module, path in MODULES.items():
        if layer(module) >= LAYERS["paimon_lens.presentation"]:
            continue
        text = path.read_text(encoding="utf-8")
        for word in ("LensFrame", "pd.DataFrame(", "frame_html"):
            if word in text:
                found.append(f"{_short(module)}: {word}")
    assert not found, f"frames built below the presentation: {found}"
