"""watchsync.py: a reader trusts a running `ws watch` only after a sync proves it has handled every
file event made before the read, so an edit made just before a read is never missed, however late
the watcher's events arrive (PYLON_WATCH_EVENT_DELAY makes the handler slow, as a loaded machine does)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import git, script, sized
from tests.workspace.helpers import pylon, write_files


def _start(cwd: Path, delay: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--debounce", "0.1", "--timeout", "60"],
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


def _vouched(cwd: Path, timeout: float = 30) -> dict:
    """Wait until the watcher vouches (its first capture, and any rescan, settled): its answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = _changes(cwd)
        if doc["source"] == "watch":
            return doc
        time.sleep(0.2)
    raise AssertionError("the watcher never vouched")


@pytest.fixture(params=["main checkout", "linked worktree"])
def checkout(request: pytest.FixtureRequest, repo: Path, tmp_path: Path) -> Path:
    if request.param == "main checkout":
        return repo  # `.git` is a folder: the cookie is a file in .git/pylon
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "linked", str(linked))
    return linked  # `.git` is a file: the cookie is a new mtime on it


@pytest.mark.parametrize("delay", [0.2, 1.5], ids=["sync waits", "sync too late"])
def test_an_edit_right_before_a_read_is_never_missed(checkout: Path, delay: float) -> None:
    # each event reaches the handler `delay` late, long after `ws changes` would have read a stale
    # `fresh`; the write below makes 3 events (created, modified, closed): at 0.2 s the sync waits
    # for them (0.6 s), at 1.5 s it gives up after SYNC_WAIT (1 s) and the reader scans
    proc = _start(checkout, delay)
    try:
        for n in range(sized(1, 2)):
            _vouched(checkout)
            write_files(checkout, {f"late-{n}.txt": f"{n}\n"})
            started = time.monotonic()
            doc = _changes(checkout)
            assert f"late-{n}.txt" in [f["path"] for f in doc["files"]], doc
            assert doc["source"] == "scan"  # the watcher's `fresh` was gone, or the sync said no
            assert time.monotonic() - started >= min(delay, 1.0)  # the reader did wait for the sync
    finally:
        _stop(proc)


def test_a_quiet_checkout_is_read_from_the_watcher(checkout: Path) -> None:
    write_files(checkout, {"kept.txt": "k\n"})
    proc = _start(checkout, 0)
    try:
        _vouched(checkout)
        docs = [_changes(checkout) for _ in range(3)]
        assert [d["source"] for d in docs] == ["watch"] * 3
        assert all([f["path"] for f in d["files"]] == ["kept.txt"] for d in docs)
    finally:
        _stop(proc)


def test_trust_comes_back_once_a_late_cookie_arrives(repo: Path) -> None:
    proc = _start(repo, 1.5)
    try:
        _vouched(repo)
        write_files(repo, {"slow.txt": "s\n"})
        doc = _changes(repo)  # the cookie is behind 3 events of 1.5 s: "no", so a scan
        assert doc["source"] == "scan" and "slow.txt" in [f["path"] for f in doc["files"]]
        _vouched(repo)  # once the events are handled and the rescan settles, the watcher is trusted again
        assert "slow.txt" in [f["path"] for f in _changes(repo)["files"]]
    finally:
        _stop(proc)


def test_a_vouch_is_trusted_only_from_the_process_that_answers(repo: Path) -> None:
    proc = _start(repo, 0)
    try:
        _vouched(repo)
        fresh = Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "pylon" / "fresh"
        text = fresh.read_text()
        assert f"pid\t{proc.pid}\n" in text
        fresh.write_text(text.replace(f"pid\t{proc.pid}\n", "pid\t1\n"))  # not the watcher's pid
        assert _changes(repo)["source"] == "scan"
    finally:
        _stop(proc)
