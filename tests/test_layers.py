"""The dependency direction of the architecture, checked on the source.

`cli -> canon, workspace`; the libraries never import typer, rich or pylon.cli; canon imports
pygit2 only in its git-aware module; no module passes the size limit; the libraries have no import
cycles, not even behind imports inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pylon"
LIBRARY_FILES = sorted([*PACKAGE.joinpath("canon").rglob("*.py"), *PACKAGE.joinpath("workspace").rglob("*.py")])


def imported(path: Path) -> set[str]:
    """Every module `path` imports anywhere in its source (in functions and under TYPE_CHECKING
    too). `from a import b` yields `a` and `a.b`: b may be a submodule."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_libraries_do_not_import_the_cli_layer(path: Path) -> None:
    bad = {n for n in imported(path) if n.split(".")[0] in ("typer", "rich", "click") or n.startswith("pylon.cli")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted(PACKAGE.joinpath("canon").rglob("*.py")), ids=lambda p: p.name)
def test_canon_imports_pygit2_only_in_its_git_module(path: Path) -> None:
    if path.name.startswith("git"):
        return
    assert not {n for n in imported(path) if n.split(".")[0] == "pygit2"}


def test_modules_stay_small() -> None:
    big = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 500}
    assert not big, f"split these modules: {big}"


def test_no_generic_top_level_packages_are_installed() -> None:
    # Only `pylon` may be a top-level import package (generic names shadow other projects).
    text = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["pylon"]' in text


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _import_graph(files: list[Path]) -> dict[str, set[str]]:
    """module -> the library modules it imports (a cycle hidden behind a late import is still a cycle)."""
    modules = {_module_name(p): p for p in files}
    return {name: {t for t in imported(path) if t in modules and t != name} for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_sees_late_imports() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_libraries_have_no_import_cycles() -> None:
    assert _cycles(_import_graph(LIBRARY_FILES)) == []
