"""tracking/inotify.py: `ws watch` watches the tree's folders, those made or moved in later too,
and of the git dir only its cookie folder, so git's own churn there (a `git gc` deletes every
loose object) never queues ahead of a sync's cookie. The kernel's record of what is watched
(/proc/PID/fdinfo) and git's own commands are the oracles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, inotify_masks, write_files
from tests.workspace.test_watch import _lines
from tests.workspace.test_watch import _start as _start_json
from tests.workspace.test_watch_sync import _changes, _start, _stop, _vouched

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def _git_tree(repo: Path, index: Path) -> str:
    """git's own tree of the worktree as it is (tracked and untracked, not ignored)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    return subprocess.run(
        ["git", "write-tree"], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def _blob_file(repo: Path, n: int) -> Path:
    path = repo / ".git" / f"blob-{n}"  # outside the tree: only the object is an event in it
    path.write_text(f"{n}\n")
    return path


def test_the_tree_is_watched_and_of_the_git_dir_only_the_cookie_folder(repo: Path) -> None:
    proc = _start(repo, 0)
    try:
        _vouched(repo)
        watches = inotify_masks(proc.pid)  # one per watched folder
    finally:
        _stop(proc)
    dot_git = repo / ".git"
    tree = [p for p in [repo, *repo.rglob("*")] if p.is_dir() and dot_git not in [p, *p.parents]]
    assert (dot_git / "pylon" / "watch-sync").is_dir()
    assert len(watches) == len(tree) + 1  # and the cookie folder; none of .git's other ten or more
    assert len([p for p in dot_git.rglob("*") if p.is_dir()]) > 10


def test_git_churn_in_the_git_dir_does_not_hold_a_sync_back(repo: Path) -> None:
    # As a `git gc` does on its own after a commit: many loose objects written, packed, deleted.
    # Each event the watcher got from .git would reach its (slowed) handler ahead of the sync's
    # cookie; a watcher that watched .git answered "no" to every sync behind them (readers scan).
    loose = [
        repo / ".git" / "objects" / oid[:2] / oid[2:]
        for n in range(60)
        for oid in [git(repo, "hash-object", "-w", "--", str(_blob_file(repo, n))).strip()]
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
    proc = _start(repo, 0)
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


def test_a_kernel_queue_overflow_rescans_and_watches_what_came_meanwhile(repo: Path, tmp_path: Path) -> None:
    # A slow handler (0.2 ms an event) and more metadata changes than the kernel queues
    # (fs.inotify.max_queued_events, 16,384 by default; two files in turn, which it cannot merge)
    # overflow it; a folder made then raises no event of its own. After the overflow the watcher
    # must say so, rescan, and watch that folder.
    events = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text()) + 2000
    proc = _start_json(repo, env={"PYLON_WATCH_EVENT_DELAY": "0.0002"})
    try:
        _vouched(repo)
        pair = [str(repo / "README.md"), str(repo / "src" / "app.py")]
        for n in range(events):
            os.utime(pair[n % 2], ns=(n, n))
        (repo / "late" / "deeper").mkdir(parents=True)  # its event is lost with the queue full
        _vouched(repo, timeout=120)  # the overflow handled, the rescan settled
        (repo / "late" / "deeper" / "after.txt").write_text("after\n")
        git_tree = _git_tree(repo, tmp_path / "index")
        assert _changes(repo)["worktree_tree"] == git_tree  # the watcher's, or a scan's
        assert _vouched(repo)["worktree_tree"] == git_tree
    finally:
        proc.terminate()
    assert any(batch["overflow"] for batch in _lines(proc))  # the kernel's queue did overflow
