"""`git fsck --full` stays clean after every kind of pylon op, the states it keeps and `ws gc`.

git knows the empty tree without storing it, so `git commit-tree` accepts it unwritten; the op
log's commits name it, and an fsck then reported `missing tree 4b825dc...` (exit 2) after the
first op. The oracle is git's own fsck, run after each command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import guarded, pylon


def fsck(repo: Path) -> None:
    proc = subprocess.run(["git", "fsck", "--full", "--no-progress"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "missing" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def ok(repo: Path | str, *args: str) -> dict[str, Any]:
    result = pylon("ws", *args, "--json", cwd=repo)
    assert result.code == 0, result
    return result.json()


def test_fsck_is_clean_after_every_kind_of_op(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n", "src/b.txt": "b\n", ".gitignore": "*.log\n"})
    fsck(repo)
    ok(repo, "baseline")
    fsck(repo)
    ok(repo, "baseline", "named")
    fsck(repo)
    for wid in ("s1", "s2", "s3", "s4"):
        ok(repo, "new", wid)
    fsck(repo)
    s1 = Path(str(ok(repo, "path", "s1")["path"]))
    (s1 / "a.txt").write_text("a from s1\n")
    ok(repo, "apply", "s1")
    fsck(repo)
    (repo / "src/b.txt").write_text("b from the checkout\n")
    ok(repo, "sync", "s2")
    fsck(repo)
    ok(repo, "undo")  # the sync
    fsck(repo)
    ok(repo, "redo")
    fsck(repo)
    ok(repo, "move", "s3")
    fsck(repo)
    ok(repo, "move", "s3", "--back")
    fsck(repo)
    ok(repo, "move", "s3")
    fsck(repo)
    ok(repo, "undo")
    fsck(repo)
    s4 = Path(str(ok(repo, "path", "s4")["path"]))
    (s4 / "new.txt").write_text("s4's own\n")
    ok(repo, "rm", "s4", "--force")
    fsck(repo)
    ok(repo, "undo")
    fsck(repo)
    (s4 / "new.txt").write_text("s4's own, again\n")
    ok(repo, "finish", "s4")  # a finish that changes the checkout
    fsck(repo)
    ok(repo, "finish", "s3")  # one that changes nothing here (s3 holds nothing new)
    fsck(repo)
    ok(repo, "restore", "named")
    fsck(repo)
    ok(repo, "restore", "op-1:before", "a.txt")
    fsck(repo)
    guarded(repo, "rm -rf src")
    fsck(repo)
    ok(repo, "undo")  # the guard's op
    fsck(repo)
    ok(repo, "gc", "--older-than", "0s")
    fsck(repo)
    ok(repo, "gc", "--older-than", "0s", "--all")
    fsck(repo)
    git(repo, "gc", "--prune=now", "-q")
    fsck(repo)
    ok(repo, "baseline")  # the empty tree packed by gc: still found
    ok(repo, "new", "s5")
    ok(repo, "rm", "s5")
    fsck(repo)


def test_fsck_is_clean_in_an_empty_checkout(make_repo: MakeRepo) -> None:
    """States of a checkout with no file at all are the empty tree itself."""
    repo = make_repo(files={"only.txt": "x\n"})
    os.unlink(repo / "only.txt")
    ok(repo, "baseline")
    (repo / "back.txt").write_text("back\n")
    ok(repo, "restore", "last")
    fsck(repo)
