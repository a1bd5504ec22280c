"""`--in ID`: a ws command (and `pylon read`/`edit`) run in an owned worktree from anywhere, with the
same answer as `-C "$(pylon ws path ID)"` (the workaround it replaces)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new


@pytest.mark.parametrize(
    "argv",
    [
        ["ws", "changes", "--json"],
        ["ws", "diff"],
        ["ws", "cat", "notes.txt"],
        ["ws", "fingerprint"],
        ["ws", "status", "--json"],
        ["read", "notes.txt"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_in_answers_as_dash_c_would(repo: Path, argv: list[str]) -> None:
    path = Path(str(new(repo, "agent")["path"]))
    write_files(path, {"notes.txt": "agent's line\n", "a.txt": "changed in the worktree\n"})
    via_c = pylon("-C", str(path), *argv, cwd=repo)
    via_in = pylon(*argv[:2], "--in", "agent", *argv[2:], cwd=repo)
    assert via_c.code == 0, via_c
    assert (via_in.code, via_in.out) == (via_c.code, via_c.out), via_in
    here = pylon(*argv, cwd=repo)  # without it: the checkout itself, which has none of this
    assert here.out != via_in.out


def test_in_edits_the_worktree_not_the_checkout(repo: Path) -> None:
    path = Path(str(new(repo, "agent")["path"]))
    write_files(path, {"notes.txt": "one\ntwo\n"})
    read = pylon("read", "--in", "agent", "notes.txt", cwd=repo)
    tag = read.out.splitlines()[0].split("#")[1].rstrip("]")
    done = pylon("edit", "--in", "agent", f"notes.txt#{tag}", "--replace", "2", "TWO", cwd=repo)
    assert done.code == 0, done
    assert (path / "notes.txt").read_text() == "one\nTWO\n"
    assert not (repo / "notes.txt").exists()


def test_in_an_unknown_worktree_is_refused_with_the_list_command(repo: Path) -> None:
    r = pylon("ws", "changes", "--in", "nobody", "--json", cwd=repo)
    assert r.code == 1 and r.json()["error"]["code"] == "unknown-worktree", r
    assert r.json()["error"]["hint"] == "pylon ws list"
