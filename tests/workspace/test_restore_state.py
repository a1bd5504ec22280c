"""`pylon ws restore NAME [PATH]...` and the restore primitive under it, with git as the oracle."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot


@pytest.fixture
def dirty(make_repo: MakeRepo) -> Path:
    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    mixed_state(repo, seed=5, tag="b1")
    return repo


def wipe(repo: Path) -> None:
    """What an agent's `git reset --hard && git clean -fd` does (ignored files stay)."""
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfd")


def test_restore_brings_back_every_kind_of_change(dirty: Path) -> None:
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    before = snapshot(dirty)
    wipe(dirty)
    (dirty / "keep.log").write_text("ignored, changed later\n")
    (dirty / "later.txt").write_text("made after the baseline\n")
    done = pylon("ws", "restore", "b1", cwd=dirty)
    assert done.code == 0, done
    after = snapshot(dirty)
    assert (dirty / "keep.log").read_text() == "ignored, changed later\n"  # ignored files are never touched
    after["files"].pop("keep.log"), before["files"].pop("keep.log")
    assert diff_snapshots(after, before) == []
    assert "pylon ws undo" in done.err


def test_undo_of_a_restore_gives_back_what_it_replaced(dirty: Path) -> None:
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    wipe(dirty)
    mixed_state(dirty, seed=9, tag="later")
    later = snapshot(dirty)
    assert pylon("ws", "restore", "b1", cwd=dirty).code == 0
    assert pylon("ws", "undo", cwd=dirty).code == 0
    assert diff_snapshots(snapshot(dirty), later) == []


def test_restore_of_paths_touches_only_those(dirty: Path) -> None:
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    b1_app = (dirty / "src/app.py").read_bytes()
    b1_index = git(dirty, "ls-files", "-s", "src/app.py")
    wipe(dirty)
    (dirty / "README.md").write_text("kept as it is now\n")
    result = pylon("ws", "restore", "b1", "app.py", "--json", cwd=dirty / "src")  # relative to the current folder
    assert result.code == 0, result
    assert result.json()["write"] == ["src/app.py"]
    assert (dirty / "src/app.py").read_bytes() == b1_app
    assert git(dirty, "ls-files", "-s", "src/app.py") == b1_index  # the staged version came back too
    assert (dirty / "README.md").read_text() == "kept as it is now\n"
    assert not (dirty / "new dir").exists()


def test_dry_run_lists_and_changes_nothing(dirty: Path) -> None:
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    wipe(dirty)
    before = snapshot(dirty)
    shown = pylon("ws", "restore", "b1", "--dry-run", cwd=dirty)
    assert shown.code == 0 and "write   src/app.py" in shown.out and "would restore b1" in shown.out, shown
    assert snapshot(dirty) == before
    assert pylon("ws", "undo", "--list", "--json", cwd=dirty).json()["ops"] == []


def test_an_ignored_file_in_the_way_is_kept_aside_and_comes_back(dirty: Path) -> None:
    """`ws restore` where the state has a file and an ignored one sits now: the ignored file is kept
    in the state the restore replaces (op-N:before), and `ws undo` gives it back."""
    (dirty / "out").mkdir()
    (dirty / "out/result.txt").write_text("state\n")
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    wipe(dirty)
    with open(dirty / ".git/info/exclude", "a") as fh:
        fh.write("out/\n")
    (dirty / "out").mkdir()
    (dirty / "out/result.txt").write_text("an ignored build output\n")
    before = snapshot(dirty)
    restored = pylon("ws", "restore", "b1", "--json", cwd=dirty)
    assert restored.code == 0, restored
    assert restored.json()["aside"] == ["out/result.txt"]
    assert (dirty / "out/result.txt").read_text() == "state\n"
    text = pylon("ws", "undo", cwd=dirty)
    assert text.code == 0, text
    assert snapshot(dirty) == before


def test_unknown_name(dirty: Path) -> None:
    result = pylon("ws", "restore", "nope", "--json", cwd=dirty)
    assert result.code == 1 and result.json()["error"]["code"] == "unknown-snapshot"
    assert pylon("ws", "restore", "guard-7", cwd=dirty).code == 1


def _guard_snapshot(repo: Path, base_ref: str, ignored: dict[str, bytes]) -> str:
    """A guard snapshot as the guard writes it: a state commit whose tree also holds ignored files."""
    index = repo / ".git" / "guard-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", base_ref], cwd=repo, env=env, check=True)
    for rel, data in ignored.items():
        oid = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data, capture_output=True, check=True
            )
            .stdout.decode()
            .strip()
        )
        subprocess.run(
            ["git", "update-index", "--add", "--cacheinfo", f"100644,{oid},{rel}"], cwd=repo, env=env, check=True
        )
    tree = (
        subprocess.run(["git", "write-tree"], cwd=repo, env=env, capture_output=True, check=True)
        .stdout.decode()
        .strip()
    )
    raw = git(repo, "cat-file", "commit", base_ref)
    header, _, message = raw.partition("\n\n")
    parents = [line.split()[1] for line in header.splitlines() if line.startswith("parent ")]
    args = ["commit-tree", tree] + [x for p in parents for x in ("-p", p)] + ["-m", message]
    commit = git(repo, *args).strip()
    git(repo, "update-ref", "refs/pylon/guard/1", commit)
    return commit


def test_guard_snapshot_restores_ignored_files_it_holds(dirty: Path) -> None:
    assert pylon("ws", "baseline", "b1", cwd=dirty).code == 0
    before = snapshot(dirty)
    _guard_snapshot(
        dirty, "refs/pylon/baselines/b1", {"build/cache.bin": b"\x00cache", "keep.log": b"ignored, changed after b1\n"}
    )
    (dirty / "build").mkdir()
    (dirty / "build/cache.bin").write_bytes(b"\x00cache")
    git(dirty, "clean", "-qfdx")  # the destructive command: untracked and ignored files gone
    git(dirty, "checkout", "--", ".")
    result = pylon("ws", "restore", "guard-1", cwd=dirty)
    assert result.code == 0, result
    assert (dirty / "build/cache.bin").read_bytes() == b"\x00cache"
    after = snapshot(dirty)
    after["files"].pop("build/cache.bin")
    after["dirs"].pop("build")
    assert diff_snapshots(after, before) == []
