"""Exact restores: permission bits (600/640/700, not git's 644/755), empty folders, symlinks, HEAD
and branch come back after `ws move` + `--back`, `ws move` + `ws undo`, `ws restore`, `ws apply` +
`ws undo` and `ws rm --force` + `ws undo`. Oracle: os.lstat of every entry (folders included)
before and after, and git's own view (ls-files -s, HEAD, branch)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import entries as tree


def git_view(root: Path) -> tuple[str, str, str]:
    return (
        git(root, "ls-files", "-s"),
        git(root, "rev-parse", "-q", "--verify", "HEAD", check=False),
        git(root, "symbolic-ref", "-q", "HEAD", check=False),
    )


def odd_modes(root: Path, tag: str) -> None:
    """Tracked and untracked files with 600/640/700 bits, nested empty folders, a symlink."""
    for rel, bits in ((f"secret-{tag}.txt", 0o600), (f"conf/shared-{tag}.ini", 0o640), (f"bin/run-{tag}.sh", 0o700)):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{rel}\n")
        os.chmod(path, bits)
    (root / f"empty-{tag}" / "deeper").mkdir(parents=True, exist_ok=True)
    (root / f"conf/empty-{tag}").mkdir(exist_ok=True)
    if not (root / f"link-{tag}").is_symlink():
        os.symlink(f"secret-{tag}.txt", root / f"link-{tag}")


@pytest.fixture
def pair(make_repo: MakeRepo) -> tuple[Path, Path]:
    repo = make_repo(files={"README.md": "# r\n", "tracked.txt": "t\n", ".gitignore": "*.log\n"})
    os.chmod(repo / "tracked.txt", 0o600)  # git records 644 all the same
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    assert made.code == 0, made
    wt = Path(made.json()["path"])
    odd_modes(wt, "wt")
    git(wt, "add", "secret-wt.txt")
    odd_modes(repo, "main")
    git(repo, "add", "bin/run-main.sh")
    (repo / "keep.log").write_text("ignored\n")
    os.chmod(repo / "keep.log", 0o600)
    return repo, wt


def test_move_and_back_keep_modes_and_empty_folders(pair: tuple[Path, Path]) -> None:
    repo, wt = pair
    main_before, wt_before, view = tree(repo), tree(wt), git_view(repo)
    assert pylon("ws", "move", "s1", cwd=repo).code == 0
    moved = tree(repo)
    for rel, entry in tree(wt).items():  # the worktree's files with their own bits, its empty folders
        if rel != "keep.log":
            assert moved.get(rel, ("missing",)) == entry, rel
    assert moved["keep.log"] == main_before["keep.log"]  # ignored: untouched
    back = pylon("ws", "move", "s1", "--back", cwd=repo)
    assert back.code == 0, back
    assert tree(repo) == main_before
    assert git_view(repo) == view
    assert tree(wt) == wt_before


def test_move_then_undo_keeps_modes_and_empty_folders(pair: tuple[Path, Path]) -> None:
    repo, _wt = pair
    before, view = tree(repo), git_view(repo)
    assert pylon("ws", "move", "s1", cwd=repo).code == 0
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert tree(repo) == before
    assert git_view(repo) == view


def test_restore_of_a_baseline_brings_back_bits_and_folders(pair: tuple[Path, Path]) -> None:
    repo, _wt = pair
    before = tree(repo)
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    os.chmod(repo / "secret-main.txt", 0o644)  # only the bits changed
    os.chmod(repo / "tracked.txt", 0o666)
    (repo / "conf/shared-main.ini").unlink()
    os.rmdir(repo / "empty-main" / "deeper")
    os.mkdir(repo / "made-later")
    restored = pylon("ws", "restore", "b1", cwd=repo)
    assert restored.code == 0, restored
    assert tree(repo) == before
    assert pylon("ws", "undo", cwd=repo).code == 0
    after_undo = tree(repo)
    assert after_undo["secret-main.txt"][1] == "0o644" and "made-later" in after_undo
    assert "empty-main/deeper" not in after_undo and "conf/shared-main.ini" not in after_undo


def test_apply_then_undo_keeps_a_600_file_600(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"secret.txt": "one\n", "other.txt": "x\n"})
    os.chmod(repo / "secret.txt", 0o600)
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    wt = Path(made.json()["path"])
    (wt / "secret.txt").write_text("one\ntwo\n")
    git(wt, "commit", "-qam", "edit")
    applied = pylon("ws", "apply", "s1", cwd=repo)
    assert applied.code == 0, applied
    assert (repo / "secret.txt").read_text() == "one\ntwo\n"
    assert stat.S_IMODE(os.lstat(repo / "secret.txt").st_mode) == 0o600
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert stat.S_IMODE(os.lstat(repo / "secret.txt").st_mode) == 0o600


def test_a_state_commit_without_meta_restores_as_before(make_repo: MakeRepo) -> None:
    """Old state commits have no pylon-meta line: git's modes, no folders, nothing fails."""
    repo = make_repo(files={"a.txt": "a\n"})
    (repo / "s.txt").write_text("s\n")
    os.chmod(repo / "s.txt", 0o600)
    os.mkdir(repo / "empty")
    assert pylon("ws", "baseline", "old", cwd=repo).code == 0
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pylon/").split()
    ref = [r for r in refs if r.endswith("/old")][0]
    body = git(repo, "cat-file", "commit", ref)
    assert "pylon-meta: " in body
    header, message = body.split("\n\n", 1)
    parents = [line.split()[1] for line in header.splitlines() if line.startswith("parent ")]
    stripped = "".join(line + "\n" for line in message.splitlines() if not line.startswith("pylon-meta: "))
    args = ["git", "commit-tree", git(repo, "rev-parse", ref + "^{tree}").strip()]
    for p in parents:
        args += ["-p", p]
    old = subprocess.run(args, cwd=repo, input=stripped, capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", ref, old)
    (repo / "s.txt").unlink()
    restored = pylon("ws", "restore", "old", cwd=repo)
    assert restored.code == 0, restored
    assert (repo / "s.txt").read_text() == "s\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.lstat(repo / "s.txt").st_mode) == 0o666 & ~mask


def watcher_pid(wt: Path) -> int | None:
    from pylon.workspace.worktrees import owned, watchers

    admin = owned.admin_dir_of(str(wt))
    return watchers.holder(admin) if admin else None


def test_rm_force_then_undo_brings_back_bits_folders_copied_files_and_the_watcher(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n", ".gitignore": ".env\n*.log\nlocal/\n", ".worktreeinclude": "local/\n"})
    (repo / ".env").write_text("SECRET=1\n")
    os.chmod(repo / ".env", 0o600)
    (repo / "local").mkdir()
    (repo / "local" / "conf.ini").write_text("x=1\n")
    os.chmod(repo / "local" / "conf.ini", 0o640)
    (repo / "build.log").write_text("not copied\n")
    made = pylon("ws", "new", "s1", "--copy", ".env", "--watch", "--json", cwd=repo)
    assert made.code == 0, made
    wt = Path(made.json()["path"])
    assert (wt / ".env").exists() and (wt / "local" / "conf.ini").exists()
    odd_modes(wt, "wt")
    git(wt, "add", "bin/run-wt.sh")
    (wt / "scratch.log").write_text("ignored, not copied: gone for good\n")
    before, view = tree(wt), git_view(wt)
    assert watcher_pid(wt) is not None
    removed = pylon("ws", "rm", "s1", "--force", cwd=repo)
    assert removed.code == 0, removed
    assert not wt.exists()
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    expected = {k: v for k, v in before.items() if k != "scratch.log"}
    assert tree(wt) == expected
    assert git_view(wt) == view
    assert watcher_pid(wt) is not None  # started again
    assert pylon("ws", "rm", "s1", "--force", cwd=repo).code == 0  # stops it again


@pytest.mark.parametrize("what", ["fifo", "nested"])
def test_rm_force_refuses_what_it_cannot_keep(make_repo: MakeRepo, what: str) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    wt = Path(made.json()["path"])
    if what == "fifo":
        os.mkfifo(wt / "pipe")
    else:
        (wt / "inner").mkdir()
        git(wt / "inner", "init", "-q")
        (wt / "inner" / "f.txt").write_text("history of its own\n")
        git(wt / "inner", "add", "-A")
        git(wt / "inner", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "own")

    def kept_refs() -> list[str]:  # the capture cache (refs/pylon/.../current) aside
        return [r for r in git(repo, "for-each-ref").splitlines() if not r.endswith("/current")]

    refs_before = kept_refs()
    before = tree(wt)
    removed = pylon("ws", "rm", "s1", "--force", "--json", cwd=repo)
    assert removed.code == 1 and removed.json()["error"]["code"] == "cannot-keep", removed
    assert tree(wt) == before
    assert kept_refs() == refs_before  # no op, no trash: nothing written
