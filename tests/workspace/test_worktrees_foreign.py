"""Foreign worktrees are never listed as owned, changed or removed: plain `git worktree add`, locked
by someone else, a folder in pylon's root pylon did not create, hand-edited registry records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new, porcelain, tree_files, world


def untouched(repo: Path, root: Path) -> dict[str, Any]:
    """world() without the anchors of pylon's own captures (refs/pylon/current, and each linked
    worktree's refs/pylon/worktrees/<admin>/current: `ws list` and `ws conflicts` read the live
    foreign worktrees too, on a private index), plus every byte of git's own admin files of the
    worktrees (their index, HEAD, lock): those pylon never writes."""
    found = world(repo, root)
    found["refs"] = "".join(
        line + "\n"
        for line in str(found["refs"]).splitlines()
        if not line.startswith("refs/pylon/current ")
        and not (line.startswith("refs/pylon/worktrees/") and line.split()[0].endswith("/current"))
    )
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    admin = (common if common.is_absolute() else repo / common) / "worktrees"
    found["git-files"] = (
        {
            str(p.relative_to(admin)): p.read_bytes()
            for p in sorted(admin.rglob("*"))
            if p.is_file() and "pylon" not in p.relative_to(admin).parts
        }
        if admin.exists()
        else {}
    )
    return found


def registry(repo: Path) -> Path:
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    return (common if common.is_absolute() else repo / common) / "pylon" / "owned"


def make_foreign(repo: Path, kind: str, root: Path, tmp_path: Path) -> str:
    """Set up one foreign worktree; returns the id a user might try on it."""
    if kind == "plain":
        git(repo, "worktree", "add", "-q", "-b", "pylon-session-plain", str(root / "plain"))
        return "plain"
    if kind == "locked-by-other":
        git(
            repo,
            "worktree",
            "add",
            "-q",
            "--lock",
            "--reason",
            "agent-x holds this",
            "-b",
            "pylon-session-other",
            str(root / "other"),
        )
        return "other"
    if kind == "adopted-folder":
        write_files(root / "adopted", {"notes.txt": "mine\n"})
        return "adopted"
    if kind in ("edited-branch", "edited-path", "switched-branch", "relocked"):
        made = new(repo, "edited")
        path = Path(str(made["path"]))
        record_file = registry(repo) / "edited.json"
        record = json.loads(record_file.read_text())
        if kind == "edited-branch":
            record["branch"] = "main"
        elif kind == "edited-path":
            git(repo, "worktree", "add", "-q", str(tmp_path / "elsewhere"))
            record["path"] = str(tmp_path / "elsewhere")
        elif kind == "switched-branch":
            git(path, "switch", "-q", "-c", "someone-elses")
        else:
            git(repo, "worktree", "unlock", str(path))
            git(repo, "worktree", "lock", "--reason", "pylon owned worktree edited [forged]", str(path))
        record_file.write_text(json.dumps(record))
        write_files(path, {"work.txt": "agent work\n"})
        return "edited"
    raise AssertionError(kind)


KINDS = ["plain", "locked-by-other", "adopted-folder", "edited-branch", "edited-path", "switched-branch", "relocked"]


@pytest.mark.parametrize("kind", KINDS)
def test_foreign_worktrees_are_never_touched(repo: Path, tmp_path: Path, kind: str) -> None:
    owned = new(repo, "mine")
    root = Path(str(owned["path"])).parent
    wid = make_foreign(repo, kind, root, tmp_path)
    before = untouched(repo, root)
    files_before = {str(p): tree_files(p) for p in root.iterdir() if p.is_dir()}
    listed = pylon("ws", "list", "--json", cwd=repo).json()
    assert [w["id"] for w in listed["worktrees"]] == ["mine"]
    assert listed["foreign"] >= 1
    live = listed["others"]  # every live worktree of the repository is in the picture, none as pylon's
    assert all(o["owned"] is False for o in live)
    if kind in ("plain", "locked-by-other"):
        assert [(o["made_by"]["client"], Path(o["path"]).name) for o in live] == [("git", wid)]
    elif kind in ("switched-branch", "relocked"):  # pylon made it, but its proof fails: named, with why
        assert [(o["made_by"]["client"], o["made_by"]["name"]) for o in live] == [("pylon", "edited")]
    for args in (["ws", "rm", wid, "--force"], ["ws", "rm", wid], ["ws", "path", wid], ["ws", "conflicts", wid]):
        result = pylon(*args, cwd=repo)
        assert result.code == 1, result
        assert "foreign-worktree" in result.err or "unknown-worktree" in result.err
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert pylon("ws", "conflicts", cwd=repo).code == 0
    assert untouched(repo, root) == before
    assert {str(p): tree_files(p) for p in root.iterdir() if p.is_dir()} == files_before
    # and the owned one still works as before
    assert pylon("ws", "rm", "mine", cwd=repo).code == 0
    assert len(porcelain(repo)) == len(before["worktrees"]) - 1
