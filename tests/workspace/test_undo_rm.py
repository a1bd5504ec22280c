"""`pylon ws rm ID --force` then `pylon ws undo`: the removed worktree comes back exactly."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot
from tests.workspace.wt_helpers import new, porcelain


def owned_ids(repo: Path) -> list[str]:
    return [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]]


def test_rm_force_then_undo_brings_the_worktree_back_exactly(make_repo: MakeRepo) -> None:
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


def test_rm_force_text_names_undo(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    wt = Path(str(new(repo, "a")["path"]))
    (wt / "x.txt").write_text("x\n")
    result = pylon("ws", "rm", "a", "--force", cwd=repo)
    assert result.code == 0 and "`pylon ws undo` brings the worktree back exactly" in result.err
    listed = pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"]
    assert [(o["kind"], o["status"], o["command"]) for o in listed] == [("rm", "done", "pylon ws rm a --force")]
    json.dumps(listed)


def _rename_module(repo: Path, seq: int, old_name: str) -> None:
    """Rewrite op `seq`'s record as a pylon from before the rooms wrote it: `module` names the old
    module path (same parents, so every state it anchors stays reachable)."""
    ref = f"refs/pylon/ops/{seq:08d}"
    message = git(repo, "cat-file", "commit", ref).split("\n\n", 1)[1]
    title, _, body = message.partition("\n\n")
    record = json.loads(body)
    record["module"] = old_name
    parents = [a for p in git(repo, "rev-list", "--parents", "-n1", ref).split()[1:] for a in ("-p", p)]
    text = f"{title}\n\n{json.dumps(record, sort_keys=True)}\n"
    import subprocess

    commit = subprocess.run(
        ["git", "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", *parents],
        cwd=repo,
        input=text,
        capture_output=True,
        text=True,
        check=True,
        env={
            **__import__("os").environ,
            "GIT_AUTHOR_NAME": "pylon",
            "GIT_AUTHOR_EMAIL": "p@p",
            "GIT_COMMITTER_NAME": "pylon",
            "GIT_COMMITTER_EMAIL": "p@p",
        },
    ).stdout.strip()
    git(repo, "update-ref", ref, commit)


def test_an_op_recorded_before_the_modules_moved_still_undoes(make_repo: MakeRepo) -> None:
    # op records name the module that undoes them; the rooms (issue 19) moved rm_undo, finish and
    # guard_op, and a log written by an earlier pylon must still undo
    repo = make_repo(files={"seed.txt": "seed\n"})
    wt = Path(str(new(repo, "a")["path"]))
    (wt / "work.txt").write_text("w\n")
    assert pylon("ws", "rm", "a", "--force", cwd=repo).code == 0
    _rename_module(repo, 1, "pylon.workspace.rm_undo")
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert (wt / "work.txt").read_text() == "w\n" and owned_ids(repo) == ["a"]


def test_every_module_an_old_op_record_names_resolves() -> None:
    import importlib

    from pylon.workspace.ops.undo import MOVED

    for old, moved_to in MOVED.items():
        assert old.startswith("pylon.workspace.") and hasattr(importlib.import_module(moved_to), "undo_op"), old
