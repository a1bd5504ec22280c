"""`ws new --watch`: a background `ws watch` per owned worktree, stopped by `ws rm` and `ws prune`
before anything is removed, and gone by itself when its worktree disappears."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.workspace.helpers import pylon, write_files
from tests.workspace.wt_helpers import new, world

STARTED: list[int] = []


@pytest.fixture(autouse=True)
def no_watcher_left() -> Iterator[None]:
    yield
    for pid in STARTED:  # never leave a background process behind, even when a test failed
        if _running(pid):
            os.killpg(pid, signal.SIGKILL)
    STARTED.clear()


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def _new_watched(repo: Path, wid: str) -> tuple[Path, int]:
    doc = new(repo, wid, "--watch")
    watcher = doc["watcher"]
    assert isinstance(watcher, dict) and isinstance(watcher["pid"], int), doc
    STARTED.append(watcher["pid"])
    return Path(str(doc["path"])), watcher["pid"]


def _source(path: Path, timeout: float = 30) -> str:
    """`ws changes` in the worktree once the watcher's first capture has settled (or the last answer)."""
    deadline = time.monotonic() + timeout
    source = ""
    while time.monotonic() < deadline:
        source = pylon("ws", "changes", "--json", cwd=path).json()["source"]
        if source == "watch":
            break
        time.sleep(0.2)
    return source


def test_new_watch_keeps_a_watcher_that_list_and_changes_use(repo: Path) -> None:
    path, pid = _new_watched(repo, "w")
    assert _running(pid) and os.getpgid(pid) == pid  # its own session: a terminal's Ctrl-C does not reach it
    assert _source(path) == "watch"
    write_files(path, {"agent.txt": "a\n"})
    row = pylon("ws", "list", "--json", cwd=repo).json()["worktrees"][0]
    assert row["dirty"] == {"tracked": 0, "untracked": 1}
    text = pylon("ws", "new", "t", "--watch", cwd=repo)
    assert text.code == 0 and "watching it in the background (pid " in text.err, text
    second = int(text.err.split("(pid ")[1].split(";")[0])
    STARTED.append(second)
    assert pylon("ws", "rm", "w", "--force", cwd=repo).code == 0 and pylon("ws", "rm", "t", cwd=repo).code == 0
    assert not _running(pid) and not _running(second)


def test_rm_stops_the_watcher_before_removing(repo: Path) -> None:
    path, pid = _new_watched(repo, "w")
    _source(path)
    result = pylon("ws", "rm", "w", cwd=repo)
    assert result.code == 0, result
    assert not _running(pid)
    time.sleep(1)  # a watcher left running would have re-made its admin folder by now
    after = world(repo, path.parent)
    assert after["admin"] == [] and after["registry"] == []
    assert not path.exists()


def test_a_refused_rm_leaves_the_watcher_running(repo: Path) -> None:
    path, pid = _new_watched(repo, "w")
    write_files(path, {"work.txt": "uncommitted\n"})
    refused = pylon("ws", "rm", "w", cwd=repo)
    assert refused.code != 0 and "worktree-has-work" in refused.err, refused
    assert _running(pid)
    forced = pylon("ws", "rm", "w", "--force", cwd=repo)
    assert forced.code == 0, forced
    assert not _running(pid)


def test_a_watcher_stops_by_itself_when_its_worktree_is_deleted_and_prune_cleans_up(repo: Path) -> None:
    path, pid = _new_watched(repo, "w")
    _source(path)
    shutil.rmtree(path)
    deadline = time.monotonic() + 20
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(pid)
    pruned = pylon("ws", "prune", "--json", cwd=repo)
    assert pruned.code == 0 and [a["kind"] for a in pruned.json()["actions"]] == ["folder-gone"], pruned


def test_prune_stops_a_watcher_still_running_in_a_leftover(repo: Path) -> None:
    path, pid = _new_watched(repo, "w")
    _source(path)
    os.kill(pid, signal.SIGSTOP)  # it cannot notice the folder going away: prune has to stop it
    try:
        shutil.rmtree(path)
        pruned = pylon("ws", "prune", "--json", cwd=repo)
    finally:
        if _running(pid):
            os.kill(pid, signal.SIGCONT)
    assert pruned.code == 0, pruned
    assert not _running(pid)
    after = world(repo, path.parent)
    assert after["admin"] == [] and after["registry"] == []
