"""Atomic file writes: temp file in the same folder, fsync, rename. Nothing is ever half-written."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _fsync_dir(folder: Path) -> None:
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


def atomic_write(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> Path:
    """Replace `path` with `data` atomically and return the real path written.

    A symlink is followed (the link stays a link, its target is replaced). The file's permission
    bits are kept; a new file gets `mode` or 0o666 minus the umask.
    """
    target = Path(os.path.realpath(path))
    folder = target.parent
    try:
        existing_mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        existing_mode = None
    tmp = folder / f".{target.name}.pylon-tmp-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if existing_mode is not None:
            os.chmod(tmp, existing_mode)
        elif mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(folder)
    return target


def create_exclusive(path: str | os.PathLike[str], data: bytes) -> bool:
    """Create `path` with `data` only if it does not exist yet; False when it already exists.

    The content is written to a temp file first and then hard-linked into place, so a reader never
    sees a half-written file and two writers never overwrite each other.
    """
    target = Path(path)
    tmp = target.parent / f".{target.name}.pylon-tmp-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    _fsync_dir(target.parent)
    return True
