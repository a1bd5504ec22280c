"""Atomic file writes: temp file in the same folder, fsync, rename. Nothing is ever half-written."""

from __future__ import annotations

import os
import stat

# No pathlib here: the edit hot path imports this module, and pathlib costs ~10 ms of start-up.


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename inside `folder` durable (best effort: some file systems refuse it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_beside(target: str, data: bytes) -> str:
    """Write `data` to a new, fsynced temp file in `target`'s folder and return its path."""
    folder = os.path.dirname(target) or "."
    tmp = os.path.join(folder, f".{os.path.basename(target)}.pylon-tmp-{os.getpid()}-{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def atomic_write(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> str:
    """Replace `path` with `data` atomically and return the real path written (a str).

    A symlink is followed (the link stays a link, its target is replaced). The file's permission
    bits are kept; a new file gets `mode` or 0o666 minus the umask.
    """
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        existing_mode: int | None = None
    else:
        if not stat.S_ISREG(st.st_mode):
            # Renaming over a device (a link to /dev/null, say) would replace the device itself.
            from pylon.errors import PylonError

            raise PylonError(
                "not-regular",
                f"{path} is not a regular file (a device, FIFO or socket); nothing was written.",
                f"Replace {path} with a regular file, then run the command again.",
            )
        existing_mode = stat.S_IMODE(st.st_mode)
    tmp = _temp_beside(target, data)
    try:
        if existing_mode is not None:
            os.chmod(tmp, existing_mode)
        elif mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_dir(os.path.dirname(target))
    return target


def replace_unsynced(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace a file of derived state (ledgers, memos, private caches): temp file + rename, no fsync.

    A reader sees the old or the new content, never a mix; a power cut may lose the write, which
    only costs recomputing it. Never use this for a user's file (use atomic_write).
    """
    target = os.fspath(path)
    tmp = f"{target}.{os.getpid()}-{os.urandom(3).hex()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def create_exclusive(path: str | os.PathLike[str], data: bytes) -> bool:
    """Create `path` with `data` only if it does not exist yet; False when it already exists.

    The content is written to a temp file first and then hard-linked into place, so a reader never
    sees a half-written file and two writers never overwrite each other.
    """
    target = os.fspath(path)
    tmp = _temp_beside(target, data)
    try:
        os.link(tmp, target)
    except FileExistsError:
        return False
    finally:
        _unlink_quietly(tmp)
    fsync_dir(os.path.dirname(target) or ".")
    return True


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs (another user's counts as running): a temp file named with its
    writer's PID is left alone while that writer may still be writing it."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # EPERM: it exists, owned by someone else
    return True
