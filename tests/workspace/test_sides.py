"""sides.py: the batched tree diff and tree peeling, checked against git's own one-pair answers."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from pylon.errors import PylonError
from pylon.workspace.repo import EMPTY_TREE, locate
from pylon.workspace.sides import dirty_from, peel_trees, tree_diffs
from tests.conftest import git

NAMES = ["a.txt", "Upper.md", "sp ace/x y.txt", "ünï/cödé.py", "deep/er/still/f", "line\nbreak", "0", "A", "M\tT"]


def tree_of(repo: Path, files: dict[str, str]) -> str:
    """A tree built with a throwaway index (no working tree involved)."""
    env_index = repo / ".git" / "scratch-index"
    env_index.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(env_index)}
    import os

    for path, text in files.items():
        blob = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=text.encode(), capture_output=True, check=True
            )
            .stdout.decode()
            .strip()
        )
        subprocess.run(
            ["git", "update-index", "--add", "-z", "--index-info"],
            cwd=repo,
            check=True,
            input=f"100644 {blob}\t{path}\0".encode(),
            env={**os.environ, **env},
        )
    return (
        subprocess.run(["git", "write-tree"], cwd=repo, capture_output=True, check=True, env={**os.environ, **env})
        .stdout.decode()
        .strip()
    )


def git_pair(repo: Path, a: str, b: str) -> list[tuple[str, str]]:
    out = subprocess.run(
        ["git", "diff-tree", "-r", "--name-status", "--no-renames", "-z", a, b],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    fields = [f.decode("utf-8", "surrogateescape") for f in out.split(b"\0") if f]
    return list(zip(fields[0::2], fields[1::2]))


def test_batched_diff_matches_git_pair_by_pair(repo: Path) -> None:
    rng = random.Random(7)
    trees = [EMPTY_TREE]
    for _ in range(6):
        files = {name: f"{name} {rng.randint(0, 2)}\n" for name in NAMES if rng.random() < 0.7}
        trees.append(tree_of(repo, files))
    pairs = [(a, b) for a in trees for b in trees]  # includes equal pairs and empty diffs
    rng.shuffle(pairs)
    got = tree_diffs(locate(str(repo)), pairs)
    assert len(got) == len(pairs)
    assert any(got) and not all(got)
    for (a, b), found in zip(pairs, got):
        assert found == git_pair(repo, a, b), (a, b)


def test_dirty_from_splits_untracked_from_tracked() -> None:
    staged = [("M", "s.txt"), ("A", "new-staged.txt")]
    unstaged = [("A", "untracked.txt"), ("D", "gone.txt"), ("M", "s.txt")]
    assert dirty_from(staged, unstaged) == (["gone.txt", "new-staged.txt", "s.txt"], ["untracked.txt"])


def test_peel_trees_gives_git_answers_and_refuses_a_non_commit(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    checkout = locate(str(repo))
    assert peel_trees(checkout, [head, "HEAD"]) == [git(repo, "rev-parse", "HEAD^{tree}").strip()] * 2
    assert peel_trees(checkout, []) == []
    with pytest.raises(PylonError) as info:
        peel_trees(checkout, [head, "no-such-rev"])
    assert info.value.code == "git-failed" and "no-such-rev" in str(info.value)
