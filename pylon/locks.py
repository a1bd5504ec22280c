"""Cross-process advisory locks (fcntl.flock on a lock file) with a timeout."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from pylon.errors import Exit, PylonError


def wait_flock(fd: int, deadline: float) -> bool:
    """Take an exclusive flock on `fd`, polling with backoff until the monotonic `deadline`.

    Returns False on timeout. Polling (not a blocking flock) keeps the timeout exact and lets
    Ctrl-C through.
    """
    delay = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


@contextmanager
def file_lock(lock_path: str | os.PathLike[str], *, timeout: float = 10.0, what: str = "") -> Iterator[None]:
    """Hold an exclusive lock on `lock_path` (created if needed) for the duration of the block.

    Raises `lock-timeout` (exit 4) when another process holds it for longer than `timeout` seconds.
    """
    path = os.fspath(lock_path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not wait_flock(fd, time.monotonic() + timeout):
            raise PylonError(
                "lock-timeout",
                f"Another pylon process has held the lock for {what or path} for over {timeout:g}s.",
                "Wait for it to finish, then run the same command again.",
                exit_code=Exit.CANNOT_EDIT,
            )
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
