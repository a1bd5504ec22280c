"""git's lock files and pylon: writers that a kill of pylon's job cannot stop half-way, locks held
by someone else waited for, and a lock left by a killed git reported as `git-locked` (the file and
the safe way out), before anything changed where that can be known."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from pylon.errors import PylonError
from pylon.workspace import git as pgit
from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, snapshot
from tests.workspace.wt_helpers import dirty_pair


def release_later(lock: Path, after: float) -> threading.Thread:
    def remove() -> None:
        time.sleep(after)
        lock.unlink()

    thread = threading.Thread(target=remove)
    thread.start()
    return thread


def scene(make_repo: MakeRepo) -> tuple[Path, Path]:
    return dirty_pair(make_repo, "a", (3, 4))


def test_writers_start_in_a_process_group_of_their_own(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    writer = pgit.GitProcess(["update-ref", "refs/pylon/test", head], cwd=str(repo))
    reader = pgit.GitProcess(["rev-parse", "HEAD"], cwd=str(repo))
    # a process not yet reaped (running or a zombie) still has its group
    assert os.getpgid(writer.pid) == writer.pid != os.getpgrp()
    assert os.getpgid(reader.pid) == os.getpgrp()
    assert writer.wait()[0] == 0 and reader.wait()[0] == 0
    assert git(repo, "rev-parse", "refs/pylon/test").strip() == head
    assert pgit.subcommand(["-c", "core.x=1", "-C", "d", "update-index", "-q"]) == "update-index"
    assert pgit.subcommand(["--no-optional-locks", "status"]) == "status"


def test_the_lock_in_gits_message_is_read_back(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    code, _, err = pgit.GitProcess(["read-tree", "HEAD"], cwd=str(repo)).wait()  # git's real message
    assert code == 128
    assert pgit.held_lock(err) == str(lock)
    assert pgit.held_lock(b"fatal: not a git repository") is None


def test_a_lock_that_stays_is_git_locked_with_the_way_out(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    monkeypatch.setattr(pgit, "LOCK_WAIT", 0.3)
    start = time.monotonic()
    with pytest.raises(PylonError) as caught:
        pgit.run(["read-tree", "HEAD"], cwd=str(repo))
    assert time.monotonic() - start >= 0.3  # waited before giving up
    assert caught.value.code == "git-locked"
    assert str(lock) in caught.value.message and f"rm '{lock}'" in (caught.value.hint or "")
    assert caught.value.details["lock"] == str(lock) and caught.value.details["git_exit"] == 128


def test_a_lock_released_within_the_wait_is_waited_for(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    thread = release_later(lock, 0.5)
    pgit.run(["update-index", "--refresh"], cwd=str(repo))  # ran once the lock had gone
    thread.join()
    assert not lock.exists()


def test_an_op_waits_for_a_lock_held_briefly(make_repo: MakeRepo) -> None:
    repo, wt = scene(make_repo)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    thread = release_later(lock, 0.7)
    moved = pylon("ws", "move", "a", "--json", cwd=repo)
    thread.join()
    assert moved.code == 0, moved
    assert pylon("ws", "undo", cwd=repo).code == 0


def test_a_left_lock_refuses_an_op_before_it_starts(make_repo: MakeRepo) -> None:
    repo, wt = scene(make_repo)
    before = {"main": snapshot(repo), "wt": snapshot(wt)}
    ops = git(repo, "for-each-ref", "refs/pylon/ops/")
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")  # as a git killed while writing the index leaves it
    refused = pylon("ws", "move", "a", "--json", cwd=repo)
    assert refused.code == 1, refused
    error = refused.json()["error"]
    assert error["code"] == "git-locked" and error["lock"] == str(lock)
    assert "Nothing was changed" in error["message"] and f"rm '{lock}'" in error["hint"]
    text = pylon("ws", "move", "a", cwd=repo)
    assert text.code == 1 and "Traceback" not in text.err and f"rm '{lock}'" in text.err
    lock.unlink()
    assert git(repo, "for-each-ref", "refs/pylon/ops/") == ops  # no op was begun
    assert diff_snapshots(snapshot(repo), before["main"]) == [] and diff_snapshots(snapshot(wt), before["wt"]) == []


def test_undo_after_a_killed_git_names_the_lock_then_gives_everything_back(make_repo: MakeRepo) -> None:
    repo, wt = scene(make_repo)
    before = {"main": snapshot(repo), "wt": snapshot(wt)}
    assert pylon("ws", "move", "a", cwd=repo).code == 0
    lock = repo / ".git" / "index.lock"  # the checkout the move wrote
    lock.write_bytes(b"")
    moved = {"main": snapshot(repo), "wt": snapshot(wt)}
    refused = pylon("ws", "undo", "--json", cwd=repo)
    assert refused.code == 1 and refused.json()["error"]["code"] == "git-locked", refused
    assert refused.json()["error"]["lock"] == str(lock)
    assert diff_snapshots(snapshot(repo), moved["main"]) == [] and diff_snapshots(snapshot(wt), moved["wt"]) == []
    lock.unlink()
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), before["main"]) == [] and diff_snapshots(snapshot(wt), before["wt"]) == []
