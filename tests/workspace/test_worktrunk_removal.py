"""The removal and prune scenarios of worktrunk's integration tests (tests/integration_tests/remove.rs
of max-sixty/worktrunk), written anew for pylon's owned worktrees, with git as the oracle: where
git's own `git worktree remove --force` refuses a removal, pylon refuses it too and the folder's
files survive; where pylon removes, `git worktree list --porcelain` agrees nothing is left."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new, porcelain, tree_files


def admin_of(worktree: Path) -> Path:
    text = (worktree / ".git").read_text().strip()
    return Path(text.split("gitdir: ", 1)[1])


def git_refuses_removal(repo: Path, path: Path) -> bool:
    """Would git itself remove what sits at `path`? (asked without --force --force's lock override
    being the reason: the worktree is unlocked first on a copy of the question)"""
    proc = subprocess.run(
        ["git", "worktree", "remove", "--force", "--force", str(path)], cwd=repo, capture_output=True, text=True
    )
    return proc.returncode != 0


def listed(repo: Path) -> list[str]:
    return [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]]


def test_relative_registration_gitdir_is_still_owned_and_removed(repo: Path) -> None:
    """remove.rs: test_remove_worktree_with_relative_registration_gitdir."""
    a = Path(str(new(repo, "a")["path"]))
    admin = admin_of(a)
    relative = os.path.relpath(a / ".git", admin)
    (admin / "gitdir").write_text(relative + "\n")
    if not any(w["worktree"] == str(a) for w in porcelain(repo)):
        pytest.skip("this git does not resolve a relative gitdir (worktree.useRelativePaths, git >= 2.48)")
    assert listed(repo) == ["a"]
    removed = pylon("ws", "rm", "a", cwd=repo)
    assert removed.code == 0, removed
    assert not a.exists() and len(porcelain(repo)) == 1
    assert git(repo, "branch", "--list", "pylon-session-a") == ""


def test_a_foreign_repository_at_the_path_survives_rm_force(repo: Path) -> None:
    """remove.rs: test_remove_refuses_foreign_repository_at_worktree_path (git refuses it too)."""
    a = Path(str(new(repo, "a")["path"]))
    shutil.rmtree(a)
    git(a.parent, "init", "-q", "-b", "main", a.name)
    (a / "precious.txt").write_text("unpushed work\n")
    refused = pylon("ws", "rm", "a", "--force", cwd=repo)
    assert refused.code != 0 and "foreign-worktree" in refused.err, refused
    assert (a / "precious.txt").exists() and (a / ".git").is_dir()
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert (a / "precious.txt").exists() and (a / ".git").is_dir()
    # the oracle: git's own removal refuses this folder as well
    git(repo, "worktree", "unlock", str(a))
    assert git_refuses_removal(repo, a) and (a / "precious.txt").exists()


def test_a_sibling_moved_by_hand_onto_the_path_survives_and_the_hint_moves_it_home(repo: Path, tmp_path: Path) -> None:
    """remove.rs: test_remove_refuses_sibling_worktree_at_worktree_path (a plain `mv`)."""
    a = Path(str(new(repo, "a")["path"]))
    sibling = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(sibling))
    shutil.rmtree(a)
    sibling.rename(a)
    (a / "precious.txt").write_text("unpushed work\n")
    files = tree_files(a)
    refused = pylon("ws", "rm", "a", "--force", cwd=repo)
    assert refused.code != 0 and "foreign-worktree" in refused.err, refused
    assert tree_files(a) == files and (a / ".git").is_file()
    result = pylon("ws", "prune", "--json", cwd=repo).json()
    (item,) = [u for u in result["unresolved"] if u["id"] == "a"]
    assert tree_files(a) == files and item["resolve"].startswith(f"mv {a} {sibling}")
    subprocess.run(item["resolve"], shell=True, cwd=repo, check=True, capture_output=True)
    # home again: git sees the sibling where its registration says, with its work
    assert (sibling / "precious.txt").read_text() == "unpushed work\n"
    assert git(sibling, "branch", "--show-current").strip() == "other"
    assert not a.exists() and git(repo, "branch", "--list", "pylon-session-a") == ""


def test_a_recreated_empty_folder_is_reported_then_pruned_once_gone(repo: Path) -> None:
    """remove.rs: test_remove_worktree_directory_recreated and test_remove_path_holding_no_worktree."""
    a = Path(str(new(repo, "a")["path"]))
    shutil.rmtree(a)
    a.mkdir()
    refused = pylon("ws", "rm", "a", cwd=repo)
    assert refused.code != 0, refused
    pruned = pylon("ws", "prune", "--json", cwd=repo).json()
    assert a.is_dir()
    assert all("remove folder" not in step for action in pruned["actions"] for step in action["done"])
    a.rmdir()
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert len(porcelain(repo)) == 1 and git(repo, "branch", "--list", "pylon-session-a") == ""
    # a folder in pylon's root that pylon never made: refused by name, never removed
    stray = a.parent / "leftover"
    write_files(stray, {"notes.txt": "mine\n"})
    assert pylon("ws", "rm", "leftover", "--force", cwd=repo).code != 0
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert (stray / "notes.txt").read_text() == "mine\n"


def test_a_missing_owned_folder_is_pruned_and_git_agrees(repo: Path) -> None:
    """remove.rs: test_remove_locked_worktree_directory_missing. pylon's own lock does not guard
    against pylon: with the folder gone and no work on the branch, prune clears the registration
    (git's list agrees) and the branch; a branch with commits of its own is kept."""
    a = Path(str(new(repo, "a")["path"]))
    b = Path(str(new(repo, "b")["path"]))
    write_files(b, {"b.txt": "b\n"})
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "b's own commit")
    shutil.rmtree(a)
    shutil.rmtree(b)
    refused = pylon("ws", "rm", "a", cwd=repo)
    assert refused.code != 0 and "prune" in refused.err, refused
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert [w["worktree"] for w in porcelain(repo)] == [str(repo)]
    assert git(repo, "branch", "--list", "pylon-session-a") == ""
    assert git(repo, "branch", "--list", "pylon-session-b").strip() == "pylon-session-b"
