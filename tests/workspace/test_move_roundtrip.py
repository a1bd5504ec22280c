"""`pylon ws move ID` / `--back` / `undo`: exact round trips, with git's own view as the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeRepo, Result, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, files, snapshot
from tests.workspace.wt_helpers import dirty_pair


@pytest.fixture
def pair(make_repo: MakeRepo) -> tuple[Path, Path]:
    """A main checkout and one owned worktree, both with a mixed dirty state of their own."""
    return dirty_pair(make_repo, "agent-1", (1, 2))


def tracked_view(root: Path) -> dict[str, object]:
    """What a move must carry: index entries, and the files minus the ignored ones."""
    ignored = set(git(root, "ls-files", "--others", "--ignored", "--exclude-standard").splitlines())
    return {"index": git(root, "ls-files", "-s"), "files": {k: v for k, v in files(root).items() if k not in ignored}}


@pytest.mark.parametrize("seed", [3, 4])
def test_move_then_back_gives_back_both_checkouts_exactly(make_repo: MakeRepo, seed: int) -> None:
    repo, wt = dirty_pair(make_repo, "agent-1", (seed, seed + 10))
    main_before, wt_before = snapshot(repo), snapshot(wt)
    moved = pylon("ws", "move", "agent-1", "--json", cwd=repo)
    assert moved.code == 0, moved
    doc = moved.json()
    # the main checkout now has the worktree's files and staged index, HEAD detached at its commit
    assert tracked_view(repo) == tracked_view(wt)
    assert git(repo, "rev-parse", "HEAD").strip() == wt_before["head"] == doc["head"]
    assert git(repo, "symbolic-ref", "-q", "HEAD", check=False) == ""
    assert (repo / "keep.log").read_text() == "ignored, changed after main\n"  # ignored: never touched
    assert snapshot(wt) == wt_before
    back = pylon("ws", "move", "agent-1", "--back", cwd=repo)
    assert back.code == 0, back
    assert diff_snapshots(snapshot(repo), main_before) == []
    assert diff_snapshots(snapshot(wt), wt_before) == []


def test_move_then_undo_gives_back_the_main_checkout(pair: tuple[Path, Path]) -> None:
    repo, wt = pair
    before = snapshot(repo)
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0 and "undid `move agent-1`" in undone.out, undone
    assert diff_snapshots(snapshot(repo), before) == []


def test_back_then_undo_then_undo_walks_back(pair: tuple[Path, Path]) -> None:
    repo, wt = pair
    before, wt_before = snapshot(repo), snapshot(wt)
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    (repo / "fix in main.txt").write_text("the person's fix\n")
    moved = snapshot(repo)
    assert pylon("ws", "move", "agent-1", "--back", cwd=repo).code == 0
    assert (wt / "fix in main.txt").read_text() == "the person's fix\n"
    assert pylon("ws", "undo", cwd=repo).code == 0  # the back
    assert diff_snapshots(snapshot(repo), moved) == [] and diff_snapshots(snapshot(wt), wt_before) == []
    assert pylon("ws", "undo", cwd=repo).code == 0  # the move: its own change reversed, the later fix kept
    assert (repo / "fix in main.txt").read_text() == "the person's fix\n"
    (repo / "fix in main.txt").unlink()
    assert diff_snapshots(snapshot(repo), before) == []
    listed = pylon("ws", "undo", "--list", "--json", cwd=repo).json()
    assert [(o["kind"], o["status"]) for o in listed["ops"]] == [("move-back", "undone"), ("move", "undone")]
    nothing = pylon("ws", "undo", "--json", cwd=repo)
    assert nothing.code == 1 and nothing.json()["error"]["code"] == "nothing-to-undo"


def test_commits_made_in_the_main_checkout_go_back_on_the_session_branch(pair: tuple[Path, Path]) -> None:
    repo, wt = pair
    before = snapshot(repo)
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "made while moved")
    made = git(repo, "rev-parse", "HEAD").strip()
    back = pylon("ws", "move", "agent-1", "--back", "--json", cwd=repo)
    assert back.code == 0 and back.json()["committed"] is True, back
    assert git(wt, "rev-parse", "HEAD").strip() == made
    assert git(wt, "symbolic-ref", "HEAD").strip() == "refs/heads/pylon-session-agent-1"
    assert diff_snapshots(snapshot(repo), before) == []


def _code(result: Result) -> str:
    return str(result.json()["error"]["code"])


def test_refusals_name_the_way_out_and_change_nothing(pair: tuple[Path, Path]) -> None:
    repo, wt = pair
    before = snapshot(repo)
    back = pylon("ws", "move", "agent-1", "--back", "--json", cwd=repo)
    assert back.code == 1 and _code(back) == "no-active-move"
    assert pylon("ws", "move", "nope", "--json", cwd=repo).code == 1
    assert snapshot(repo) == before
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    again = pylon("ws", "move", "agent-1", cwd=repo)
    assert again.code == 1 and "move-active" in again.err and "pylon ws move agent-1 --back" in again.err
    # the main branch moved while the worktree's state was in the main checkout
    old = git(repo, "rev-parse", "main").strip()
    git(repo, "update-ref", "refs/heads/main", git(repo, "rev-parse", "main~1").strip())
    moved = snapshot(repo)
    refused = pylon("ws", "move", "agent-1", "--back", cwd=repo)
    assert refused.code == 1 and "branch-moved" in refused.err and f"git branch -f main {old}" in refused.err
    assert snapshot(repo) == moved
    git(repo, "update-ref", "refs/heads/main", old)
    # the worktree changed since the move: sending back would replace that work
    (wt / "agent kept working.txt").write_text("x\n")
    changed = pylon("ws", "move", "agent-1", "--back", "--json", cwd=repo)
    assert (
        changed.code == 1
        and _code(changed) == "worktree-changed"
        and "pylon ws undo" in changed.json()["error"]["hint"]
    )
    (wt / "agent kept working.txt").unlink()
    assert pylon("ws", "move", "agent-1", "--back", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), before) == []


def test_refused_during_a_merge(pair: tuple[Path, Path]) -> None:
    repo, _wt = pair
    (repo / ".git" / "MERGE_HEAD").write_text(git(repo, "rev-parse", "HEAD"))
    before = snapshot(repo)
    refused = pylon("ws", "move", "agent-1", "--json", cwd=repo)
    assert refused.code == 1 and _code(refused) == "operation-in-progress"
    assert "git merge --abort" in refused.json()["error"]["hint"]
    assert snapshot(repo) == before


def test_status_names_the_move_in_effect(pair: tuple[Path, Path]) -> None:
    repo, _wt = pair
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    doc = pylon("ws", "status", "--json", cwd=repo).json()
    assert doc["moved_in"] == "agent-1" and doc["interrupted"] is None
    assert doc["ops"][0]["kind"] == "move"
    text = pylon("ws", "status", cwd=repo).out
    assert "pylon ws move agent-1 --back" in text
    removing = pylon("ws", "rm", "agent-1", "--force", "--json", cwd=repo)  # it would strand the moved state
    assert removing.code == 1 and _code(removing) == "move-active"
    assert "pylon ws move agent-1 --back" in removing.json()["error"]["hint"]


def test_undo_is_refused_during_a_merge_too(pair: tuple[Path, Path]) -> None:
    repo, _wt = pair
    before = snapshot(repo)
    assert pylon("ws", "move", "agent-1", cwd=repo).code == 0
    merge_head = repo / ".git" / "MERGE_HEAD"
    merge_head.write_text(git(repo, "rev-parse", "HEAD"))
    moved = snapshot(repo)
    refused = pylon("ws", "undo", "--json", cwd=repo)
    assert refused.code == 1 and _code(refused) == "operation-in-progress"
    assert snapshot(repo) == moved
    merge_head.unlink()
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert diff_snapshots(snapshot(repo), before) == []
