"""After a shell command, `pylon ws undo` and the note's `pylon ws restore op-N PATH...` bring back
exactly what the command changed (600/640/700 bits, empty folders, symlinks, ignored files) and
nothing else: work done after the command stays as it is. Everything runs as a user's agent would:
the events through `pylon hook claude-code`, the command through bash, then the pylon commands; the
oracle is os.lstat of every entry (folders included) and git."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import fast_few, git
from tests.guard.test_snapshot_exact import make_root
from tests.keep.hookpath import run_through_hooks
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import entries as tree


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """test_snapshot_exact's checkout, with a tracked file outside what the commands destroy."""
    repo = make_root(tmp_path)
    (repo / "keep.txt").write_text("keep\n")
    git(repo, "add", "keep.txt")
    git(repo, "commit", "-qm", "keep")
    os.chmod(repo / "old.log", 0o640)
    return repo


def guarded(root: Path, line: str) -> str:
    """The command run as a client runs it (PreToolUse into `pylon hook claude-code`, bash,
    PostToolUse); the hook's note."""
    answer, _ = run_through_hooks(root, line)
    # later work here is written as an editor would, without a hook: `ws log` first waits for the
    # capture after the command (detached), which would otherwise count a write in its time as its own
    assert pylon("ws", "log", cwd=root).code == 0
    return str(answer["hookSpecificOutput"]["additionalContext"])


def later_work(root: Path) -> dict[str, tuple[object, ...]]:
    """Work after the command, away from what it destroyed: an edit, a new 640 file, an empty
    folder, a new ignored file."""
    (root / "keep.txt").write_text("keep\nedited later\n")
    (root / "later.txt").write_text("later\n")
    os.chmod(root / "later.txt", 0o640)
    (root / "later-empty").mkdir()
    (root / "later.log").write_text("ignored, later\n")
    return {rel: e for rel, e in tree(root).items() if rel.startswith("later") or rel == "keep.txt"}


REMOVALS = ["rm -rf data", "rm -rf link/", "find data -delete", "git clean -fdx", "mv old.log .env"]


@pytest.mark.parametrize("line", REMOVALS)
def test_undo_brings_back_what_the_command_destroyed_and_keeps_later_work(root: Path, line: str) -> None:
    before, index, head = tree(root), git(root, "ls-files", "-s"), git(root, "rev-parse", "HEAD")
    note = guarded(root, line)
    assert "`pylon ws undo`" in note, note
    assert tree(root) != before, line
    kept = later_work(root)
    undone = pylon("ws", "undo", cwd=root)
    assert undone.code == 0, undone
    assert tree(root) == {**before, **kept}, (line, undone)
    assert (git(root, "ls-files", "-s"), git(root, "rev-parse", "HEAD")) == (index, head)


# each removal is classified and undone by the test above; the restore by the note's path is one path
@pytest.mark.parametrize("line", fast_few(REMOVALS, {"rm -rf data", "git clean -fdx"}))
def test_the_notes_path_restore_brings_back_exactly_what_was_destroyed(root: Path, line: str) -> None:
    before, index = tree(root), git(root, "ls-files", "-s")
    note = guarded(root, line)
    command = re.search(r"`(pylon ws restore op-\d+ [^`]+)`", note)
    assert command, note
    kept = later_work(root)
    words = command.group(1).split()[1:]
    restored = pylon(*words, cwd=root)
    assert restored.code == 0, restored
    assert tree(root) == {**before, **kept}, line
    assert git(root, "ls-files", "-s") == index
    assert pylon("ws", "undo", cwd=root).code == 0  # the restore is an op too: reversed, later work kept
    assert {rel: e for rel, e in tree(root).items() if rel in kept} == kept


def test_reset_hard_comes_back_with_head_branch_bits_and_later_ignored_files_kept(root: Path) -> None:
    before, head = tree(root), git(root, "rev-parse", "HEAD")
    note = guarded(root, "git reset --hard HEAD~1")
    assert "`pylon ws undo`" in note, note
    assert git(root, "rev-parse", "HEAD") != head
    (root / "later.log").write_text("ignored, later\n")  # ignored work after the command
    undone = pylon("ws", "undo", cwd=root)
    assert undone.code == 0, undone
    assert git(root, "rev-parse", "HEAD") == head and git(root, "rev-parse", "main") == head
    assert tree(root) == {**before, "later.log": ("file", "0o644", b"ignored, later\n")}


DISCARDS = ["git checkout -- data", "git restore data/tracked.txt", "git reset --hard"]


@pytest.mark.parametrize("line", DISCARDS)
@pytest.mark.parametrize("how", ["undo", "restore"])
def test_discarded_edits_come_back_and_later_work_is_kept(root: Path, line: str, how: str) -> None:
    """A checkout, restore or reset that throws away uncommitted edits of tracked files: the note
    names those paths, and `ws undo` or the note's `ws restore op-N PATH...` gives back the edits,
    the staged file and the index as they were, with the later work kept."""
    (root / "data" / "tracked.txt").write_text("tracked\ntwo\nuncommitted edit\n")
    if line == "git reset --hard":
        (root / "staged.txt").write_text("staged, never committed\n")
        git(root, "add", "staged.txt")
    before, index = tree(root), git(root, "ls-files", "-s")
    note = guarded(root, line)
    assert tree(root) != before, line
    command = re.search(r"`(pylon ws restore op-\d+ [^`]+)`", note)
    assert command and "`pylon ws undo`" in note, note
    assert "data/tracked.txt" in command.group(1).split()
    kept = later_work(root)
    done = pylon(*(command.group(1).split()[1:] if how == "restore" else ["ws", "undo"]), cwd=root)
    assert done.code == 0, done
    assert tree(root) == {**before, **kept}, line
    assert git(root, "ls-files", "-s") == index


def test_undo_also_brings_back_the_refs_and_stash_entries_the_command_deleted(root: Path) -> None:
    """`ws undo` of a guard op once brought back the files and left the branch, tag and stash entry
    the same command deleted gone (only `ws restore guard-N` named them again). git's own listings
    before and after are the oracle; work after the command stays."""
    git(root, "branch", "feat")
    git(root, "tag", "v1")
    (root / "keep.txt").write_text("keep\nstashed edit\n")
    git(root, "stash", "-q")
    refs_before = git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags")
    stash_before = git(root, "stash", "list", "--format=%H %gs")
    before = tree(root)
    line = "rm -rf data && git branch -D feat && git tag -d v1 && git stash drop -q"
    note = guarded(root, line)
    assert "`pylon ws undo`" in note, note
    assert git(root, "for-each-ref", "refs/heads/feat", "refs/tags/v1") == "" and git(root, "stash", "list") == ""
    kept = later_work(root)
    undone = pylon("ws", "undo", cwd=root)
    assert undone.code == 0, undone
    assert "put back refs/heads/feat" in undone.err and "put back 1 stash entry" in undone.err, undone
    assert git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags") == refs_before
    assert git(root, "stash", "list", "--format=%H %gs") == stash_before
    assert tree(root) == {**before, **kept}


@pytest.mark.parametrize("line", ["git branch -D feat", "git stash drop -q"])
def test_a_refs_only_command_gets_its_own_undo(root: Path, line: str) -> None:
    """A command that deletes only refs once recorded no op, so `ws undo` right after it reversed the
    op before (here `rm -rf data`, whose files came back unasked). Now it is an op of its own: `ws
    undo` puts the ref back, touches no file, and the earlier op stays done."""
    git(root, "branch", "feat")
    (root / "keep.txt").write_text("keep\nstashed edit\n")
    git(root, "stash", "-q")
    guarded(root, "rm -rf data")  # an earlier op
    refs_before = git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/stash")
    note = guarded(root, line)
    assert "(op 2)" in note and ("refs/heads/feat" in note or "the stash" in note), note
    later_work(root)
    files = tree(root)
    undone = pylon("ws", "undo", cwd=root)
    assert undone.code == 0 and "(op 2)" in undone.out, undone
    assert git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/stash") == refs_before
    assert tree(root) == files  # no file touched: data stays removed, later work stays


def test_the_note_names_every_path_it_will_discard(root: Path) -> None:
    """A note naming more than ten paths once ended in ` ...` inside the command, which then named
    a file `...`; it now names them all (git's list is the oracle)."""
    for i in range(12):
        (root / f"edited{i}.txt").write_text("v1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "twelve")
    for i in range(12):
        (root / f"edited{i}.txt").write_text("v2\n")
    edited = set(git(root, "diff", "--name-only", "HEAD").split())
    note = guarded(root, "git checkout -- .")
    command = re.search(r"`(pylon ws restore op-\d+ [^`]+)`", note)
    assert command and "..." not in command.group(1), note
    assert set(command.group(1).split()[4:]) == edited
