"""`pylon ws undo` of a shell command restores exactly what it destroyed: permission bits
(600/640/700), empty folders, symlinks, what `rm -rf link/` reaches through a symlink to a folder,
ignored files and an ignored `mv` source, HEAD and the branch after `git reset --hard HEAD~1`; what
no kept state can hold (a nested repository, a FIFO) is asked about first. The command runs through
the hook path as a client runs it (PreToolUse, bash, PostToolUse), and the oracle is os.lstat of
every entry (folders included) and git."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import git, run_cmd
from tests.keep.hookpath import run_through_hooks
from tests.workspace.ops_helpers import entries as tree


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_root(tmp_path)


def make_root(tmp_path: Path) -> Path:
    """A checkout with 600/640/700 files, tracked and not, ignored files, empty folders, symlinks."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("*.log\n.env\ncache/\n")
    (repo / "data").mkdir()
    (repo / "data" / "tracked.txt").write_text("tracked\n")
    (repo / "data" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(repo / "data" / "run.sh", 0o700)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    (repo / "data" / "tracked.txt").write_text("tracked\ntwo\n")
    git(repo, "commit", "-qam", "two")
    os.chmod(repo / "data" / "tracked.txt", 0o640)
    (repo / "data" / "secret.txt").write_text("untracked secret\n")
    os.chmod(repo / "data" / "secret.txt", 0o600)
    (repo / "data" / "run.log").write_text("ignored log\n")
    os.chmod(repo / "data" / "run.log", 0o600)
    (repo / "data" / "empty" / "deeper").mkdir(parents=True)
    (repo / "data" / "cache").mkdir()
    (repo / "data" / "cache" / "blob.bin").write_bytes(b"\x00ignored cache\n")
    os.symlink("tracked.txt", repo / "data" / "link-to-file")
    os.symlink("data", repo / "link")
    (repo / ".env").write_text("SECRET=1\n")
    os.chmod(repo / ".env", 0o600)
    (repo / "old.log").write_text("another ignored file\n")
    return repo


def guarded(root: Path, line: str) -> None:
    """The command through the hook path; its note must name the undo."""
    reply, ran = run_through_hooks(root, line)
    assert ran is not None and "pylon ws undo" in json.dumps(reply), (line, reply)


def undo(root: Path) -> None:
    done = run_cmd("pylon", "ws", "undo", cwd=root)
    assert done.code == 0, done


@pytest.mark.parametrize(
    "line", ["rm -rf data", "rm -rf link/", "rm -rf link/*", "git clean -fdx", "find data -delete"]
)
def test_removals_come_back_with_bits_folders_links_and_ignored_files(root: Path, line: str) -> None:
    before, index = tree(root), git(root, "ls-files", "-s")
    guarded(root, line)
    assert tree(root) != before, line  # the command did destroy something
    undo(root)
    assert tree(root) == before, line
    assert git(root, "ls-files", "-s") == index


def test_mv_of_an_ignored_file_over_another_keeps_both(root: Path) -> None:
    before = tree(root)
    guarded(root, "mv old.log .env")
    assert not (root / "old.log").exists()
    undo(root)
    assert tree(root) == before


def test_reset_hard_to_an_older_commit_puts_head_and_branch_back(root: Path) -> None:
    before, head = tree(root), git(root, "rev-parse", "HEAD")
    guarded(root, "git reset --hard HEAD~1")
    assert git(root, "rev-parse", "HEAD") != head
    undo(root)
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert git(root, "rev-parse", "main") == head
    assert tree(root) == before


@pytest.mark.parametrize("what", ["nested", "fifo"])
def test_what_no_kept_state_can_hold_is_asked(root: Path, what: str) -> None:
    from pylon.cli.guard.hook import answer

    if what == "nested":
        inner = root / "data" / "inner"
        inner.mkdir()
        git(inner, "init", "-q")
        (inner / "f.txt").write_text("own history\n")
        git(inner, "add", "-A")
        git(inner, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "own")
    else:
        os.mkfifo(root / "data" / "pipe")
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "cwd": str(root),
            "tool_input": {"command": "rm -rf data"},
        }
    )
    reply = json.dumps(answer("claude-code", event.encode()))
    assert '"permissionDecision": "ask"' in reply, reply
    assert "pylon cannot keep" in reply and ("inner/.git" in reply or "data/pipe" in reply), reply


def test_undo_then_redo_keeps_the_bits_of_an_ignored_file_both_ways(root: Path) -> None:
    before = tree(root)
    guarded(root, "sed -i 's/1/2/' .env")
    edited = tree(root)
    assert edited[".env"] == ("file", "0o600", b"SECRET=2\n")
    undo(root)
    assert tree(root) == before
    redone = run_cmd("pylon", "ws", "redo", cwd=root)
    assert redone.code == 0, redone
    assert tree(root) == edited
