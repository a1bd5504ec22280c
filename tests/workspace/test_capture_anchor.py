"""The kept private index is reused only while the ref that anchors its last commit still names it.

A capture that finds `capture.lock` held works on a throwaway index and moves
refs/pylon/current to a commit of its own. The next capture on the kept index must anchor its
state again (before the fix it kept the older commit, unanchored, and every later capture started
cold from a copy of the real index)."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

from tests.conftest import git
from tests.workspace.helpers import pylon, write_files


def _meta_commit(repo: Path) -> str:
    return str(json.loads((repo / ".git" / "pylon" / "state.json").read_text())["commit"])


def _trace(repo: Path, tmp_path: Path, name: str) -> list[str]:
    """The git commands one `ws fingerprint` ran, from git's own trace."""
    log = tmp_path / f"{name}.trace"
    r = pylon("ws", "fingerprint", cwd=repo, env={"GIT_TRACE2_EVENT": str(log)})
    assert r.code == 0, r
    found = []
    for line in log.read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "start":
            argv = list(event["argv"][1:])
            while argv and argv[0] in ("-c", "-C"):
                argv = argv[2:]
            found.append(argv[0])
    return found


def test_a_capture_after_one_on_a_throwaway_index_anchors_again_and_stays_warm(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"dirty.txt": "d\n", "src/app.py": "changed\n"})
    pylon("ws", "fingerprint", cwd=repo)
    ref = "refs/pylon/current"
    assert git(repo, "rev-parse", ref).strip() == _meta_commit(repo)
    fd = os.open(repo / ".git" / "pylon" / "capture.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as another capture would: this one takes a throwaway index
        time.sleep(1.1)  # a commit of its own (the capture time is in the message), for the same state
        pylon("ws", "fingerprint", cwd=repo)
    finally:
        os.close(fd)
    assert git(repo, "rev-parse", ref).strip() != _meta_commit(repo)  # the kept index's commit lost its anchor
    _trace(repo, tmp_path, "rebuild")  # starts again from the real index and anchors its commit
    assert git(repo, "rev-parse", ref).strip() == _meta_commit(repo)
    warm = _trace(repo, tmp_path, "warm")
    # no write-tree when nothing was staged into the kept index (a cold start writes the copied
    # index's tree too) and the anchored commit kept; update-index may run: files hashed within the
    # same second are hashed again (index.at_risk), and then their tree is written
    assert warm.count("write-tree") == ("update-index" in warm) and "commit-tree" not in warm, warm
