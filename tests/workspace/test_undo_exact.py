"""An undo (and redo) that merges with work done after the op is exact from the op's own states:
permission bits and empty folders the op changed go back, those changed since are kept. Oracle:
os.lstat of every entry (ops_helpers.entries) before the op, with the later work laid on top."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import entries as tree
from tests.workspace.test_exact_restore import odd_modes


def later_work(repo: Path) -> dict[str, tuple[object, ...]]:
    """Work done after the op, outside what it changed: a new file with odd bits, an empty folder."""
    (repo / "later.txt").write_text("later\n")
    os.chmod(repo / "later.txt", 0o640)
    (repo / "later-empty").mkdir()
    return {rel: entry for rel, entry in tree(repo).items() if rel.startswith("later")}


def test_undo_of_a_move_after_later_work_brings_back_bits_and_folders(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"README.md": "# r\n", "tracked.txt": "t\n"})
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    assert made.code == 0, made
    wt = Path(made.json()["path"])
    odd_modes(wt, "wt")
    odd_modes(repo, "main")
    before = tree(repo)
    assert pylon("ws", "move", "s1", cwd=repo).code == 0
    assert "empty-main" not in tree(repo)  # the worktree's state, its folders only
    kept = later_work(repo)
    undone = pylon("ws", "undo", "--json", cwd=repo)
    assert undone.code == 0, undone
    assert undone.json()["later"][str(repo)]["kept"], undone.json()  # a three-way undo
    assert tree(repo) == {**before, **kept}


def test_undo_of_a_restore_after_later_work_puts_bits_and_folders_back(make_repo: MakeRepo) -> None:
    """The restore changed bits alone (no content) and made an empty folder: undo reverses both."""
    repo = make_repo(files={"a.txt": "a\n", "conf/b.ini": "b\n"})
    os.chmod(repo / "a.txt", 0o600)
    (repo / "cache" / "deep").mkdir(parents=True)
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    os.chmod(repo / "a.txt", 0o644)
    os.chmod(repo / "conf/b.ini", 0o640)
    (repo / "cache" / "deep").rmdir()
    (repo / "cache").rmdir()
    before = tree(repo)
    done = pylon("ws", "restore", "b1", cwd=repo)
    assert done.code == 0, done
    assert os.lstat(repo / "a.txt").st_mode & 0o777 == 0o600 and (repo / "cache" / "deep").is_dir()
    assert os.lstat(repo / "conf/b.ini").st_mode & 0o777 == 0o644
    kept = later_work(repo)
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert tree(repo) == {**before, **kept}
    redone = pylon("ws", "redo", cwd=repo)
    assert redone.code == 0, redone
    assert os.lstat(repo / "a.txt").st_mode & 0o777 == 0o600 and (repo / "cache" / "deep").is_dir()
    assert {rel: e for rel, e in tree(repo).items() if rel.startswith("later")} == kept


def test_undo_of_an_apply_after_later_edits_keeps_every_bit(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"secret.txt": "one\n", "other.txt": "x\n", "run.sh": "#!/bin/sh\n"})
    os.chmod(repo / "secret.txt", 0o600)
    os.chmod(repo / "run.sh", 0o700)
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    wt = Path(made.json()["path"])
    (wt / "secret.txt").write_text("one\ntwo\n")
    (wt / "run.sh").unlink()
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "edit")
    before = tree(repo)
    assert pylon("ws", "apply", "s1", cwd=repo).code == 0
    with open(repo / "other.txt", "a") as fh:
        fh.write("later line\n")
    os.chmod(repo / "other.txt", 0o664)
    kept = later_work(repo)
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    after = tree(repo)
    assert after["other.txt"] == ("file", "0o664", b"x\nlater line\n")
    assert {**after, "other.txt": before["other.txt"]} == {**before, **kept}


def test_apply_brings_the_sessions_new_bits_and_keeps_the_checkouts(make_repo: MakeRepo) -> None:
    """A script the session made 700 arrives 700; a 600 file the session edited stays 600 (the
    session did not change its bits); undo and redo give both back exactly."""
    repo = make_repo(files={"secret.txt": "one\n", "other.txt": "x\n"})
    os.chmod(repo / "secret.txt", 0o600)
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    wt = Path(made.json()["path"])
    (wt / "secret.txt").write_text("one\ntwo\n")
    (wt / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(wt / "run.sh", 0o700)
    before = tree(repo)
    assert pylon("ws", "apply", "s1", cwd=repo).code == 0
    applied = tree(repo)
    assert applied["run.sh"] == ("file", "0o700", b"#!/bin/sh\n")
    assert applied["secret.txt"] == ("file", "0o600", b"one\ntwo\n")
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert tree(repo) == before
    assert pylon("ws", "redo", cwd=repo).code == 0
    assert tree(repo) == applied


def test_undo_of_an_apply_that_made_a_file_a_symlink_gives_back_its_odd_bits(make_repo: MakeRepo) -> None:
    """The session turns notes.txt into a symlink while the checkout makes it 664 (bits git does not
    see): the merged record must not carry 664 for the symlink, or the undo, seeing the bits
    unchanged, drops them (seeds 900060, 1100060, 1400060 of the round trips)."""
    repo = make_repo(files={"notes.txt": "n\n", "a.txt": "a\n"})
    made = pylon("ws", "new", "s1", "--json", cwd=repo)
    wt = Path(made.json()["path"])
    (wt / "notes.txt").unlink()
    os.symlink("a.txt", wt / "notes.txt")
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "a link")
    os.chmod(repo / "notes.txt", 0o664)
    before = tree(repo)
    assert pylon("ws", "apply", "s1", cwd=repo).code == 0
    assert os.path.islink(repo / "notes.txt")
    undone = pylon("ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert tree(repo) == before
    assert tree(repo)["notes.txt"] == ("file", "0o664", b"n\n")
