"""pylon.atomic: replace keeps mode and symlinks, exclusive create never overwrites, no temp left."""

from __future__ import annotations

import os
from pathlib import Path

from pylon.atomic import atomic_write, create_exclusive


def test_atomic_write_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    target.chmod(0o751)
    assert atomic_write(target, b"new") == str(target)
    assert target.read_bytes() == b"new"
    assert (target.stat().st_mode & 0o777) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_atomic_write_follows_a_symlink_and_keeps_it(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    assert atomic_write(link, b"new") == str(real)
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert real.read_bytes() == b"new"


def test_new_file_gets_the_requested_mode(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    atomic_write(target, b"x", mode=0o600)
    assert (target.stat().st_mode & 0o777) == 0o600


def test_create_exclusive_never_overwrites(tmp_path: Path) -> None:
    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    target = tmp_path / "entry.md"
    assert create_exclusive(target, b"first") is True
    assert create_exclusive(target, b"second") is False
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.md"]


def test_atomic_write_never_replaces_a_fifo_or_device_behind_a_link(tmp_path: Path) -> None:
    # As root, a rename over a link's target /dev/null replaced the machine's /dev/null with a file.
    import stat

    import pytest

    from pylon.errors import PylonError

    tmp_path = tmp_path / "w"
    tmp_path.mkdir()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "article.md"
    link.symlink_to(fifo)
    with pytest.raises(PylonError) as caught:
        atomic_write(link, b"new")
    assert caught.value.code == "not-regular"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["article.md", "pipe"]  # no temp file left
