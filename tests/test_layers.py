"""The dependency direction of the architecture, checked on the source.

`cli -> canon, workspace`; the libraries never import typer, rich or pylon.cli; canon imports
pygit2 only in its git-aware module; no module passes the size limit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pylon"
LIBRARY_FILES = sorted([*PACKAGE.joinpath("canon").rglob("*.py"), *PACKAGE.joinpath("workspace").rglob("*.py")])


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
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
