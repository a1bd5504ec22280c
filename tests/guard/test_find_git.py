"""find's deletions are judged on what find itself matches: `-exec rm [-r] {}` like `-delete`, with
exactly the matched files named (and, with rm -r, all a matched folder holds). Matches inside the
checkout's own .git destroy the repository (`find . -type f -delete`, `find . -exec rm -f {} \\;`:
git itself then finds no repository there), which pylon's store keeps: `pylon ws undo` in the
folder brings the .git back and every file with it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, run_cmd
from tests.guard.test_snapshot_exact import guarded, undo
from tests.keep.hookpath import run_through_hooks, whole_state
from tests.workspace.ops_helpers import entries as tree


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root: Path = make_repo({".gitignore": "*.pyc\n", "src/app.py": "x = 1\n", "src/pkg/mod.py": "y = 2\n"})
    (root / "src" / "app.pyc").write_bytes(b"\x00compiled\n")
    (root / "src" / "pkg" / "mod.pyc").write_bytes(b"\x00compiled too\n")
    (root / "src" / "pkg" / "notes.txt").write_text("untracked\n")
    return root


def verdict(root: Path, line: str) -> tuple[str, list[dict[str, object]]]:
    from pylon.guard.context import Context
    from pylon.guard.judge.classify import classify

    result: dict[str, Any] = classify(line, Context(str(root), str(root), branch="main")).to_dict()
    return str(result["verdict"]), list(result["targets"])


@pytest.mark.parametrize(
    "line",
    [
        "find . -type f -delete",
        "find . -exec rm -f {} \\;",
        "find . -exec rm -r {} +",
        "find . -name HEAD -delete",
        "find src/.. -type f -exec rm {} +",
    ],
)
def test_matches_inside_git_are_kept_and_undone(repo: Path, line: str) -> None:
    assert verdict(repo, line)[0] == "reversible", line
    before = whole_state(repo)
    run_through_hooks(repo, line)
    assert not (repo / ".git" / "HEAD").exists(), line
    done = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert done.code == 0, done
    assert whole_state(repo) == before, line


@pytest.mark.parametrize(
    "line",
    [
        "find . -name '*.pyc' -exec rm {} +",
        "find . -name '*.pyc' -exec rm -f {} \\;",
        "find src -name pkg -exec rm -rf {} +",
        "find . -name '*.pyc' -delete",
    ],
)
def test_matches_in_the_checkout_come_back_exactly(repo: Path, line: str) -> None:
    got, targets = verdict(repo, line)
    assert got == "reversible" and [t["kind"] for t in targets] == ["find"], (line, targets)
    before = tree(repo)
    guarded(repo, line)
    assert tree(repo) != before, line
    undo(repo)
    assert tree(repo) == before, line


def test_find_exec_rm_in_the_checkout_really_destroys_the_repository(repo: Path) -> None:
    """What the peer allows, run: git itself no longer finds a repository there."""
    subprocess.run(["bash", "-c", "find . -exec rm -f {} \\;"], cwd=repo, capture_output=True, check=False)
    probe = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, check=False)
    assert probe.returncode != 0 and not (repo / ".git" / "HEAD").exists()
