"""Edges of a move: a file where a folder was (and back), ignored files inside folders a move
empties, a write over an ignored file refused before anything changes, a detached main checkout."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, snapshot
from tests.workspace.wt_helpers import new


@pytest.fixture
def base(make_repo: MakeRepo) -> Path:
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    return repo


def test_file_folder_swaps_both_ways(base: Path) -> None:
    wt = Path(str(new(base, "a")["path"]))
    shutil.rmtree(wt / "docs")
    (wt / "docs").write_text("docs is a file here\n")  # a folder became a file
    (wt / "bin/tool.sh").unlink()
    (wt / "bin/tool.sh").mkdir()
    (wt / "bin/tool.sh/inner.txt").write_text("a file became a folder\n")
    os.symlink("src", wt / "src-link")  # a symlink to a folder
    before, wt_before = snapshot(base), snapshot(wt)
    assert pylon("ws", "move", "a", cwd=base).code == 0
    assert (base / "docs").read_text() == "docs is a file here\n"
    assert (base / "bin/tool.sh/inner.txt").exists() and os.readlink(base / "src-link") == "src"
    assert pylon("ws", "move", "a", "--back", cwd=base).code == 0
    assert diff_snapshots(snapshot(base), before) == []
    assert diff_snapshots(snapshot(wt), wt_before) == []


def test_ignored_files_in_a_folder_the_move_empties_stay(base: Path) -> None:
    new(base, "a")
    (base / "scratch").mkdir()
    (base / "scratch/notes.txt").write_text("untracked: parked by the move\n")
    (base / "scratch/run.log").write_text("ignored: stays where it is\n")
    before = snapshot(base)
    assert pylon("ws", "move", "a", cwd=base).code == 0
    assert not (base / "scratch/notes.txt").exists()
    assert (base / "scratch/run.log").read_text() == "ignored: stays where it is\n"
    assert pylon("ws", "undo", cwd=base).code == 0
    assert diff_snapshots(snapshot(base), before) == []


def test_a_move_over_an_ignored_file_is_refused_before_the_intent(base: Path) -> None:
    wt = Path(str(new(base, "a")["path"]))
    (wt / "report.log").write_text("in the worktree this is ignored too\n")
    (wt / "out").write_text("the worktree has a file named out\n")
    (base / "out").mkdir()
    (base / "out/cache.log").write_text("ignored, inside the folder the move would replace\n")
    before = snapshot(base)
    refused = pylon("ws", "move", "a", "--json", cwd=base)
    assert refused.code == 1 and refused.json()["error"]["code"] == "restore-blocked", refused
    assert refused.json()["error"]["paths"] == ["out/cache.log"]
    assert snapshot(base) == before
    assert pylon("ws", "undo", "--list", "--json", cwd=base).json()["ops"] == []


def test_a_detached_main_checkout_comes_back_detached(base: Path) -> None:
    new(base, "a")
    git(base, "checkout", "-q", "--detach", "HEAD")
    (base / "README.md").write_text("detached and dirty\n")
    before = snapshot(base)
    assert pylon("ws", "move", "a", cwd=base).code == 0
    assert pylon("ws", "move", "a", "--back", cwd=base).code == 0
    assert diff_snapshots(snapshot(base), before) == []
    assert git(base, "symbolic-ref", "-q", "HEAD", check=False) == ""
