"""A capture killed after it staged the working tree into its kept private index, before it wrote
the record that says what that index holds, must not be trusted by the next capture.

The next capture's `git status` runs on that kept index, which already holds the change, so it sees
nothing to stage: before the fix it answered the previous capture's tree, and a redo after a killed
redo took the apply's 108 files, gone since the undo, for later work and kept them gone
(tests/workspace/test_undo_crash.py under load). The kill is reproduced exactly: git itself stages
the change into the kept index, as the killed capture's `git update-index` did."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.workspace.helpers import pylon, write_files


def _fingerprint(repo: Path) -> dict[str, object]:
    r = pylon("ws", "fingerprint", "--json", cwd=repo)
    assert r.code == 0, r
    return dict(r.json())


def _tree_files(repo: Path, tree: str) -> list[str]:
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", "-z", tree], cwd=repo, capture_output=True, check=True)
    return sorted(p for p in out.stdout.decode().split("\0") if p)


def test_a_kept_index_newer_than_its_record_is_not_reused(repo: Path) -> None:
    write_files(repo, {"a.txt": "a\n", "gone.txt": "soon gone\n"})
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "two files"], cwd=repo, check=True)
    _fingerprint(repo)  # the kept index and its record, warm
    pylon_dir = repo / ".git" / "pylon"
    record = json.loads((pylon_dir / "state.json").read_text())
    assert "gone.txt" in _tree_files(repo, str(record["worktree"]))
    os.unlink(repo / "gone.txt")
    # what a capture killed between its staging and its record leaves: the kept index knows the
    # deletion, the record still names the tree with gone.txt
    env = {**os.environ, "GIT_INDEX_FILE": str(pylon_dir / "index")}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    assert json.loads((pylon_dir / "state.json").read_text())["worktree"] == record["worktree"]
    _fingerprint(repo)
    after = json.loads((pylon_dir / "state.json").read_text())
    files = _tree_files(repo, str(after["worktree"]))
    assert "a.txt" in files and "gone.txt" not in files
