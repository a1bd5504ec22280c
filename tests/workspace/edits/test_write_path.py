"""The write path: symlinks, hard links, the per-file lock, read-back after a concurrent change."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.workspace.edits.conftest import Ed


def test_symlink_is_followed_and_stays_a_link(ed: Ed) -> None:
    target = ed.write("real/target.txt", "a\nb\n")
    link = ed.root / "link.txt"
    link.symlink_to("real/target.txt")
    tag = ed.read("link.txt")
    res = ed.edit("link.txt", tag, "replace 2\n+B\n")
    assert res.code == 0, res
    assert link.is_symlink() and os.readlink(link) == "real/target.txt"
    assert target.read_bytes() == b"a\nB\n"


def test_hard_linked_file_is_replaced_atomically_and_the_note_says_the_link_broke(ed: Ed) -> None:
    # Decision: never rewrite in place (a crash could tear the file); the other name keeps the old bytes.
    first = ed.write("one.txt", "a\nb\n")
    second = ed.root / "two.txt"
    os.link(first, second)
    inode = first.stat().st_ino
    tag = ed.read("one.txt")
    res = ed.edit("one.txt", tag, "replace 1\n+A\n+A2\n")
    assert res.code == 0, res
    assert "one.txt had 2 hard links; it was replaced atomically, so its other names keep the old content" in res.err
    assert first.stat().st_ino != inode and second.stat().st_ino == inode
    assert first.read_bytes() == b"A\nA2\nb\n" and second.read_bytes() == b"a\nb\n"
    assert first.stat().st_nlink == 1 and second.stat().st_nlink == 1


def test_temp_files_of_a_killed_edit_are_removed_by_the_next_edit(ed: Ed) -> None:
    path = ed.write("f.txt", "a\n")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a PID that no longer runs, as a killed pylon's
    left = [ed.root / f".f.txt.pylon-tmp-{dead.pid}-abc123", ed.root / f".f.txt.pylon-tmp-{dead.pid}-def456"]
    for leftover in left:
        leftover.write_bytes(b"x" * 100_000)
    running = ed.root / f".f.txt.pylon-tmp-{os.getpid()}-0a0b0c"  # a live writer's: kept
    running.write_bytes(b"y")
    other = ed.root / f".g.txt.pylon-tmp-{dead.pid}-abc123"  # another file's: not ours to judge
    other.write_bytes(b"z")
    tag = ed.read("f.txt")
    res = ed.edit("f.txt", tag, "replace 1\n+b\n")
    assert res.code == 0 and "removed temp files a killed pylon left beside f.txt" in res.err, res
    assert not any(p.exists() for p in left) and running.exists() and other.exists()
    assert path.read_bytes() == b"b\n"


def test_no_temp_files_left_and_inode_replaced(ed: Ed) -> None:
    path = ed.write("f.txt", "a\n")
    inode = path.stat().st_ino
    tag = ed.read("f.txt")
    assert ed.edit("f.txt", tag, "replace 1\n+b\n").code == 0
    assert sorted(p.name for p in ed.root.iterdir()) == ["f.txt"]
    assert path.stat().st_ino != inode  # atomic replace, not an in-place rewrite


HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_lock_timeout_when_another_process_holds_the_file_lock(ed: Ed) -> None:
    path = ed.write("f.txt", "a\n")
    tag = ed.read("f.txt")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), "5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        res = ed.edit("f.txt", tag, "replace 1\n+b\n", env={"PYLON_EDIT_LOCK_TIMEOUT": "0.5"})
        assert res.code == 4 and res.err.startswith("error[lock-timeout]: Another pylon process has been editing f.txt")
        assert path.read_bytes() == b"a\n"
    finally:
        holder.kill()
        holder.wait()
    assert ed.edit("f.txt", tag, "replace 1\n+b\n").code == 0


def test_edit_waits_for_a_short_lock(ed: Ed) -> None:
    path = ed.write("f.txt", "a\n")
    tag = ed.read("f.txt")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path), "0.7"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        start = time.monotonic()
        res = ed.edit("f.txt", tag, "replace 1\n+b\n")
        assert res.code == 0, res
        assert time.monotonic() - start > 0.3
    finally:
        holder.wait()


FORMATTER = """
import os, sys, time
path = sys.argv[1]
deadline = time.time() + 20
while time.time() < deadline:
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        continue
    if b"MARKER" in data:
        with open(path, "wb") as fh:  # a formatter rewriting the file in place
            fh.write(data.replace(b"MARKER", b"marker  # formatted"))
        print("formatted", flush=True)
        break
    time.sleep(0.005)
"""


def test_read_back_detects_a_formatter_that_changed_the_file(ed: Ed) -> None:
    path = ed.write("f.py", ed.numbered(40))
    tag = ed.read("f.py")
    watcher = subprocess.Popen([sys.executable, "-c", FORMATTER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        # The seam makes pylon pause between its write and its read-back, as a slow disk would.
        res = ed.edit_json("f.py", tag, "replace 20\n+MARKER\n", env={"PYLON_TEST_READBACK_DELAY": "1.5"})
        assert watcher.wait(timeout=20) == 0
    finally:
        watcher.kill()
    assert res.code == 0, res
    doc = res.json()
    assert path.read_bytes().count(b"marker  # formatted") == 1
    assert doc["transformed"]["first_changed_line"] == 20
    assert doc["new_tag"] == ed.read("f.py", "--limit", "1")
    assert [n for n, _ in doc["transformed"]["lines"]] == list(range(15, 26))
    assert any("another process changed f.py" in w for w in doc["warnings"])
    assert ed.edit("f.py", doc["new_tag"], "replace 24\n+ok\n").code == 0  # inside the window: seen


def test_read_back_text_output(ed: Ed) -> None:
    path = ed.write("f.py", ed.numbered(10))
    tag = ed.read("f.py")
    watcher = subprocess.Popen([sys.executable, "-c", FORMATTER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        res = ed.edit("f.py", tag, "replace 3\n+MARKER\n", env={"PYLON_TEST_READBACK_DELAY": "1.5"})
        watcher.wait(timeout=20)
    finally:
        watcher.kill()
    assert res.code == 0, res
    assert "but another process changed it right after the write" in res.out
    assert "3:marker  # formatted" in res.out
    assert "warning: another process changed f.py" in res.err


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user os.access refuses it (test_edit_refusals)")
def test_read_only_file_refused_as_root_unless_force(ed: Ed) -> None:
    path = ed.write("ro.txt", "a\n")
    path.chmod(0o444)
    tag = ed.read("ro.txt")
    res = ed.edit("ro.txt", tag, "replace 1\n+b\n")
    assert res.code == 4 and "error[permission]" in res.err and "--force" in res.err, res
    assert path.read_bytes() == b"a\n"
    res = ed.edit("ro.txt", tag, "replace 1\n+b\n", "--force")
    assert res.code == 0, res
    assert path.read_bytes() == b"b\n" and (path.stat().st_mode & 0o777) == 0o444


def test_a_file_swapped_for_a_link_or_removed_after_it_was_resolved_is_refused_with_its_code(tmp_path: Path) -> None:
    """What another program does between resolving a file and opening it (the races that
    test_outside_writes.py provokes at random, here one at a time): a symbolic link put at the
    resolved name is never followed (`changed-during-edit`), a removed file is `not-found`."""
    from pylon.errors import PylonError
    from pylon.workspace.edits.write import locked, open_real

    target = tmp_path / "elsewhere.txt"
    target.write_text("outside\n")
    name = tmp_path / "f.txt"
    name.symlink_to(target)  # resolved as a plain file a moment ago; a link stands there now
    with pytest.raises(PylonError) as swapped:
        open_real("f.txt", str(name))
    assert swapped.value.code == "changed-during-edit" and "f.txt" in swapped.value.message
    with pytest.raises(PylonError) as at_lock, locked("f.txt", str(name)):  # the same when taking the lock
        pass
    assert at_lock.value.code == "changed-during-edit"
    with pytest.raises(PylonError) as gone, locked("gone.txt", str(tmp_path / "gone.txt")):
        pass
    assert gone.value.code == "not-found" and "gone.txt no longer exists" in gone.value.message
    assert target.read_text() == "outside\n"
