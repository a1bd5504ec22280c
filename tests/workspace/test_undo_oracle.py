"""Differential test: `ws undo` of an apply after random later edits, against `git revert`.

Random session edits are applied (`ws apply`), then random later edits land in the checkout
(other files, other lines of the same files, the same lines, new files, deletions). The oracle is
git's own porcelain in a scratch repository: commit the state before the apply, the apply, and the
later edits as three commits, then `git revert` the apply on top. pylon's undo must leave exactly
the files git's revert leaves, or, where git's revert stops on conflicts, refuse with the same
conflicted paths and change nothing.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, sized, write_files
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, snapshot
from tests.workspace.wt_helpers import new

FILES = 8
LINES = 12


def text(tag: str) -> str:
    return "".join(f"{tag} line {n}\n" for n in range(LINES))


def edit_lines(path: Path, rnd: random.Random, who: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    for _ in range(rnd.randint(1, 2)):
        n = rnd.randrange(len(lines))
        lines[n] = f"{who} {rnd.random():.6f}\n"
    path.write_text("".join(lines))


def worktree_files(root: Path) -> dict[str, bytes]:
    found = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            full = Path(folder) / name
            found[str(full.relative_to(root))] = full.read_bytes()
    return found


def commit_exactly(repo: Path, files: dict[str, bytes], message: str) -> None:
    for rel in list(worktree_files(repo)):
        (repo / rel).unlink()
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def git_revert(
    scratch: Path, before: dict[str, bytes], after: dict[str, bytes], now: dict[str, bytes]
) -> tuple[set[str], dict[str, bytes]]:
    """(conflicted paths, files) of `git revert` of the apply on top of the later edits."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    git(scratch, "init", "-q")
    commit_exactly(scratch, before, "before")
    commit_exactly(scratch, after, "apply")
    applied = git(scratch, "rev-parse", "HEAD").strip()
    commit_exactly(scratch, now, "later")
    done = subprocess.run(["git", "revert", "--no-edit", applied], cwd=scratch, capture_output=True, check=False)
    if done.returncode != 0:
        conflicted = git(scratch, "diff", "--name-only", "--diff-filter=U").split()
        return set(conflicted), {}
    return set(), worktree_files(scratch)


@pytest.mark.parametrize("seed", range(sized(5, 16)))  # 16 seeds in the full tier
def test_undo_after_random_later_edits_matches_git_revert(make_repo: MakeRepo, tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    repo = make_repo({f"f{n}.txt": text(f"f{n}") for n in range(FILES)})
    session = Path(str(new(repo, "a")["path"]))
    touched = rnd.sample(range(FILES), 3)
    for n in touched:
        edit_lines(session / f"f{n}.txt", rnd, "agent")
    write_files(session, {"agent-new.txt": "from the agent\n"})
    if rnd.random() < 0.5:
        (session / f"f{rnd.choice([n for n in range(FILES) if n not in touched])}.txt").unlink()
    before = worktree_files(repo)
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    after = worktree_files(repo)
    for _ in range(rnd.randint(1, 4)):  # later edits, anywhere
        choice = rnd.random()
        present = sorted(p for p in worktree_files(repo) if p.startswith("f"))
        if choice < 0.5 and present:
            edit_lines(repo / rnd.choice(present), rnd, "later")
        elif choice < 0.7:
            write_files(repo, {f"later-{rnd.randrange(100)}.txt": "made later\n"})
        elif choice < 0.85 and present:
            (repo / rnd.choice(present)).unlink()
        else:
            write_files(repo, {"agent-new.txt": "from the agent\nand edited later\n"})
    now = worktree_files(repo)
    conflicted, expected = git_revert(tmp_path / "oracle", before, after, now)
    was = snapshot(repo)
    result = pylon("ws", "undo", "--json", cwd=repo)
    where = f"seed {seed}"
    if conflicted:
        assert result.code != 0, (where, result)
        error = result.json()["error"]
        assert error["code"] == "undo-conflicts", (where, error)
        assert {c["path"] for c in error["conflicts"]} == conflicted, where
        assert diff_snapshots(was, snapshot(repo)) == [], where
        return
    assert result.code == 0, (where, result)
    assert worktree_files(repo) == expected, where
    redone = pylon("ws", "redo", cwd=repo)  # and redo gives back what the undo replaced, exactly
    assert redone.code == 0, (where, redone)
    assert diff_snapshots(was, snapshot(repo)) == [], where
