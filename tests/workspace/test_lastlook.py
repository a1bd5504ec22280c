"""The last look before a restore writes: a file edited between the capture an op works from and
its first write is never overwritten (`changed-meanwhile`, nothing written), and the op is closed
rather than left for `ws undo` (whose restore would take the edit away)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pylon.errors import PylonError
from pylon.workspace.commits import State
from pylon.workspace.ops import oplog, oprun
from pylon.workspace.ops.restore_state import restore
from pylon.workspace.repo import locate
from pylon.workspace.state import capture
from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot
from tests.workspace.wt_helpers import new


@pytest.fixture
def scene(make_repo: MakeRepo) -> Path:
    """A checkout with a baseline `b1`, then changed again: restoring b1 rewrites and deletes files."""
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    mixed_state(repo, seed=21, tag="later")
    (repo / "src/app.py").write_text("changed after b1\n")
    (repo / "extra.txt").write_text("made after b1\n")  # restoring b1 deletes it
    return repo


def b1(repo: Path) -> str:
    return git(repo, "rev-parse", "refs/pylon/baselines/b1").strip()


def refused(repo: Path, current_from_before_the_edit: State) -> PylonError:
    with pytest.raises(PylonError) as caught:
        restore(locate(str(repo)), b1(repo), current=current_from_before_the_edit)
    return caught.value


@pytest.mark.parametrize("edit", ["rewrite", "append", "same size", "retarget symlink", "file becomes folder"])
def test_an_edit_in_the_gap_is_never_overwritten(scene: Path, edit: str) -> None:
    current = capture(locate(str(scene)), label="before")
    target = {
        "rewrite": "src/app.py",
        "append": "extra.txt",
        "same size": "src/app.py",
        "retarget symlink": "link",
        "file becomes folder": "extra.txt",
    }[edit]
    path = scene / target
    if edit == "rewrite":
        path.write_text("the agent's edit, saved while the op ran\n")
    elif edit == "append":
        with open(path, "a") as handle:
            handle.write("one more line\n")
    elif edit == "same size":
        stamp = os.stat(path)
        text = path.read_text()
        path.write_text(text[:-2] + "X\n")
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same size and mtime: only the bytes tell
    elif edit == "retarget symlink":
        path.unlink()
        os.symlink("src/util.py", path)
    else:
        path.unlink()
        path.mkdir()
        (path / "inside.txt").write_text("new folder content\n")
    edited = snapshot(scene)
    error = refused(scene, current)
    assert error.code == "changed-meanwhile"
    assert error.details["paths"] == [target] and error.details["written"] is False
    assert "Nothing was written" in error.message
    assert diff_snapshots(snapshot(scene), edited) == []  # not one byte written


def test_a_file_deleted_or_touched_in_the_gap_loses_nothing_and_does_not_block(scene: Path) -> None:
    current = capture(locate(str(scene)), label="before")
    (scene / "extra.txt").unlink()  # to be deleted anyway
    os.utime(scene / "src/app.py")  # touched, same bytes
    restore(locate(str(scene)), b1(scene), current=current)
    assert not (scene / "extra.txt").exists()
    assert (scene / "src/app.py").read_text() == "print('hello')\n"


def test_line_ending_conversion_is_judged_as_the_capture_judged_it(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    git(repo, "config", "core.autocrlf", "true")
    (repo / ".gitattributes").write_text("*.txt text\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "attrs")
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")  # stored as LF: the disk bytes are not the blob's
    current = capture(locate(str(repo)), label="before")
    restore(locate(str(repo)), b1(repo), current=current)  # unchanged since the capture: not refused
    assert not (repo / "crlf.txt").exists()


def test_an_op_refused_untouched_is_closed_not_left_interrupted(scene: Path) -> None:
    checkout = locate(str(scene))
    current = capture(checkout, label="before")
    (scene / "src/app.py").write_text("edited in the gap\n")
    edited = snapshot(scene)
    step = oplog.Step(checkout.root, str(current.commit), b1(scene), "keep")
    with pytest.raises(PylonError) as caught:
        oprun.perform(checkout, "restore", [step], title="restore b1", currents={checkout.root: current})
    assert caught.value.code == "changed-meanwhile"
    newest = oplog.entries(checkout, limit=1)[0]
    assert newest.status == "undone" and newest.record["abandoned"] == "changed-meanwhile"
    status = pylon("ws", "status", "--json", cwd=scene).json()
    assert status["interrupted"] is None
    listed = pylon("ws", "undo", "--list", "--json", cwd=scene).json()["ops"][0]
    assert (listed["status"], listed["abandoned"]) == ("undone", "changed-meanwhile")
    assert "restore b1 (closed unwritten: changed-meanwhile)" in pylon("ws", "undo", "--list", cwd=scene).out
    assert diff_snapshots(snapshot(scene), edited) == []
    again = pylon("ws", "restore", "b1", "--json", cwd=scene)  # run again: works from the edit, keeps it for undo
    assert again.code == 0, again
    assert pylon("ws", "undo", cwd=scene).code == 0
    assert diff_snapshots(snapshot(scene), edited) == []


def test_a_refusal_after_an_earlier_step_wrote_leaves_the_op_for_undo(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    wt = Path(str(new(repo, "a")["path"]))
    mixed_state(wt, seed=4, tag="agent")
    main, side = locate(str(repo)), locate(str(wt))
    main_before, wt_before = capture(main, label="m"), capture(side, label="w")
    views = {"main": snapshot(repo), "wt": snapshot(wt)}
    (wt / "src/app.py").write_text("edited in the gap\n")
    # step 1 writes the main checkout (the worktree's state), step 2 finds the worktree edited
    steps = [
        oplog.Step(main.root, str(main_before.commit), str(wt_before.commit), "keep"),
        oplog.Step(side.root, str(wt_before.commit), str(main_before.commit), "keep"),
    ]
    with pytest.raises(PylonError) as caught:
        oprun.perform(main, "move", steps, title="two steps", currents={main.root: main_before, side.root: wt_before})
    assert caught.value.code == "changed-meanwhile" and caught.value.details["written"] is True
    assert pylon("ws", "status", "--json", cwd=repo).json()["interrupted"]["title"] == "two steps"
    assert (wt / "src/app.py").read_text() == "edited in the gap\n"  # never overwritten
    undone = pylon("ws", "undo", "--json", cwd=repo)
    assert undone.code == 0, undone
    assert diff_snapshots(snapshot(repo), views["main"]) == [] and diff_snapshots(snapshot(wt), views["wt"]) == []
    kept = undone.json()["kept"][str(wt)]  # undo gives back the state before and keeps what it replaced
    assert git(repo, "show", f"{kept}:src/app.py") == "edited in the gap\n"
