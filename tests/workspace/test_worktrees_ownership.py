"""Ownership proven on disk: what sits at an owned worktree's path must be that worktree (its `.git`
file, git's admin folder naming it back, the lock with the record's token) before pylon reads,
changes or removes it. Moved, relocked, replaced and sibling cases, and bad roots (issue 23: 3, 4,
5, 8; issue 17: 5). git's own `git worktree list` is the oracle for what still exists."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import immutable, new, porcelain, require_immutable, tree_files


def refs(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(refname)")


def branches(repo: Path) -> set[str]:
    return set(git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/").split())


def unresolved(repo: Path) -> dict[str, dict[str, str]]:
    result = pylon("ws", "prune", "--json", cwd=repo)
    assert result.code == 0, result
    return {item["id"]: item for item in result.json()["unresolved"]}


def listed(repo: Path) -> list[str]:
    result = pylon("ws", "list", "--json", cwd=repo)
    assert result.code == 0, result
    return [w["id"] for w in result.json()["worktrees"]]


def sh(command: str, cwd: Path) -> None:
    subprocess.run(command, shell=True, cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize("what", ["repository", "empty"])
def test_another_repository_or_an_empty_folder_at_an_owned_path(repo: Path, what: str) -> None:
    a = Path(str(new(repo, "a")["path"]))
    b = Path(str(new(repo, "b")["path"]))
    write_files(b, {"work.txt": "b's work\n"})
    shutil.rmtree(a)
    a.mkdir()
    if what == "repository":
        git(a, "init", "-q", "-b", "main")
        write_files(a, {"theirs.txt": "someone else's\n"})
        git(a, "add", "-A")
        git(a, "commit", "-q", "-m", "theirs")
        before = (refs(a), sorted(p.name for p in (a / ".git").iterdir()), tree_files(a))
    assert listed(repo) == ["b"]
    conflicts = pylon("ws", "conflicts", "--json", cwd=repo)
    assert conflicts.code == 0, conflicts
    assert conflicts.json()["worktrees"] == ["b"]
    refused = pylon("ws", "rm", "a", "--force", "--json", cwd=repo)
    assert refused.json()["error"]["code"] == "foreign-worktree", refused
    status = pylon("ws", "status", "--json", cwd=repo)
    assert status.code == 0, status
    item = unresolved(repo).get("a")
    if what == "repository":
        assert item and "another repository" in item["why"] and item["resolve"].startswith("mv ")
        # nothing of pylon's was written into that repository, its files are as they were
        assert (refs(a), sorted(p.name for p in (a / ".git").iterdir()), tree_files(a)) == before
        assert not (a / ".git" / "pylon").exists()
    assert a.is_dir()  # left alone
    assert pylon("ws", "rm", "b", "--force", cwd=repo).code == 0  # the other worktree still works


def test_prune_keeps_the_branch_of_an_owned_worktree_git_moved(repo: Path, tmp_path: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"work.txt": "agent work\n"})
    elsewhere = tmp_path / "moved-a"
    git(repo, "worktree", "move", "--force", "--force", str(a), str(elsewhere))
    dry = pylon("ws", "prune", "--dry-run", "--json", cwd=repo).json()
    assert dry["actions"] == []
    item = unresolved(repo)["a"]
    assert "moved" in item["why"] and item["path"] == str(elsewhere)
    assert "pylon-session-a" in branches(repo)
    head = git(elsewhere, "symbolic-ref", "HEAD").strip()
    assert head == "refs/heads/pylon-session-a" and git(elsewhere, "rev-parse", "--verify", "HEAD")
    assert (elsewhere / "work.txt").read_text() == "agent work\n"
    # the printed command puts it back where pylon knows it
    sh(item["resolve"], repo)
    assert listed(repo) == ["a"]


def test_git_worktree_repair_after_a_move_by_hand_is_recognised(repo: Path, tmp_path: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    elsewhere = tmp_path / "by-hand"
    a.rename(elsewhere)
    git(elsewhere, "worktree", "repair")
    pylon("ws", "prune", cwd=repo)
    assert "pylon-session-a" in branches(repo)
    assert any(w["worktree"] == str(elsewhere) for w in porcelain(repo))
    sh(unresolved(repo)["a"]["resolve"], repo)
    assert listed(repo) == ["a"]


def test_an_unlocked_or_relocked_owned_worktree_is_reported_with_the_command_that_relocks_it(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    git(repo, "worktree", "unlock", str(a))
    assert listed(repo) == []
    item = unresolved(repo)["a"]
    assert "locked" in item["why"] and "git worktree lock --reason" in item["resolve"]
    text = pylon("ws", "prune", cwd=repo).out
    assert "left alone: a: it is not locked with pylon's reason" in text and f"resolve: {item['resolve']}" in text
    assert a.is_dir() and "pylon-session-a" in branches(repo)
    git(repo, "worktree", "lock", "--reason", "mine now", str(a))
    item = unresolved(repo)["a"]
    assert item["resolve"].startswith("git worktree unlock ")
    sh(item["resolve"], repo)
    assert listed(repo) == ["a"]


def test_a_sibling_worktree_moved_onto_an_owned_path_is_never_touched(repo: Path, tmp_path: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"work.txt": "agent work\n"})
    git(repo, "worktree", "add", "-q", "-b", "sibling", str(tmp_path / "sib"))
    write_files(tmp_path / "sib", {"sib.txt": "the sibling's work\n"})
    shutil.rmtree(a)
    git(repo, "worktree", "move", "-f", "-f", str(tmp_path / "sib"), str(a))
    files = tree_files(a)
    refused = pylon("ws", "rm", "a", "--force", "--json", cwd=repo)
    assert refused.json()["error"]["code"] == "foreign-worktree", refused
    assert pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"] == []  # no op began
    item = unresolved(repo)["a"]
    assert "another worktree" in item["why"]
    assert tree_files(a) == files and git(a, "branch", "--show-current").strip() == "sibling"
    assert listed(repo) == []


def test_undo_and_finish_of_an_interrupted_rm_leave_a_sibling_moved_onto_the_path(repo: Path, tmp_path: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"work.txt": "agent work\n", "stuck/file.txt": "x\n"})
    require_immutable(a / "stuck")
    try:
        failed = pylon("ws", "rm", "a", "--force", "--json", cwd=repo)
    finally:
        immutable(a / "stuck", False)
    assert failed.code != 0, failed
    status = pylon("ws", "status", "--json", cwd=repo).json()
    assert json.dumps(status).count("interrupted") >= 1
    shutil.rmtree(a)
    git(repo, "worktree", "add", "-q", "-b", "sibling", str(tmp_path / "sib"))
    write_files(tmp_path / "sib", {"sib.txt": "the sibling's work\n"})
    git(repo, "worktree", "move", "-f", "-f", str(tmp_path / "sib"), str(a))
    files = tree_files(a)
    undo = pylon("ws", "undo", "--json", cwd=repo)
    assert undo.json()["error"]["code"] == "path-taken", undo
    assert tree_files(a) == files
    finish = pylon("ws", "undo", "--finish", "--json", cwd=repo)
    assert finish.code == 0, finish
    assert tree_files(a) == files and git(a, "branch", "--show-current").strip() == "sibling"
    assert any(w["worktree"] == str(a) and w.get("branch") == "refs/heads/sibling" for w in porcelain(repo))


def test_prune_leaves_a_plain_worktree_added_at_the_path_of_an_interrupted_new(repo: Path) -> None:
    made = new(repo, "a")
    a = Path(str(made["path"]))
    registry = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    registry = (registry if registry.is_absolute() else repo / registry) / "pylon" / "owned" / "a.json"
    # as a `new` killed before its worktree existed leaves it: the record says "creating"
    record = json.loads(registry.read_text())
    git(repo, "worktree", "unlock", str(a))
    git(repo, "worktree", "remove", "--force", str(a))
    git(repo, "branch", "-D", "pylon-session-a")
    registry.write_text(json.dumps(dict(record, state="creating")))
    git(repo, "worktree", "add", "-q", "-b", "plain", str(a))
    write_files(a, {"mine.txt": "a person's work\n"})
    files = tree_files(a)
    result = pylon("ws", "prune", "--json", cwd=repo)
    assert result.code == 0, result
    (action,) = result.json()["actions"]
    assert action["kind"] == "interrupted-new" and action["kept"] and not any("remove" in d for d in action["done"])
    assert tree_files(a) == files
    assert any(w["worktree"] == str(a) and w.get("branch") == "refs/heads/plain" for w in porcelain(repo))


@pytest.mark.parametrize("shape", ["file", "under-a-file"])
def test_a_worktree_root_that_is_a_file_is_a_coded_error(repo: Path, tmp_path: Path, shape: str) -> None:
    target = tmp_path / "not-a-folder"
    target.write_text("a file\n")
    root = target if shape == "file" else target / "deeper"
    for args in (("ws", "new", "a", "--json"), ("ws", "list", "--json")):
        result = pylon(*args, cwd=repo, env={"PYLON_WORKTREE_ROOT": str(root)})
        assert result.code == 2, result
        error = result.json()["error"]
        assert error["code"] == "worktree-root-not-folder" and "PYLON_WORKTREE_ROOT" in error["hint"]
    assert target.read_text() == "a file\n" and branches(repo) == {"main"}


def test_an_unreadable_registry_record_is_reported_and_a_new_refuses_its_id(repo: Path) -> None:
    new(repo, "a")
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    record = (common if common.is_absolute() else repo / common) / "pylon" / "owned" / "a.json"
    record.write_text('{"version": 1, "id": "a", "pa')  # half-written by hand
    assert listed(repo) == []
    again = pylon("ws", "new", "a", "--json", cwd=repo)
    assert again.json()["error"]["code"] in ("worktree-exists", "registry-record-unreadable"), again
    item = unresolved(repo)["a"]
    assert "cannot be read" in item["why"] and str(record) in item["resolve"]
    assert record.read_text() == '{"version": 1, "id": "a", "pa'
