"""Writers that ignore pylon's lock (editors, formatters, `echo >>`), and what killed edits leave.

pylon's per-file lock only serialises pylon processes. Another program can write the file after
the compare-and-swap read it; `check_unchanged` refuses the edit when the file is no longer what
was hashed, just before the rename, and `written_meanwhile` catches a write that reached the old
inode during the rename itself (its version is then saved beside the file, never dropped).

Where the kernel allows it (Linux, a local file system, no other process holding the file open),
a write lease (fcntl F_SETLEASE) closes the gap entirely: from just before the last check until
after the rename, any other process opening the file waits in open() and breaks the lease. A
broken lease after the rename means someone is about to write the old inode, so the old inode is
put back at the path (a hard link kept for that) and the edit is refused: their write lands in
the file, nothing is lost. A process opening it only to read waits a few microseconds, nothing more.
See docs/explanation/edits.md (The write path).
"""

from __future__ import annotations

import fcntl
import os

from pylon.errors import PylonError

COMPARE_MAX = 4 * 1024 * 1024  # files up to this size are also compared byte for byte


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What any write changes: a replace changes the inode, an in-place write size or mtime/ctime."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def changed_during_edit(path: str) -> PylonError:
    return PylonError(
        "changed-during-edit",
        f"Another program changed {path} while pylon was editing it; nothing was written and its change is kept.",
        f"pylon read {path}   # then redo the edit with the new tag",
    )


def check_unchanged(path: str, real: str, fd: int, st: os.stat_result, data: bytes) -> None:
    """Refuse (nothing written) when `real` is no longer the file, bytes and all, that was hashed.

    Timestamps tick coarsely (a few ms), so a same-size rewrite inside one tick keeps the stat;
    files up to COMPARE_MAX bytes are therefore also read again and compared.
    """
    try:
        now = os.stat(real)
    except FileNotFoundError:
        raise changed_during_edit(path) from None
    if identity(now) != identity(st):
        raise changed_during_edit(path)
    if len(data) <= COMPARE_MAX and os.pread(fd, len(data) + 1, 0) != data:
        raise changed_during_edit(path)


F_SETLEASE, F_GETLEASE = 1024, 1025  # linux/fcntl.h; Python's fcntl module names them from 3.12


def take_lease(fd: int) -> bool:
    """A write lease on the file `fd` holds: False when the kernel refuses it (another process has
    the file open, a file system without leases, not Linux); the caller then relies on the checks."""
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        # A broken lease signals SIGIO, whose default action ends the process; the break is polled instead.
        signal.signal(signal.SIGIO, signal.SIG_IGN)
        fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
    except (OSError, ValueError):  # ValueError: not the main thread
        return False
    return True


def writer_waiting(fd: int) -> bool:
    """Whether another process opened the leased file for writing (it waits for drop_lease). A
    reader breaks the lease only down to a read lease: it cannot write, so it is no threat."""
    try:
        return fcntl.fcntl(fd, F_GETLEASE) == fcntl.F_UNLCK
    except OSError:
        return True


def drop_lease(fd: int) -> None:
    try:
        fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass


def written_meanwhile(fd: int, st: os.stat_result) -> bool:
    """Whether the old inode `fd` got bytes after the read `st` describes (the rename itself
    changes only its ctime)."""
    now = os.fstat(fd)
    return (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns)


def save_old_inode(path: str, real: str, fd: int) -> str:
    """Save what the other program wrote to the replaced inode beside the file; the name shown."""
    from pylon.atomic import atomic_write

    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    saved = f"{real}.pylon-outside-{os.getpid()}"
    atomic_write(saved, b"".join(chunks), mode=0o600)
    return f"{path}.pylon-outside-{os.getpid()}" if os.path.realpath(path) == real else saved


def remove_stale_temps(real: str) -> int:
    """Delete temp files a killed pylon left beside `real`; how many.

    A temp file is `.NAME.pylon-tmp-PID-HEX`; a running edit holds an flock on its own, and its
    PID is alive, so only files whose writer is gone (PID not running, lock free) are removed.
    """
    from pylon.atomic import pid_alive

    folder, name = os.path.split(real)
    prefix = f".{name}.pylon-tmp-"
    removed = 0
    try:
        entries = [e.name for e in os.scandir(folder or ".") if e.name.startswith(prefix)]
    except OSError:
        return 0
    for entry in entries:
        pid_text = entry[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or pid_alive(int(pid_text)):
            continue
        full = os.path.join(folder, entry)
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(full)
            removed += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed
