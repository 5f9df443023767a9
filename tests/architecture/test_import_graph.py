"""The import graph of the source tree: one direction, no cycles, libraries never import the CLI.

Imports run ``axhls -> sim -> hls`` and ``axhls -> approx_units``; every
package may use ``artefacts``, which imports nothing of the project's.  The
graph is read from the source (every ``import`` statement, at module level or
inside a function, and every ``importlib.import_module`` of a module named
literally), so an import hidden in a function or behind a name counts as well.
There are no exceptions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("artefacts", "approx_units", "hls", "sim", "axhls")

#: Which packages each package may import (besides itself).
ALLOWED = {
    "artefacts": set(),
    "approx_units": {"artefacts"},
    "hls": {"artefacts", "approx_units"},
    "sim": {"artefacts", "approx_units", "hls"},
    "axhls": {"artefacts", "approx_units", "hls", "sim"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[_module_name(path)] = path
    return modules


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports_by_name(node: ast.AST) -> bool:
    """``importlib.import_module("a.literal.name")`` (or ``import_module(...)``)."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return False
    function = node.func
    return (isinstance(function, ast.Name) and function.id == "import_module"
            or isinstance(function, ast.Attribute) and function.attr == "import_module")


def import_edges() -> list[tuple[str, str, int]]:
    """``(importer, imported module, line)`` for every project import."""
    modules = _modules()
    edges = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node)
                # `from pkg import mod` imports pkg.mod when that is a module.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            elif _imports_by_name(node):
                targets = [node.args[0].value]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges.append((module, target, node.lineno))
    return edges


def _package(module: str) -> str:
    return module.split(".")[0]


def test_the_source_tree_is_found():
    modules = _modules()
    assert {"hls.kernel", "sim.kernel", "approx_units.registry", "axhls.cli", "artefacts"} <= set(modules)


def test_packages_import_only_downwards():
    wrong = [f"{importer} imports {imported} (line {line})"
             for importer, imported, line in import_edges()
             if _package(imported) != _package(importer)
             and _package(imported) not in ALLOWED[_package(importer)]]
    assert not wrong, "imports against the direction axhls -> sim -> hls -> approx_units:\n" + "\n".join(wrong)


def test_no_import_cycles_between_modules():
    graph = nx.DiGraph()
    graph.add_nodes_from(_modules())
    for importer, imported, _ in import_edges():
        graph.add_edge(importer, imported)
    cycles = sorted(sorted(component) for component in nx.strongly_connected_components(graph)
                    if len(component) > 1)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_imports_inside_functions_say_why():
    """An import inside a function hides the module's dependencies, so it is kept only for an
    optional or heavy dependency, with a comment saying which: on its
    line, or on one of the four lines above it."""
    unexplained = []
    for module, path in _modules().items():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines), str(path))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    window = lines[max(function.lineno, node.lineno - 5):node.lineno]
                    if not any("#" in line for line in window):
                        unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not unexplained, "imports inside functions without a reason:\n" + "\n".join(sorted(set(unexplained)))
