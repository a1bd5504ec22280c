"""Cross-process advisory locks (fcntl.flock on a lock file) with a timeout."""

from __future__ import annotations

import errno
import fcntl
import os
import time

from pylon.errors import Exit, PylonError

TYPE_CHECKING = False  # contextlib and typing cost start-up time on `pylon read`; a class does
if TYPE_CHECKING:
    from types import TracebackType


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


def is_held(lock_path: str | os.PathLike[str]) -> bool:
    """True while some process holds an exclusive flock on `lock_path` (False when it does not exist)."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


class file_lock:  # noqa: N801 - used like a function: `with file_lock(path): ...`
    """Hold an exclusive lock on `lock_path` (created if needed) for the duration of the block.

    Raises `lock-timeout` (exit 1; `exit_code` 4 for the edits' locks, whose file cannot be
    edited then) when another process holds it for longer than `timeout` seconds.
    """

    def __init__(self, lock_path: str | os.PathLike[str], *, timeout: float = 10.0, what: str = "",
                 exit_code: int = Exit.FAILED) -> None:
        self.path = os.fspath(lock_path)
        self.timeout, self.what, self.exit_code = timeout, what, exit_code
        self.fd = -1

    def __enter__(self) -> None:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            acquired = wait_flock(fd, time.monotonic() + self.timeout)
        except BaseException:
            os.close(fd)
            raise
        if not acquired:
            os.close(fd)
            raise PylonError(
                "lock-timeout",
                f"Another pylon process has held the lock for {self.what or self.path} for over {self.timeout:g}s.",
                "Wait for it to finish, then run the same command again.",
                exit_code=self.exit_code,
            )
        self.fd = fd

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        fd, self.fd = self.fd, -1
        os.close(fd)  # closing the descriptor releases the lock
