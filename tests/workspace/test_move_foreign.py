"""Foreign worktrees are never touched by `ws move`, `move --back` or `undo` (the kinds of
test_worktrees_foreign: plain, locked by another, adopted folder, hand-edited registry records)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import fast_few
from tests.workspace.helpers import pylon
from tests.workspace.test_worktrees_foreign import KINDS, make_foreign, untouched
from tests.workspace.wt_helpers import new, tree_files


def world_without_ops(repo: Path, root: Path) -> dict[str, object]:
    found = untouched(repo, root)
    found["refs"] = "".join(
        line + "\n"
        for line in str(found["refs"]).splitlines()
        if not line.startswith(("refs/pylon/ops/", "refs/pylon/current ", "refs/heads/main "))
    )
    return found


# every kind is told apart by tests/workspace/test_worktrees_foreign.py; a move passes each by one path
@pytest.mark.parametrize("kind", fast_few(KINDS, {"plain", "locked-by-other", "edited-path"}))
def test_move_and_undo_never_touch_a_foreign_worktree(repo: Path, tmp_path: Path, kind: str) -> None:
    owned = new(repo, "mine")
    root = Path(str(owned["path"])).parent
    wid = make_foreign(repo, kind, root, tmp_path)
    before = world_without_ops(repo, root)
    files_before = {str(p): tree_files(p) for p in [*root.iterdir(), tmp_path / "elsewhere"] if p.is_dir()}
    for args in (["ws", "move", wid], ["ws", "move", wid, "--back"]):
        result = pylon(*args, "--json", cwd=repo)
        assert result.code == 1, result
        assert result.json()["error"]["code"] in ("foreign-worktree", "unknown-worktree")
    for args in (["ws", "move", "mine"], ["ws", "move", "mine", "--back"], ["ws", "undo"], ["ws", "undo"]):
        assert pylon(*args, cwd=repo).code == 0, args
    assert world_without_ops(repo, root) == before
    assert {str(p): tree_files(p) for p in [*root.iterdir(), tmp_path / "elsewhere"] if p.is_dir()} == files_before
