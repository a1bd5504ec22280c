"""Refs a git command deletes or moves come back: stash entries (in order, with their messages),
branches, tags, any ref `update-ref -d` removes, a branch a copy overwrote; HEAD and the branch after
`git checkout -f -B`. The command runs through the hook path as a client runs it (PreToolUse,
bash, PostToolUse), `pylon ws undo` runs, and the oracle is git itself: `git stash list` and
`git for-each-ref` before and after. A push that overwrites the remote's history is asked (no kept
state gives the remote back), with git as the oracle for why: `--force` wins over
`--force-with-lease` (a commit this repository never had is lost on the remote)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd
from tests.keep.hookpath import run_through_hooks

ID = ("-c", "user.name=t", "-c", "user.email=t@t")


def refs_now(root: Path) -> str:
    """git's own view of the refs and the stash (pylon's own refs left out)."""
    refs = git(root, "for-each-ref", "--format=%(objectname) %(objecttype) %(refname)")
    mine = "".join(line + "\n" for line in refs.splitlines() if " refs/pylon/" not in line)
    return mine + git(root, "stash", "list", "--format=%H %gd %gs")


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root: Path = make_repo({"a.txt": "one\n"})
    git(root, *ID, "tag", "-a", "v1", "-m", "annotated")
    git(root, "tag", "light")
    git(root, "checkout", "-qb", "feature")
    (root / "f.txt").write_text("only on feature\n")
    git(root, "add", "-A")
    git(root, *ID, "commit", "-qm", "feature work")
    git(root, "checkout", "-q", "main")
    (root / "a.txt").write_text("two\n")
    git(root, *ID, "commit", "-qam", "two")
    for i, text in enumerate(["first", "second", "third"]):
        (root / "a.txt").write_text(f"stashed {text}\n")
        (root / f"new-{i}.txt").write_text("untracked\n")
        git(root, *ID, "stash", "push", "-u", "-qm", f"stash {text}")
    return root


def guarded(root: Path, line: str) -> None:
    answer, ran = run_through_hooks(root, line)
    assert ran is not None and "permissionDecision" not in json.dumps(answer), (line, answer)


def undo(root: Path) -> str:
    done = run_cmd("pylon", "ws", "undo", cwd=root)
    assert done.code == 0, done
    return done.err


def round_trip(repo: Path, line: str) -> None:
    before = refs_now(repo)
    files = sorted(p.name for p in repo.iterdir())
    guarded(repo, line)
    assert refs_now(repo) != before, line  # the command did delete something
    undo(repo)
    assert refs_now(repo) == before, line
    assert sorted(p.name for p in repo.iterdir()) == files  # `stash pop` applied files: gone again


def test_a_dropped_stash_entry_comes_back_in_its_place(repo: Path) -> None:
    before = git(repo, "stash", "list", "--format=%H %gs")
    guarded(repo, "git stash drop stash@{1}")
    assert len(git(repo, "stash", "list").splitlines()) == 2
    said = undo(repo)
    assert "stash" in said, said
    assert git(repo, "stash", "list", "--format=%H %gs") == before
    assert git(repo, "stash", "list", "--format=%gs").splitlines() == [
        "On main: stash third",
        "On main: stash second",
        "On main: stash first",
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "line",
    [
        "git stash drop",
        "git stash clear",
        "git stash pop",
        "git branch -D feature",
        "git branch -d -f feature",
        "git tag -d v1 light",
        "git update-ref -d refs/heads/feature",
        "git branch -f feature main",
        "git tag -f light main",
        "git update-ref refs/heads/feature HEAD",
        "git stash && git stash drop",
    ],
)
def test_deleted_refs_come_back(repo: Path, line: str) -> None:
    round_trip(repo, line)


def test_a_force_deleted_branch_comes_back(repo: Path) -> None:
    round_trip(repo, "git branch -D feature")


def test_a_branch_overwritten_by_a_copy_comes_back(repo: Path) -> None:
    round_trip(repo, "git branch -C main feature")


def test_checkout_f_B_puts_head_and_the_branch_back(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("uncommitted\n")
    guarded(repo, "git checkout -f -B main HEAD~1")
    assert git(repo, "rev-parse", "main") != head
    undo(repo)
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "rev-parse", "main") == head
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert (repo / "a.txt").read_text() == "uncommitted\n"


def _remote_and_clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    remote, mine, theirs = tmp_path / "remote.git", tmp_path / "mine", tmp_path / "theirs"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(mine))
    git(mine, "checkout", "-qb", "main")
    (mine / "a.txt").write_text("one\n")
    git(mine, "add", "-A")
    git(mine, *ID, "commit", "-qm", "one")
    git(mine, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(theirs))
    return remote, mine, theirs


def test_force_wins_over_a_lease_and_both_are_asked(tmp_path: Path) -> None:
    from pylon.guard.context import Context
    from pylon.guard.judge.classify import classify

    remote, mine, theirs = _remote_and_clones(tmp_path)
    git(theirs, *ID, "commit", "--allow-empty", "-qm", "theirs: never fetched here")
    git(theirs, "push", "-q", "origin", "main")
    theirs_tip = git(remote, "rev-parse", "main").strip()
    git(mine, *ID, "commit", "--allow-empty", "-qm", "mine")
    lease = subprocess.run(["git", "push", "--force-with-lease", "origin", "main"], cwd=mine, capture_output=True)
    assert lease.returncode != 0 and git(remote, "rev-parse", "main").strip() == theirs_tip
    git(mine, "push", "-q", "--force", "--force-with-lease", "origin", "main")
    assert git(remote, "rev-parse", "main").strip() != theirs_tip  # lost: this repository never had it
    ctx = Context(str(mine), str(mine), branch="main")
    assert classify("git push --force --force-with-lease origin main", ctx).verdict == "irreversible"
    # the lease overwrites the remote's main too: no kept state of this checkout gives the remote back
    assert classify("git push --force-with-lease origin main", ctx).verdict == "irreversible"
    assert classify("git push --dry-run --force origin main", ctx).verdict == "safe"


def test_undo_says_what_came_back(repo: Path) -> None:
    guarded(repo, "git stash clear && git branch -D feature")
    said = undo(repo)
    assert "refs/heads/feature" in said and "3 stash entries" in said, said
    assert len(git(repo, "stash", "list").splitlines()) == 3
