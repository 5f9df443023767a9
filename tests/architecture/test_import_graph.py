"""The import graph of the source tree: one direction, no cycles, libraries never import the CLI.

Imports run ``axhls -> sim -> hls`` and ``axhls -> approx_units``; every
package may use ``artefacts``, which imports nothing of the project's.  The
graph is read from the source (every ``import`` statement, at module level or
inside a function), so an import hidden in a function counts as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

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

#: Old locations of command-line code, kept only so that old imports still work.  Each
#: re-exports its new module and nothing in the project imports it.
COMPATIBILITY_SHIMS = {"hls.cli", "hls.commands", "hls.check", "approx_units.cli", "hls.__main__"}


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


def _compatibility_getattr_lines(tree: ast.Module) -> set[int]:
    """Lines of a module-level ``__getattr__``: lazy re-exports of moved names."""
    lines = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def import_edges() -> list[tuple[str, str, int, bool]]:
    """``(importer, imported module, line, inside a compatibility __getattr__)`` for every project import."""
    modules = _modules()
    edges = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        lazy = _compatibility_getattr_lines(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node)
                # `from pkg import mod` imports pkg.mod when that is a module.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges.append((module, target, node.lineno, node.lineno in lazy))
    return edges


def _package(module: str) -> str:
    return module.split(".")[0]


def test_the_source_tree_is_found():
    modules = _modules()
    assert {"hls.kernel", "sim.kernel", "approx_units.unit", "axhls.cli", "artefacts"} <= set(modules)


def test_packages_import_only_downwards():
    wrong = [f"{importer} imports {imported} (line {line})"
             for importer, imported, line, lazy in import_edges()
             if _package(imported) != _package(importer)
             and _package(imported) not in ALLOWED[_package(importer)]
             and importer not in COMPATIBILITY_SHIMS and not lazy]
    assert not wrong, "imports against the direction axhls -> sim -> hls -> approx_units:\n" + "\n".join(wrong)


def test_nothing_imports_a_compatibility_shim():
    users = [f"{importer} imports {imported} (line {line})" for importer, imported, line, _ in import_edges()
             if imported in COMPATIBILITY_SHIMS and importer not in COMPATIBILITY_SHIMS]
    assert not users, "\n".join(users)


def test_no_import_cycles_between_modules():
    graph = nx.DiGraph()
    graph.add_nodes_from(_modules())
    for importer, imported, _, lazy in import_edges():
        # A package's __init__ re-exporting its own modules is not a cycle of ideas; a
        # compatibility __getattr__ runs only when an old name is looked up.
        if lazy or imported == importer.rpartition(".")[0] or importer == imported.rpartition(".")[0]:
            continue
        graph.add_edge(importer, imported)
    cycles = sorted(sorted(component) for component in nx.strongly_connected_components(graph)
                    if len(component) > 1)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("shim", sorted(COMPATIBILITY_SHIMS - {"hls.__main__"}))
def test_shims_still_export_the_old_names(shim):
    import importlib
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(shim)
    assert module.__all__ and all(hasattr(module, name) for name in module.__all__)


def test_imports_inside_functions_say_why():
    """An import inside a function hides the module's dependencies, so it is kept only for an
    optional or heavy dependency (or a compatibility lookup), with a comment saying which: on its
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
