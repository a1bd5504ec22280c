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


_HELD: dict[str, int] = {}  # announced locks this process holds: path -> descriptor


def _holder(fd: int) -> dict[str, object]:
    """What the holder of an announced lock wrote into it (empty when nothing readable)."""
    import json

    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _stamp(fd: int, info: dict[str, object]) -> None:
    import json

    data = json.dumps(info, sort_keys=True).encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass  # who holds it is a courtesy to waiters, never a reason to fail


def annotate(lock_path: str | os.PathLike[str], **info: object) -> None:
    """Add to what an announced lock this process holds tells its waiters (e.g. the op id)."""
    fd = _HELD.get(os.fspath(lock_path))
    if fd is not None:
        _stamp(fd, {**_holder(fd), **info})


def holder_text(info: dict[str, object]) -> str:
    """`pid 123 (`pylon ws move a`, op 7) since 02:40:01 UTC` from a lock's holder record."""
    if not info.get("pid"):
        return "another pylon process"
    extra = [f"`{info['command']}`"] if info.get("command") else []
    if info.get("op"):
        extra.append(f"op {info['op']}")
    since = ""
    stamp = info.get("since")
    if isinstance(stamp, (int, float)):
        since = " since " + time.strftime("%H:%M:%S UTC", time.gmtime(float(stamp)))
    return f"pid {info['pid']}" + (f" ({', '.join(extra)})" if extra else "") + since


def _command() -> str:
    import sys

    words = [os.path.basename(sys.argv[0] or "pylon"), *sys.argv[1:]]
    return " ".join(words)[:200]


NOTICE_AFTER = 0.5  # seconds of waiting before an announced lock says so on stderr


class file_lock:  # used like a function: `with file_lock(path): ...`
    """Hold an exclusive lock on `lock_path` (created if needed) for the duration of the block.

    Raises `lock-timeout` (exit 1; `exit_code` 4 for the edits' locks, whose file cannot be
    edited then) when another process holds it for longer than `timeout` seconds.
    An `announce`d lock records its holder in the lock file (pid, command, since, and what
    `annotate` adds), and a process waiting for it says so on stderr after NOTICE_AFTER seconds:
    who holds it, since when, and how long it will wait.
    """

    def __init__(
        self,
        lock_path: str | os.PathLike[str],
        *,
        timeout: float = 10.0,
        what: str = "",
        exit_code: int = Exit.FAILED,
        announce: bool = False,
    ) -> None:
        self.path = os.fspath(lock_path)
        self.timeout, self.what, self.exit_code, self.announce = timeout, what, exit_code, announce
        self.fd = -1

    def __enter__(self) -> None:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        try:
            if self.announce:
                acquired = wait_flock(fd, min(deadline, time.monotonic() + NOTICE_AFTER))
                if not acquired and time.monotonic() < deadline:
                    self._notice(fd)
                    acquired = wait_flock(fd, deadline)
            else:
                acquired = wait_flock(fd, deadline)
        except BaseException:
            os.close(fd)
            raise
        if not acquired:
            holder = _holder(fd) if self.announce else {}
            os.close(fd)
            raise PylonError(
                "lock-timeout",
                f"The lock for {self.what or self.path} has been held for over {self.timeout:g}s by "
                f"{holder_text(holder)}.",
                "Wait for it to finish, then run the same command again."
                + (f" If it hangs, stop it: kill {holder['pid']}" if holder.get("pid") else ""),
                exit_code=self.exit_code,
                details={"lock": self.path, "holder": holder} if holder else None,
            )
        self.fd = fd
        if self.announce:
            _stamp(fd, {"pid": os.getpid(), "command": _command(), "since": int(time.time())})
            _HELD[self.path] = fd

    def _notice(self, fd: int) -> None:
        import sys

        text = (
            f"pylon: waiting for {self.what or self.path}: held by {holder_text(_holder(fd))}; "
            f"giving up after {self.timeout:g} s\n"
        )
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError, UnicodeEncodeError):
            pass

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        fd, self.fd = self.fd, -1
        if self.announce:
            _HELD.pop(self.path, None)
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
        os.close(fd)  # closing the descriptor releases the lock
