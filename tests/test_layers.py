"""The dependency direction of the architecture, checked on the source.

`cli -> canon, workspace`; the libraries never import typer, rich or pylon.cli; canon imports
pygit2 only in its git-aware module; no module passes the size limit; no import cycles between
modules, nor between packages (folders with __init__.py), not even behind imports inside
functions. The rooms: workspace/ops never imports workspace/worktrees, workspace/merge neither
room, cli/<room> no other cli room; workspace/tracking, canon/agent, canon/views and
guard/commands are reached from above only; no folder holds more than 20 modules.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

# One worker parses the sources once for all of this module's tests (scripts/test: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("layers")

PACKAGE = Path(__file__).resolve().parent.parent / "pylon"
LIBRARY_FILES = sorted(
    [
        *PACKAGE.joinpath("canon").rglob("*.py"),
        *PACKAGE.joinpath("workspace").rglob("*.py"),
        *PACKAGE.joinpath("agents").rglob("*.py"),
        *PACKAGE.joinpath("hooks").rglob("*.py"),
        *PACKAGE.joinpath("sessions").rglob("*.py"),
        *PACKAGE.joinpath("doctor").rglob("*.py"),
    ]
)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per test process (about 550 tests read the same files)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(path: Path) -> set[str]:
    """Every module `path` imports anywhere in its source (in functions and under TYPE_CHECKING
    too). `from a import b` yields `a` and `a.b`: b may be a submodule."""
    return set(_imported(path))


@functools.cache
def _imported(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(names)


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_libraries_do_not_import_the_cli_layer(path: Path) -> None:
    bad = {n for n in imported(path) if n.split(".")[0] in ("typer", "rich", "click") or n.startswith("pylon.cli")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted(PACKAGE.joinpath("canon").rglob("*.py")), ids=lambda p: p.name)
def test_canon_imports_pygit2_only_in_its_git_module(path: Path) -> None:
    if path.name.startswith("git"):
        return
    assert not {n for n in imported(path) if n.split(".")[0] == "pygit2"}


CANON_GIT = PACKAGE / "canon" / "git"


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.joinpath("canon").rglob("*.py")) if CANON_GIT not in p.parents],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_the_canon_core_never_imports_its_git_aware_part(path: Path) -> None:
    # `canon read`/`lint` outside git must not depend on git; only pylon.cli reaches pylon.canon.git.
    assert not {n for n in imported(path) if n == "pylon.canon.git" or n.startswith("pylon.canon.git.")}


@pytest.mark.parametrize("path", sorted(CANON_GIT.glob("*.py")), ids=lambda p: p.name)
def test_canon_git_runs_git_only_through_the_one_runner(path: Path) -> None:
    # The workspace's runner (scrubbed env, posix_spawn) is the only piece of pylon.workspace it uses.
    used = {n for n in imported(path) if n.startswith("pylon.workspace")}
    assert used <= {
        "pylon.workspace.git",
        "pylon.workspace.git.run",
        "pylon.workspace.git.run_full",
        "pylon.workspace.git.start",
        "pylon.workspace.git.finish_run",
    }, used  # start: runs beside another
    assert "subprocess" not in imported(path)


MODULE_MAX = 300  # logical lines: the biggest module had 288 when the limit moved from 400 physical lines


def logical_lines(path: Path) -> int:
    """Statements as Python's tokenizer ends them (NEWLINE tokens): a call the formatter spreads over
    ten physical lines is one, so the limit measures the code, not `ruff format`'s layout."""
    import tokenize

    with path.open("rb") as fh:
        return sum(1 for token in tokenize.tokenize(fh.readline) if token.type == tokenize.NEWLINE)


def test_modules_stay_small() -> None:
    big = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := logical_lines(p)) > MODULE_MAX}
    assert not big, f"split these modules (logical lines, at most {MODULE_MAX}): {big}"


def test_logical_lines_ignore_layout(tmp_path: Path) -> None:
    one = tmp_path / "one.py"
    one.write_text("x = f(1, 2)\nif x:\n    y = 3\n")
    spread = tmp_path / "spread.py"
    spread.write_text("x = f(\n    1,\n    2,\n)\n# a comment\n\nif x:\n    y = 3\n")
    assert logical_lines(one) == logical_lines(spread) == 3


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """pylon module -> the pylon modules it imports anywhere (function-level imports included); built
    once per test process (two tests read it; neither changes it)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(parsed(path)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            graph[name] |= {t for t in targets if t in files and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_inside_pylon() -> None:
    # A package importing its own submodules (pylon.canon.lint -> pylon.canon.lint.engine) is not a
    # cycle unless a submodule imports the package back.
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def package_of(module: str) -> str:
    """The package a module belongs to: the folder holding it (a package's __init__ is the package)."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    return module if path.joinpath("__init__.py").is_file() else module.rpartition(".")[0]


# `python -m pylon` runs the CLI: an entry point nothing imports, so it is in no cycle of packages.
ENTRY_POINTS = {"pylon.__main__"}
# Package cycles known and owned elsewhere, each with the move that breaks it. The test fails on any
# other cycle, and on one of these once it is gone (so the entry is removed with the fix).
KNOWN_PACKAGE_CYCLES: dict[frozenset[str], str] = {}


def package_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    """package -> the packages its modules import (anywhere: in functions and under TYPE_CHECKING
    too), and for each edge the module imports that make it."""
    graph: dict[str, set[str]] = {}
    why: dict[tuple[str, str], list[str]] = {}
    for module, targets in import_graph().items():
        here = package_of(module)
        graph.setdefault(here, set())
        if module in ENTRY_POINTS:
            continue
        for target in targets:
            there = package_of(target)
            if there != here:
                graph[here].add(there)
                graph.setdefault(there, set())
                why.setdefault((here, there), []).append(f"{module} -> {target}")
    return graph, why


def test_no_import_cycles_between_packages() -> None:
    # Every folder with an __init__.py is a package; a package importing another that imports it
    # back (directly or through others) is a cycle, even when no two modules form one.
    graph, why = package_graph()
    assert {
        "pylon",
        "pylon.cli",
        "pylon.mcp",
        "pylon.canon.lint",
        "pylon.guard.commands",
        "pylon.workspace.ops",
        "pylon.workspace.worktrees",
    } <= set(graph)
    found = {frozenset(c) for c in cycles(graph)}
    new = [sorted(c) for c in found if c not in KNOWN_PACKAGE_CYCLES]
    edges = ["; ".join(f"{a} -> {b} ({why[a, b][0]})" for a in c for b in c if (a, b) in why) for c in new]
    assert not new, "package cycles: " + " | ".join(edges)
    gone = [sorted(c) for c in KNOWN_PACKAGE_CYCLES if c not in found]
    assert not gone, f"these cycles are broken now: remove them from KNOWN_PACKAGE_CYCLES: {gone}"


def test_the_package_cycle_finder_sees_a_cycle_through_a_parent() -> None:
    assert package_of("pylon.canon.lint.engine") == "pylon.canon.lint"
    assert package_of("pylon.canon.lint") == "pylon.canon.lint"
    assert package_of("pylon.errors") == "pylon"
    # canon/x.py -> canon/lint/y.py and canon/lint/z.py -> canon/w.py: no module cycle, a package one
    assert cycles({"pylon.canon": {"pylon.canon.lint"}, "pylon.canon.lint": {"pylon.canon"}}) == [
        ["pylon.canon", "pylon.canon.lint"]
    ]


def test_no_generic_top_level_packages_are_installed() -> None:
    # Only `pylon` may be a top-level import package (generic names shadow other projects).
    text = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["pylon"]' in text


IMPORT_NAMES = {
    "typer": "typer",
    "python-frontmatter": "frontmatter",
    "PyYAML": "yaml",
    "rich": "rich",
    "watchdog": "watchdog",
    "pygit2": "pygit2",
    "tree-sitter": "tree_sitter",
    "tree-sitter-bash": "tree_sitter_bash",
    "sqlglot": "sqlglot",
    "mcp": "mcp",
}


def test_every_dependency_is_imported_by_pylon() -> None:
    # A dependency no command imports belongs in an optional extra (pyproject.toml).
    import tomllib

    meta = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip() for d in meta["dependencies"]]
    used = {n.split(".")[0] for p in PACKAGE.rglob("*.py") for n in imported(p)}
    for name in names:
        assert name in IMPORT_NAMES, f"say which module {name} provides"
        assert IMPORT_NAMES[name] in used, f"no module of pylon imports {name}: move it to an optional extra"


# -- the rooms (issue 19 item 8; docs/architecture.md "Rooms") -----------------------------------

WORKSPACE = PACKAGE / "workspace"
MAX_MODULES = 20  # "about 20" per folder (issue 19): every folder, canon/ and guard/ included


def _under(names: set[str], package: str) -> set[str]:
    return {n for n in names if n == package or n.startswith(package + ".")}


@pytest.mark.parametrize("path", sorted(WORKSPACE.joinpath("ops").glob("*.py")), ids=lambda p: p.name)
def test_ops_never_imports_worktrees(path: Path) -> None:
    # the op log, undo and restore work on any checkout; worktrees/ builds on them, never the reverse
    # (an op kind of worktrees/, such as rm, is reached through the module its record names)
    assert not _under(imported(path), "pylon.workspace.worktrees")


@pytest.mark.parametrize("path", sorted(WORKSPACE.joinpath("merge").glob("*.py")), ids=lambda p: p.name)
def test_merge_is_shared_and_imports_neither_room(path: Path) -> None:
    names = imported(path)
    assert not _under(names, "pylon.workspace.worktrees") and not _under(names, "pylon.workspace.ops")


def test_no_folder_holds_more_than_about_20_modules() -> None:
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    crowded = {
        str(f.relative_to(PACKAGE.parent)): n
        for f in folders
        if (n := len([p for p in f.glob("*.py") if p.name != "__init__.py"])) > MAX_MODULES
    }
    assert not crowded, f"give these folders rooms (subpackages by responsibility): {crowded}"


# A room above its library's core: only these packages may import it (anywhere, lazily too). The
# core of each library never reaches up into them, so a room can change without touching the core.
ABOVE = ("pylon.cli", "pylon.serve", "pylon.mcp", "pylon.hooks")
REACHED_FROM = {
    "pylon.workspace.tracking": ABOVE,  # one module per command on a checkout's changes
    "pylon.canon.agent": (*ABOVE, "pylon.canon.views"),  # `canon status` shows a session's spending
    "pylon.canon.views": ABOVE,  # map, search, status, graph
    # the families, reached through rules.py's dispatch; reading.py peels wrappers as the judge does
    "pylon.guard.commands": ("pylon.guard.judge.rules", "pylon.guard.judge.reading"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_rooms_above_a_core_are_reached_from_above_only(path: Path) -> None:
    me = _module_name(path)
    for room, allowed in REACHED_FROM.items():
        if _under({me}, room) or any(_under({me}, pkg) for pkg in allowed):
            continue
        assert not _under(imported(path), room), f"{me} reaches up into {room} (only {allowed} may)"


CLI = PACKAGE / "cli"
CLI_ROOMS = sorted(p.parent.name for p in CLI.glob("*/__init__.py"))


@pytest.mark.parametrize(
    "path",
    sorted(p for room in CLI_ROOMS for p in CLI.joinpath(room).rglob("*.py")),
    ids=lambda p: str(p.relative_to(CLI)),
)
def test_cli_rooms_use_libraries_and_shared_cli_helpers_only(path: Path) -> None:
    # cli/canon, cli/ws, cli/guard: handlers call libraries and the shared helpers at cli/'s top level
    # (output, failure, options, ...), never another room's internals
    room = path.relative_to(CLI).parts[0]
    shared = {f"pylon.cli.{p.stem}" for p in CLI.glob("*.py")} | {"pylon.cli"}
    foreign = {
        n for n in _under(imported(path), "pylon.cli") if n not in shared and n.rpartition(".")[0] not in shared
    } - _under(imported(path), f"pylon.cli.{room}")
    assert not foreign, f"{path.relative_to(CLI)} reaches into another cli room: {sorted(foreign)}"


def test_the_rooms_exist() -> None:
    # the tests above would pass vacuously on a tree without them
    assert {"ops", "worktrees", "merge"} <= {p.parent.name for p in WORKSPACE.glob("*/__init__.py")}
    assert {"canon", "ws", "guard"} <= set(CLI_ROOMS)
    assert {"ops", "worktrees", "merge", "tracking"} <= {p.parent.name for p in WORKSPACE.glob("*/__init__.py")}
    assert {"agent", "views", "lint", "git"} <= {p.parent.name for p in PACKAGE.joinpath("canon").glob("*/__init__.py")}
    assert (PACKAGE / "guard" / "commands" / "__init__.py").is_file()
    for room in REACHED_FROM:
        assert PACKAGE.parent.joinpath(*room.split("."), "__init__.py").is_file(), room
