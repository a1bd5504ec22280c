"""`pylon ws rm ID --force` then `pylon ws undo`: the removed worktree comes back exactly."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot
from tests.workspace.wt_helpers import new, porcelain


def owned_ids(repo: Path) -> list[str]:
    return [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]]


def test_rm_force_then_undo_brings_the_worktree_back_exactly(make_repo) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    wt = Path(str(new(repo, "a")["path"]))
    (wt / "committed.txt").write_text("c\n")
    git(wt, "add", "committed.txt")
    git(wt, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "work")
    mixed_state(wt, seed=7, tag="a")
    (wt / "keep.log").unlink()  # ignored files are not part of any state; leave none to compare
    before = snapshot(wt)
    tip = git(repo, "rev-parse", "pylon-session-a").strip()
    removed = pylon("ws", "rm", "a", "--force", "--json", cwd=repo)
    assert removed.code == 0, removed
    assert removed.json()["op"] == 1 and not wt.exists()
    git(repo, "gc", "-q", "--prune=now")
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert diff_snapshots(snapshot(wt), before) == []
    assert git(repo, "rev-parse", "pylon-session-a").strip() == tip
    assert owned_ids(repo) == ["a"]  # owned again: record, lock reason and token all agree
    entry = next(e for e in porcelain(repo) if e.get("worktree") == str(wt))
    assert entry["locked"].startswith("pylon owned worktree a [")
    again = pylon("ws", "rm", "a", "--force", cwd=repo)  # and it can be removed again
    assert again.code == 0, again


def test_rm_force_text_names_undo(make_repo) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo(files={"seed.txt": "seed\n"})
    wt = Path(str(new(repo, "a")["path"]))
    (wt / "x.txt").write_text("x\n")
    result = pylon("ws", "rm", "a", "--force", cwd=repo)
    assert result.code == 0 and "`pylon ws undo` brings the worktree back exactly" in result.err
    listed = pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"]
    assert [(o["kind"], o["status"], o["command"]) for o in listed] == [("rm", "done", "pylon ws rm a --force")]
    json.dumps(listed)
