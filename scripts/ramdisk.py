"""Print a private folder for the default tier's scratch files on a RAM disk, or nothing (scripts/test).

The folder is /dev/shm/pylon-tests-<uid> when /dev/shm is a tmpfs mount with at least 512 MiB free;
one that exists but is not this user's own private folder (a link, another owner, open to others)
is never used. Nothing is printed either, and the tests use the disk, for the full tier
(PYLON_TEST_TIER=full), for a TMPDIR set to another folder than /tmp, and with PYLON_TEST_RAMDISK=0.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping

BASE = "/dev/shm"
ROOM = 512 << 20  # bytes free at least: a default-tier run peaked at 33 MiB (docs/benchmarks.md)


def wanted(env: Mapping[str, str]) -> bool:
    """Whether the run may leave the disk: the default tier, no TMPDIR of the caller's own, not turned off."""
    return (
        env.get("PYLON_TEST_TIER", "") != "full"
        and env.get("TMPDIR", "").rstrip("/") in ("", "/tmp")
        and env.get("PYLON_TEST_RAMDISK", "1") != "0"
    )


def is_tmpfs(folder: str, mounts_file: str = "/proc/mounts") -> bool:
    """True when `folder` is itself a mount point of a tmpfs."""
    try:
        with open(mounts_file, encoding="utf-8", errors="replace") as mounts:
            return any(line.split()[1:3] == [folder, "tmpfs"] for line in mounts)
    except OSError:
        return False


def private_folder(base: str, room_needed: int = ROOM) -> str | None:
    """`base`/pylon-tests-<uid>, made if missing, when `base` has the room and the folder is this
    user's alone; else None."""
    try:
        room = os.statvfs(base)
        if room.f_bavail * room.f_frsize < room_needed:
            return None
        path = f"{base}/pylon-tests-{os.getuid()}"
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return path


if __name__ == "__main__":
    on = wanted(os.environ) and sys.platform.startswith("linux") and is_tmpfs(BASE)
    folder = private_folder(BASE) if on else None
    if folder:
        print(folder)
