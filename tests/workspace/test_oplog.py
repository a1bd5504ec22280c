"""The op log itself: records under refs/pylon/ops/, interrupted ops, --finish, gc safety, plugins."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot

# A process that writes an op's intent, restores half of its steps' work, and dies (os._exit):
# what a SIGKILL between two steps leaves behind, made deterministic.
HALF_DONE = """
import os, sys
from pylon.workspace.ops import oplog
from pylon.workspace.repo import locate
from pylon.workspace.ops.restore_state import make_state, tree_of
from pylon.workspace.state import capture
co = locate(sys.argv[1])
cur = capture(co)
target = make_state(co, worktree=tree_of(co, "HEAD"), index_tree=tree_of(co, "HEAD"), head=cur.head, branch=cur.branch)
with oplog.op_lock(co):
    op = oplog.begin(co, "restore", [oplog.Step(co.root, cur.commit, target, "keep")], title="restore test")
    os.unlink(os.path.join(co.root, "src/app.py"))  # the first of its changes, then the kill
    os._exit(9)
"""


def half_done(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", HALF_DONE, str(repo)], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr


def dirty_repo(make_repo: MakeRepo) -> Path:
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    mixed_state(repo, seed=21, tag="t")
    return repo


def test_an_interrupted_op_is_named_refused_over_and_reversed(make_repo: MakeRepo) -> None:
    repo = dirty_repo(make_repo)
    before = snapshot(repo)
    half_done(repo)
    status = pylon("ws", "status", cwd=repo)
    assert (
        "interrupted: `restore test` (op 1, intent): reverse it with `pylon ws undo`, or complete it with "
        "`pylon ws undo --finish`"
    ) in status.out, status
    refused = pylon("ws", "restore", "nope", "--json", cwd=repo)
    assert refused.code == 1  # unknown-snapshot is checked first; a real one meets the interrupted op:
    assert pylon("ws", "baseline", "b", cwd=repo).code == 0
    blocked = pylon("ws", "restore", "b", "--json", cwd=repo)
    assert blocked.code == 1 and blocked.json()["error"]["code"] == "op-interrupted"
    assert "pylon ws undo --finish" in blocked.json()["error"]["hint"]
    listed = pylon("ws", "undo", "--list", cwd=repo).out
    assert "interrupted (intent)" in listed
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), before) == []
    assert pylon("ws", "status", "--json", cwd=repo).json()["interrupted"] is None


def test_finish_completes_an_interrupted_op(make_repo: MakeRepo) -> None:
    repo = dirty_repo(make_repo)
    before = snapshot(repo)
    half_done(repo)
    done = pylon("ws", "undo", "--finish", cwd=repo)
    assert done.code == 0 and "finished `restore test`" in done.out, done
    # the op's target: files and index as HEAD has them, untracked files gone, ignored ones kept
    assert git(repo, "status", "--porcelain").strip() == ""
    assert (repo / "keep.log").exists()
    assert pylon("ws", "undo", "--finish", "--json", cwd=repo).json()["error"]["code"] == "nothing-to-finish"
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), before) == []


def test_the_log_survives_gc_and_keeps_what_undo_needs(make_repo: MakeRepo) -> None:
    repo = dirty_repo(make_repo)
    before = snapshot(repo)
    assert pylon("ws", "baseline", "b", cwd=repo).code == 0
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfd")
    mixed_state(repo, seed=22, tag="later")
    (repo / "keep.log").write_text("ignored, changed after t\n")  # ignored: no restore touches it
    later = snapshot(repo)
    assert pylon("ws", "restore", "b", cwd=repo).code == 0
    git(repo, "update-ref", "-d", "refs/pylon/baselines/b")
    git(repo, "update-ref", "-d", "refs/pylon/current")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    assert diff_snapshots(snapshot(repo), before) == []
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), later) == []
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pylon/ops/").split()
    assert refs == ["refs/pylon/ops/00000001"]
    message = git(repo, "log", "-1", "--format=%B", refs[0])
    assert message.startswith("pylon op 00000001 restore: undone")


def test_undo_blocked_by_an_ignored_file_changes_nothing(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n", ".gitignore": "*.log\n"})
    assert pylon("ws", "baseline", "b", cwd=repo).code == 0
    (repo / "out.txt").write_text("untracked, part of the state the restore replaces\n")
    assert pylon("ws", "restore", "b", cwd=repo).code == 0
    assert not (repo / "out.txt").exists()
    with open(repo / ".git/info/exclude", "a") as fh:
        fh.write("out.txt\n")
    (repo / "out.txt").write_text("now an ignored file\n")
    before = snapshot(repo)
    refused = pylon("ws", "undo", "--json", cwd=repo)
    assert refused.code == 1 and refused.json()["error"]["code"] == "restore-blocked", refused
    assert refused.json()["error"]["paths"] == ["out.txt"]
    assert snapshot(repo) == before
    assert pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"][0]["status"] == "done"
    (repo / "out.txt").unlink()
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert (repo / "out.txt").read_text() == "untracked, part of the state the restore replaces\n"
