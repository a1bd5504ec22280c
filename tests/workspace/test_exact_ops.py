"""Permission bits (files and folders) and empty folders across ops, their undo and redo, interrupted
or not: the reproductions of issue 33. The oracle is os.lstat of every entry (folders included,
with their bits) and git's index.

- `ws apply` of a session's chmod 644 -> 600 lists the path (status `mode`, `644 -> 600`), and an
  apply of nothing but that chmod is an op like any other;
- `ws undo` of a move keeps the empty folders and folder bits made after it;
- `ws redo` remakes the empty folders its op made, also when merged with later work;
- a person's empty folder that a session's file replaced comes back with `ws undo`;
- a guarded `rm -rf` of a 0700 folder comes back 0700 (`ws restore op-N` and `ws undo`);
- a `ws sync` killed half-way and settled either way gives exactly the bits an uninterrupted sync
  gives, or those before it (the session's own 0700 files, the checkout's new 0700 script).
"""

from __future__ import annotations

import os
import random
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git, sized
from tests.workspace.crash_helpers import killed
from tests.workspace.helpers import guarded, pylon
from tests.workspace.ops_helpers import entries


def more_entries_than(folder: Path, count: int) -> Callable[[], bool]:
    """A kill's moment: once `folder` holds more than `count` entries (bound now, not at the loop's end)."""
    return lambda: len(os.listdir(folder)) > count


def view(root: Path) -> tuple[Any, ...]:
    return entries(root), git(root, "ls-files", "-s")


def ok(repo: Path | str, *args: str) -> dict[str, Any]:
    result = pylon("ws", *args, "--json", cwd=repo)
    assert result.code == 0, result
    return result.json()


def session(repo: Path, wid: str) -> Path:
    return Path(str(ok(repo, "new", wid)["path"]))


def test_apply_lists_a_mode_change_and_carries_it_alone(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"secret.txt": "s\n", "app.py": "a\n", "other.txt": "o\n"})
    wt = session(repo, "s1")
    os.chmod(wt / "secret.txt", 0o600)
    (wt / "app.py").write_text("a, edited\n")
    applied = ok(repo, "apply", "s1")
    files = {f["path"]: f for f in applied["files"]}
    assert files["secret.txt"] == {"path": "secret.txt", "status": "mode", "old_mode": "644", "new_mode": "600"}
    assert files["app.py"]["status"] == "modified" and applied["total"] == 2
    assert stat.S_IMODE(os.lstat(repo / "secret.txt").st_mode) == 0o600
    text = pylon("ws", "undo", cwd=repo)
    assert text.code == 0 and stat.S_IMODE(os.lstat(repo / "secret.txt").st_mode) == 0o644
    shown = pylon("ws", "apply", "s1", cwd=repo)
    assert shown.code == 0 and "mode      secret.txt  (644 -> 600)" in shown.out, shown
    ok(repo, "undo")
    # a chmod alone is a change too
    wt2 = session(repo, "s2")
    os.chmod(wt2 / "other.txt", 0o640)
    alone = ok(repo, "apply", "s2")
    assert alone["applied"] and alone["files"] == [
        {"path": "other.txt", "status": "mode", "old_mode": "644", "new_mode": "640"}
    ]
    assert stat.S_IMODE(os.lstat(repo / "other.txt").st_mode) == 0o640
    ok(repo, "undo")
    assert stat.S_IMODE(os.lstat(repo / "other.txt").st_mode) == 0o644


def test_undo_of_a_move_keeps_empty_folders_and_bits_made_after_it(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a": "a\n", "d/f": "f\n"})
    wt = session(repo, "s1")
    (wt / "s.txt").write_text("from the session\n")
    ok(repo, "move", "s1")
    (repo / "later-empty").mkdir()
    (repo / "d" / "inner-empty").mkdir()
    os.chmod(repo / "d", 0o700)
    later = {k: v for k, v in entries(repo).items() if k.startswith(("later", "d"))}
    ok(repo, "undo")
    assert {k: v for k, v in entries(repo).items() if k.startswith(("later", "d"))} == later
    assert not (repo / "s.txt").exists()


def test_redo_remakes_the_empty_folders_of_its_op(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a": "a\n", "b": "one\ntwo\n"})
    wt = session(repo, "s1")
    (wt / "emp" / "ty").mkdir(parents=True)
    (wt / "tools").mkdir()
    os.chmod(wt / "tools", 0o700)
    (wt / "tools" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(wt / "tools" / "run.sh", 0o700)
    ok(repo, "apply", "s1")
    applied = entries(repo)
    assert applied["emp/ty"] == ("dir", "0o755") and applied["tools"] == ("dir", "0o700")
    assert applied["tools/run.sh"][1] == "0o700"
    ok(repo, "undo")
    assert not (repo / "emp").exists() and not (repo / "tools").exists()
    ok(repo, "redo")
    assert entries(repo) == applied
    ok(repo, "undo")
    (repo / "b").write_text("one\ntwo\nlater\n")  # later work: the redo is merged with it
    later = entries(repo)
    ok(repo, "redo")
    assert entries(repo) == {**applied, "b": later["b"]}


def test_a_persons_empty_folder_a_session_file_replaced_comes_back(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a": "a\n"})
    wt = session(repo, "s1")
    (repo / "x").mkdir()
    os.chmod(repo / "x", 0o750)
    before = view(repo)
    (wt / "x").write_text("the session's file\n")
    ok(repo, "apply", "s1")
    assert (repo / "x").is_file()
    ok(repo, "undo")
    assert view(repo) == before
    ok(repo, "redo")
    ok(repo, "undo")
    assert view(repo) == before


def test_a_guarded_removal_of_a_0700_folder_comes_back_0700(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"keep.txt": "k\n", "secret/key.txt": "key\n", "secret/inner/more.txt": "m\n"})
    os.chmod(repo / "secret" / "inner", 0o750)
    os.chmod(repo / "secret", 0o700)
    (repo / "secret" / "untracked.txt").write_text("mine\n")
    before = view(repo)
    guarded(repo, "rm -rf secret")
    assert not (repo / "secret").exists()
    guard = next(e for e in ok(repo, "log")["entries"] if e.get("op_kind") == "shell")
    ok(repo, "restore", str(guard["name"]))
    assert view(repo) == before
    guarded(repo, "rm -rf secret")
    ok(repo, "undo")
    assert view(repo) == before


def _sync_scene(make_repo: MakeRepo) -> tuple[Path, Path]:
    rng = random.Random(5)
    files = {f"src/m{n}.txt": f"module {n}\n" for n in range(200)}
    files.update({"run.sh": "#!/bin/sh\n", "conf/settings.txt": "x\n"})
    repo = make_repo(files=files)
    wt = session(repo, "s1")
    os.chmod(wt / "run.sh", 0o700)  # the session's own bits: kept by the sync
    for n in range(0, 200, 5):  # ... also where the checkout's change rewrites the file
        os.chmod(wt / f"src/m{n}.txt", 0o700)
        (repo / f"src/m{n}.txt").write_text(f"module {n}, rewritten in the checkout\n")
    (wt / "tools").mkdir()
    (wt / "tools" / "own.sh").write_text("#!/bin/sh\necho own\n")
    os.chmod(wt / "tools" / "own.sh", 0o700)
    for n in rng.sample(range(200), 150):  # the checkout's changes: what the sync brings
        (repo / f"src/m{n}.txt").write_text(f"module {n}, changed in the checkout\n")
    (repo / "bin").mkdir()
    os.chmod(repo / "bin", 0o700)
    for n in range(100):
        (repo / "bin" / f"new{n}.sh").write_text(f"#!/bin/sh\necho {n}\n")
        os.chmod(repo / "bin" / f"new{n}.sh", 0o700)
    os.chmod(repo / "conf" / "settings.txt", 0o600)
    (repo / "empty-here").mkdir()
    return repo, wt


def test_a_killed_sync_settles_to_the_exact_bits_either_way(make_repo: MakeRepo) -> None:
    repo, wt = _sync_scene(make_repo)
    before = view(wt)
    start = time.monotonic()
    synced_doc = ok(repo, "sync", "s1")
    span = time.monotonic() - start
    synced = view(wt)
    files = {f["path"]: f for f in synced_doc["files"]}
    assert files["conf/settings.txt"]["new_mode"] == "600"
    assert synced[0]["bin/new3.sh"][1] == "0o700" and synced[0]["bin"] == ("dir", "0o700")
    assert synced[0]["run.sh"][1] == "0o700" and synced[0]["tools/own.sh"][1] == "0o700"
    assert synced[0]["src/m5.txt"][1] == "0o700" and b"in the checkout" in synced[0]["src/m5.txt"][2]
    assert synced[0]["empty-here"] == ("dir", "0o755")
    ok(repo, "undo")
    assert view(wt) == before
    rng = random.Random(11)
    ops = repo / ".git" / "refs" / "pylon" / "ops"
    landed = 0
    for n in range(sized(3, 30)):
        count = len(os.listdir(ops))
        code, _ = killed(
            ["ws", "sync", "s1"], repo, rng.uniform(0, span * 0.3), group=True, after=more_entries_than(ops, count)
        )
        stuck = pylon("ws", "status", "--json", cwd=repo).json()["interrupted"]
        if code is None and stuck:
            landed += 1
            way = rng.choice(["finish", "reverse"])
            assert pylon(*stuck[way].split()[1:], cwd=repo).code == 0
            assert view(wt) == (synced if way == "finish" else before), (n, way)
        else:
            assert view(wt) == synced, n
        if view(wt) == synced:
            ok(repo, "undo")
        assert view(wt) == before
    print("interrupted syncs:", landed)
