"""Refs a git command deletes come back: stash entries (in order, with their messages), branches,
tags, any ref `update-ref -d` removes; HEAD and the branch after `git checkout -f -B`; the remote's
old tip after `git push --force-with-lease`. The hook's own code path snapshots, bash runs the
command for real, `ws restore guard-<n>` runs, and the oracle is git itself: `git stash list`,
`git for-each-ref` before and after. Also with git as the oracle: `--force` wins over
`--force-with-lease` (a commit this repository never had is lost on the remote: irreversible),
while the lease alone refuses to overwrite it (so what a lease push overwrites is a commit this
repository has: reversible)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from tests.guard.test_snapshot_exact import guarded

ID = ("-c", "user.name=t", "-c", "user.email=t@t")


def refs_now(root: Path) -> str:
    """git's own view of the refs and the stash (pylon's own refs left out)."""
    refs = git(root, "for-each-ref", "--format=%(objectname) %(objecttype) %(refname)")
    mine = "".join(line + "\n" for line in refs.splitlines() if " refs/pylon/" not in line)
    return mine + git(root, "stash", "list", "--format=%H %gd %gs")


@pytest.fixture
def repo(make_repo) -> Path:  # type: ignore[no-untyped-def]
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


def restore(root: Path, name: str) -> dict[str, list[str]]:
    from pylon.workspace.repo import locate
    from pylon.workspace.ops.restore import restore_named

    return dict(restore_named(locate(str(root)), name).get("refs") or {})


def round_trip(repo: Path, line: str) -> None:
    before = refs_now(repo)
    files = sorted(p.name for p in repo.iterdir())
    name = guarded(repo, line)
    assert refs_now(repo) != before, line  # the command did delete something
    restore(repo, name)
    assert refs_now(repo) == before, line
    if "pop" not in line:  # pop applies the entry: its files stay (only the entry is given back)
        assert sorted(p.name for p in repo.iterdir()) == files


def test_a_dropped_stash_entry_comes_back_in_its_place_with_later_work_kept(repo: Path) -> None:
    before = git(repo, "stash", "list", "--format=%H %gs")
    name = guarded(repo, "git stash drop stash@{1}")
    assert len(git(repo, "stash", "list").splitlines()) == 2
    (repo / "later.txt").write_text("made after the command\n")  # later work: a file and a new entry
    git(repo, *ID, "stash", "push", "-u", "-qm", "later entry")
    got = restore(repo, name)
    assert len(got["stash"]) == 1
    after = git(repo, "stash", "list", "--format=%H %gs").splitlines()
    assert after[0].endswith("On main: later entry")
    assert "\n".join(after[1:]) + "\n" == before
    assert git(repo, "stash", "list", "--format=%gs").splitlines()[1:] == [
        "On main: stash third", "On main: stash second", "On main: stash first"]


@pytest.mark.slow
@pytest.mark.parametrize("line", ["git stash drop", "git stash clear", "git stash pop", "git branch -D feature",
                                  "git branch -d -f feature", "git tag -d v1 light",
                                  "git update-ref -d refs/heads/feature"])
def test_deleted_refs_come_back(repo: Path, line: str) -> None:
    round_trip(repo, line)


def test_a_force_deleted_branch_comes_back(repo: Path) -> None:
    round_trip(repo, "git branch -D feature")


def test_a_branch_overwritten_by_a_copy_is_kept_and_named_not_moved(repo: Path) -> None:
    before = refs_now(repo)
    name = guarded(repo, "git branch -C main feature")
    got = restore(repo, name)  # the ref exists now: restore never moves it, it names the command
    [row] = got["refs_kept"]
    ref, oid = row.split()
    assert ref == "refs/heads/feature" and refs_now(repo) != before
    git(repo, "update-ref", ref, oid)
    assert refs_now(repo) == before


def test_checkout_f_B_puts_head_and_the_branch_back(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("uncommitted\n")
    name = guarded(repo, "git checkout -f -B main HEAD~1")
    assert git(repo, "rev-parse", "main") != head
    restore(repo, name)
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


def test_a_lease_push_to_main_keeps_the_remote_old_tip_to_push_back(tmp_path: Path) -> None:
    remote, mine, _ = _remote_and_clones(tmp_path)
    (mine / "a.txt").write_text("two\n")
    git(mine, *ID, "commit", "-qam", "two")
    git(mine, "push", "-q", "origin", "main")
    old = git(remote, "rev-parse", "main").strip()
    git(mine, *ID, "commit", "--amend", "-qm", "two, rewritten")
    name = guarded(mine, "git push --force-with-lease origin main")
    assert git(remote, "rev-parse", "main").strip() != old  # the remote's history was rewritten
    got = restore(mine, name)
    assert [row.split()[1] for row in got["remote"]] == [old]
    git(mine, "push", "-q", "--force-with-lease=main", "origin", f"{old}:refs/heads/main")
    assert git(remote, "rev-parse", "main").strip() == old


def test_force_wins_over_a_lease_so_only_the_lease_alone_is_reversible(tmp_path: Path) -> None:
    from pylon.guard.classify import classify
    from pylon.guard.context import Context

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
    assert classify("git push --force-with-lease origin main", ctx).verdict == "reversible"


def test_the_note_of_a_command_that_drops_a_stash_and_removes_files_brings_back_both(repo: Path) -> None:
    before, files = refs_now(repo), (repo / "a.txt").read_text()
    name = guarded(repo, "git stash drop && rm -f a.txt")
    assert refs_now(repo) != before and not (repo / "a.txt").exists()
    from pylon.workspace.repo import locate
    from pylon.workspace.ops.restore import restore_named

    restore_named(locate(str(repo)), name, ["a.txt"])  # the note's command names the path
    assert refs_now(repo) == before and (repo / "a.txt").read_text() == files


def test_ws_restore_says_what_came_back(repo: Path) -> None:
    name = guarded(repo, "git stash clear")
    done = subprocess.run(["pylon", "ws", "restore", name], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "3 stash entries" in done.stderr and "0 path(s)" in done.stdout
    assert len(git(repo, "stash", "list").splitlines()) == 3


def test_ws_gc_prunes_the_kept_refs_with_their_snapshot(repo: Path) -> None:
    guarded(repo, "git stash clear")
    assert git(repo, "for-each-ref", "refs/pylon/guard-refs/").count("\n") == 3
    done = subprocess.run(["pylon", "ws", "gc", "--older-than", "0s", "--all"], cwd=repo, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert git(repo, "for-each-ref", "refs/pylon/guard/", "refs/pylon/guard-refs/") == ""
