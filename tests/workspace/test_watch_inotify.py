"""tracking/inotify.py: `ws watch` watches the tree's folders, those made or moved in later too,
and of the git dir only its cookie folder, so git's own churn there (a `git gc` deletes every
loose object) never queues ahead of a sync's cookie. The kernel's record of what is watched
(/proc/PID/fdinfo) and git's own commands are the oracles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, script, write_files
from tests.workspace.helpers import pylon

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def _start(cwd: Path, delay: float = 0) -> subprocess.Popen:
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--debounce", "0.1", "--timeout", "120"],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYLON_WATCH_EVENT_DELAY": str(delay)},
    )
    assert proc.stderr is not None
    assert "watching" in proc.stderr.readline().decode()
    return proc


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def _changes(cwd: Path) -> dict:
    r = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=cwd)
    assert r.code == 0, r.err
    return r.json()


def _vouched(cwd: Path, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = _changes(cwd)
        if doc["source"] == "watch":
            return doc
        time.sleep(0.2)
    raise AssertionError("the watcher never vouched")


def _git_tree(repo: Path, index: Path) -> str:
    """git's own tree of the worktree as it is (tracked and untracked, not ignored)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    return subprocess.run(
        ["git", "write-tree"], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def write_blob(repo: Path, n: int) -> Path:
    path = repo / ".git" / f"blob-{n}"  # outside the tree: only the object is an event in it
    path.write_text(f"{n}\n")
    return path


def _watched_inodes(pid: int) -> set[int]:
    """The inode of every folder process `pid` watches with inotify (/proc/PID/fdinfo)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:inotify":
                continue
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        for line in info.splitlines():
            if line.startswith("inotify "):
                inodes |= {int(p[4:], 16) for p in line.split() if p.startswith("ino:")}
    return inodes


def test_the_tree_is_watched_and_of_the_git_dir_only_the_cookie_folder(repo: Path) -> None:
    proc = _start(repo)
    try:
        _vouched(repo)
        watched = _watched_inodes(proc.pid)
    finally:
        _stop(proc)
    folders = {p for p in [repo, *repo.rglob("*")] if p.is_dir() and not p.is_symlink()}
    dot_git = repo / ".git"
    tree = {p for p in folders if dot_git not in p.parents and p != dot_git}
    in_git = {p for p in folders if dot_git in p.parents or p == dot_git}
    cookie = dot_git / "pylon" / "watch-sync"
    assert {os.stat(p).st_ino for p in tree} <= watched
    assert os.stat(cookie).st_ino in watched
    assert {p for p in in_git if os.stat(p).st_ino in watched} == {cookie}


def test_git_churn_in_the_git_dir_does_not_hold_a_sync_back(repo: Path) -> None:
    # As a `git gc` does on its own after a commit: many loose objects written, packed, deleted.
    # Each event the watcher got from .git would reach its (slowed) handler ahead of the sync's
    # cookie; a watcher that watched .git answered "no" to every sync behind them (readers scan).
    loose = [
        repo / ".git" / "objects" / oid[:2] / oid[2:]
        for n in range(60)
        for oid in [git(repo, "hash-object", "-w", "--", str(write_blob(repo, n))).strip()]
    ]
    proc = _start(repo, delay=0.05)
    try:
        _vouched(repo)
        git(repo, "gc", "--prune=now", "-q")
        assert not any(p.exists() for p in loose)  # git deleted them: at least 60 events in .git
        assert _changes(repo)["source"] == "watch"
    finally:
        _stop(proc)


@pytest.mark.parametrize("how", ["made", "moved in", "renamed"])
def test_a_folder_that_comes_after_the_start_is_watched(repo: Path, tmp_path: Path, how: str) -> None:
    proc = _start(repo)
    try:
        _vouched(repo)
        if how == "made":
            write_files(repo, {"new/deep/er/a.txt": "a\n"})
            folder = repo / "new" / "deep" / "er"
        elif how == "moved in":
            write_files(tmp_path / "outside", {"deep/er/a.txt": "a\n"})
            shutil.move(tmp_path / "outside", repo / "new")
            folder = repo / "new" / "deep" / "er"
        else:
            shutil.move(repo / "src", repo / "moved")
            _vouched(repo)
            write_files(repo, {"moved/sub/b.txt": "b\n"})  # a folder made at the folder's new name
            folder = repo / "moved" / "sub"
        doc = _vouched(repo)  # the watcher's rescan after the folder came
        # an edit inside it afterwards must end the vouch: each read is the scan's, or the watcher's after it
        for n in range(3):
            (folder / f"later-{n}.txt").write_text(f"{n}\n")
            doc = _changes(repo)
            assert f"{folder.relative_to(repo)}/later-{n}.txt" in [f["path"] for f in doc["files"]], (n, doc)
        (folder / "later-0.txt").write_text("edited\n")
        doc = _vouched(repo)
        assert doc["worktree_tree"] == _git_tree(repo, tmp_path / "index")  # what git reads in the tree now
    finally:
        _stop(proc)
