"""Checkout.head_by_files: HEAD's commit read from the ref files says what `git rev-parse HEAD` says
(loose and packed branches, a detached HEAD, a symbolic ref naming another, a linked worktree), and
nothing (None) where only git can tell (an unborn branch)."""

from __future__ import annotations

from pathlib import Path

from pylon.workspace.repo import locate
from tests.conftest import git


def head(repo: Path) -> str | None:
    return locate(str(repo)).head_by_files()


def test_head_by_files_agrees_with_git(make_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo({"a.txt": "one\n"})
    assert head(repo) == git(repo, "rev-parse", "HEAD").strip()  # a loose branch
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert head(repo) == git(repo, "rev-parse", "HEAD").strip()  # packed
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert head(repo) == git(repo, "rev-parse", "HEAD").strip()  # a symbolic ref naming another
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert head(repo) == git(repo, "rev-parse", "HEAD").strip()  # detached
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked), "main")
    git(linked, "commit", "-q", "--allow-empty", "-m", "three")
    assert head(linked) == git(linked, "rev-parse", "HEAD").strip()  # its own HEAD, the shared refs
    git(repo, "checkout", "-q", "--orphan", "fresh")
    assert head(repo) is None  # unborn: git says so, not the files
