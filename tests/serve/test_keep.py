"""The board's keeper (pylon/serve/keep.py): a worktree's side is read again exactly when a change
was seen under that worktree or in the git dir; surveys are kept only while nothing changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pylon.serve.keep import Keeper
from pylon.workspace.repo import locate
from pylon.workspace.worktrees.listing import list_worktrees
from tests.conftest import MakeRepo, run_cmd


def _scene(make_repo: MakeRepo) -> tuple[Path, Path, Path, Keeper]:
    repo = make_repo({"a.txt": "x\n"})
    one = Path(json.loads(run_cmd("pylon", "ws", "new", "w1", "--json", cwd=repo).out)["path"])
    two = Path(json.loads(run_cmd("pylon", "ws", "new", "w2", "--json", cwd=repo).out)["path"])
    keep = Keeper()
    git_dir = os.path.realpath(repo / ".git")
    keep.ready(frozenset({str(repo), str(one), str(two)}), [git_dir])
    return repo, one, two, keep


def test_a_side_is_read_again_only_after_a_change_under_it(make_repo: MakeRepo) -> None:
    repo, one, two, keep = _scene(make_repo)
    first = {p: keep.side(str(p)) for p in (repo, one, two)}
    assert all(keep.side(str(p)) is first[p] for p in first)  # nothing seen: all kept
    (one / "new.txt").write_text("n\n")
    keep.changed(str(one / "new.txt"))
    again = {p: keep.side(str(p)) for p in first}
    assert again[one] is not first[one] and again[two] is first[two] and again[repo] is first[repo]
    keep.changed(os.path.realpath(repo / ".git" / "worktrees" / "w2" / "HEAD"))  # the git dir: every side
    assert all(keep.side(str(p)) is not again[p] for p in first)


def test_a_root_not_watched_is_never_kept_nor_a_survey_using_it(make_repo: MakeRepo) -> None:
    repo, one, two, keep = _scene(make_repo)
    keep.watched = frozenset({str(repo), str(one)})  # w2's watch not in place yet
    assert keep.side(str(two)) is not keep.side(str(two))
    doc, age = keep.survey("agents", lambda read: list_worktrees(locate(str(repo)), read))
    assert age == 0.0 and keep.survey("agents", lambda read: list_worktrees(locate(str(repo)), read))[1] == 0.0
    keep.watched = frozenset({str(repo), str(one), str(two)})
    keep.survey("agents", lambda read: list_worktrees(locate(str(repo)), read))
    kept, age = keep.survey("agents", lambda read: list_worktrees(locate(str(repo)), read))
    assert age > 0 and kept["worktrees"] == doc["worktrees"]


def test_nothing_is_kept_before_the_watcher_is_ready(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "x\n"})
    keep = Keeper()
    assert keep.side(str(repo)) is not keep.side(str(repo))
    keep.changed(str(repo / "a.txt"))  # ignored: not watching
    assert keep.generation == -1 and not keep.watching
