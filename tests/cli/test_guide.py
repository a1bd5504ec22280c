"""`pylon guide`: short enough to paste into an agent's prompt, and its Python advice for worktrees is
right, checked against a real editable install (setuptools' own, offline) of a `src/` project and of a
flat one. The guide's loop runs verbatim in tests/cli/test_doc_runs.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_cmd, write_files

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "pylon" / "cli" / "guide"
BUDGET = 6000  # bytes of `pylon guide`: an agent reads all of it in one prompt (issue 31)


def test_the_whole_guide_fits_the_budget() -> None:
    res = run_cmd("pylon", "guide")
    assert res.code == 0
    assert len(res.out.encode("utf-8")) <= BUDGET, len(res.out.encode("utf-8"))


def committed_project(tmp_path: Path, layout: str) -> Path:
    """The main checkout of a one-package project in a `src/` or a flat layout."""
    main = tmp_path / layout / "main"
    package = "src/pkg" if layout == "src" else "pkg"
    write_files(
        main,
        {
            f"{package}/__init__.py": 'WHERE = "main"\n',
            "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
            '[project]\nname = "pkg"\nversion = "0.1"\n'
            + ('[tool.setuptools]\npackages = ["pkg"]\n' if layout == "flat" else ""),
        },
    )
    git(main, "init", "-q", "-b", "main")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "initial")
    return main


def editable_project(tmp_path: Path, layout: str) -> tuple[Path, Path]:
    """A project installed editable (setuptools, no network) into a prefix of its own; its main checkout
    and the prefix's site-packages."""
    main = committed_project(tmp_path, layout)
    prefix = tmp_path / layout / "prefix"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "--prefix",
            str(prefix),
            "-e",
            str(main),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (site,) = prefix.glob("lib/python3*/site-packages")
    assert list(site.glob("*.pth")), "the editable install wrote no .pth"
    return main, site


def imported(worktree: Path, site: Path, pythonpath: str) -> str:
    """Where `import pkg` comes from for a program started in `worktree`/tests (as a test runner's
    script is: the current folder is not on sys.path), with the install's site-packages read as
    Python's site module reads an environment's (its .pth files after PYTHONPATH)."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    (worktree / "tests").mkdir(exist_ok=True)
    code = f"import site; site.addsitedir({str(site)!r}); import pkg; print(pkg.WHERE)"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=worktree / "tests", env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def check_the_advice(main: Path, site: Path, layout: str) -> None:
    """In a worktree that `pylon ws new` made, the guide's PYTHONPATH imports the worktree's package
    where the install alone imports the main checkout's."""
    advice = "{wt}/src" if layout == "src" else "{wt}"
    res = run_cmd("pylon", "ws", "new", "agent-1", cwd=main)
    assert res.code == 0, res
    worktree = Path(res.out.strip().splitlines()[-1])
    package = worktree / ("src/pkg" if layout == "src" else "pkg")
    (package / "__init__.py").write_text('WHERE = "worktree"\n', encoding="utf-8")
    assert imported(worktree, site, "") == "main"  # the trap: the main checkout's code
    assert imported(worktree, site, advice.format(wt=worktree)) == "worktree", layout
    if layout == "src":  # the old advice, PYTHONPATH=$PWD, still loads the main checkout's code
        assert imported(worktree, site, str(worktree)) == "main"


def test_the_guide_gives_the_advice_for_both_layouts() -> None:
    text = (GUIDE / "workspace.md").read_text(encoding="utf-8")
    assert "`PYTHONPATH=$PWD/src` for a `src/` layout" in text and "(`$PWD`\n  for a flat one)" in text


@pytest.mark.parametrize("layout", ["src", "flat"])
def test_the_worktree_advice_imports_the_worktrees_code_past_a_path_install(tmp_path: Path, layout: str) -> None:
    # The fast sibling of the test below: the install is a .pth naming the main checkout's import
    # root, which is what an editable install puts on sys.path for a `src/` layout.
    main = committed_project(tmp_path, layout)
    site = tmp_path / layout / "site"
    site.mkdir()
    (site / "pkg.pth").write_text(f"{main / 'src' if layout == 'src' else main}\n", encoding="utf-8")
    check_the_advice(main, site, layout)


@pytest.mark.slow  # two real editable installs (pip and setuptools: about 3 s of CPU)
def test_the_worktree_advice_imports_the_worktrees_code(tmp_path: Path) -> None:
    for layout in ("src", "flat"):
        main, site = editable_project(tmp_path, layout)
        check_the_advice(main, site, layout)
