"""`pylon ws watch`: reports a change made right after it starts; overflow means a rescan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import inotify_masks, script
from tests.workspace.helpers import pylon, write_files


def _start(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--json", "--debounce", "0.2", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()  # "pylon: watching ..." once it is ready
    assert "watching" in line, line
    return proc


def _lines(proc: subprocess.Popen) -> list[dict]:
    out, _ = proc.communicate(timeout=60)
    lines = [json.loads(x) for x in out.decode().splitlines() if x.strip()]
    assert lines[0]["event"] == "ready" and all(line["ok"] is True for line in lines), lines[:1]
    return [line for line in lines if line["event"] == "batch"]


def test_change_right_after_start_is_reported(repo: Path) -> None:
    proc = _start(repo, "--timeout", "4")
    write_files(repo, {"right-away.txt": "now\n"})
    lines = _lines(proc)
    assert proc.returncode == 0
    paths = [f["path"] for line in lines for f in line["files"]]
    assert "right-away.txt" in paths
    assert all(line["overflow"] is False for line in lines)


def test_queue_overflow_rescans_and_misses_nothing(repo: Path) -> None:
    # The folder exists first: files written into a folder made after the start may all land before
    # its watch, and then its one event and a rescan report them (no queue to overflow).
    (repo / "burst").mkdir()
    proc = _start(repo, "--timeout", "5", env={"PYLON_WATCH_QUEUE_MAX": "3"})
    write_files(repo, {f"burst/f{i:02d}.txt": f"{i}\n" for i in range(40)})
    lines = _lines(proc)
    reported = {f["path"] for line in lines for f in line["files"]}
    assert reported == {f"burst/f{i:02d}.txt" for i in range(40)}
    assert any(line["overflow"] for line in lines)


def test_running_watch_vouches_for_the_current_state(repo: Path) -> None:
    proc = _start(repo, "--timeout", "6")
    try:
        time.sleep(0.5)
        r = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo)
        assert r.json()["source"] == "watch"
        write_files(repo, {"seen.txt": "x\n"})
        deadline = time.time() + 4
        paths: list[str] = []
        while time.time() < deadline:
            doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
            paths = [f["path"] for f in doc["files"]]
            if "seen.txt" in paths:
                break
        assert "seen.txt" in paths  # never a stale answer: scan while the watcher settles
    finally:
        _lines(proc)
    after = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert after["source"] == "scan"


def test_since_emits_the_backlog_first(repo: Path) -> None:
    write_files(repo, {"backlog.txt": "b\n"})
    proc = _start(repo, "--since", "HEAD", "--timeout", "1")
    lines = _lines(proc)
    assert lines and lines[0]["initial"] is True and lines[0]["since"] == "HEAD"
    assert [f["path"] for f in lines[0]["files"]] == ["backlog.txt"]
    _ = sys  # keep imports honest


def test_text_lines_say_when_head_moved(repo: Path) -> None:
    # JSON carries `head` on every batch; the text line of the next batch names the move, as `ws run` does.
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--debounce", "0.2", "--timeout", "5"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None and "watching" in proc.stderr.readline().decode()
    before = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    write_files(repo, {"first.txt": "1\n"})
    time.sleep(1.2)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "moved"], cwd=repo, check=True)
    after = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    write_files(repo, {"second.txt": "2\n"})  # the next batch (a commit alone leaves the files as they were)
    out, _ = proc.communicate(timeout=60)
    assert f"[HEAD {before[:12]} -> {after[:12]}]" in out.decode(), out.decode()


def test_reading_the_tree_is_not_asked_of_the_kernel(repo: Path) -> None:
    # Opening a file and closing it unwritten is no change. A watcher that asks the kernel for
    # those events (IN_OPEN 0x20, IN_CLOSE_NOWRITE 0x10) has its queue (16,384 events by default)
    # filled by every read of the tree: on ten 80,000-file worktrees one `ws list` overflowed it,
    # and the watchers rescanned instead of vouching. Asked: only what can be a change.
    write_files(repo, {"sub/a.txt": "x\n"})
    proc = _start(repo)  # until stopped: a short --timeout could end it before its watches are read, under load
    try:
        masks = inotify_masks(proc.pid)
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    assert masks, "no inotify watch found"
    assert all(mask & 0x30 == 0 for mask in masks), [hex(m) for m in masks]
    assert all(mask & 0x302 == 0x302 for mask in masks)  # IN_MODIFY, IN_CREATE, IN_DELETE still asked
