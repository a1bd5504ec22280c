"""Bounded reads of what a user names as input: a file, or `-` for stdin.

Every input has a size its reader accepts, and is read no further than that: `/dev/zero` or a
runaway pipe ends in `too-large`, never in a hang or an exhausted memory. A file is opened without
blocking (a FIFO with no writer cannot stall the open) and must be a regular file: a FIFO, socket
or device given as a file is refused (`not-regular`) before one byte is read. Each refusal of the
file system has its stable code (docs/errors.md). Imports nothing beyond the interpreter's own
(and pylon/boundary.py, which decides what a confined entry point may open).
"""

from __future__ import annotations

import errno
import os
import stat

from pylon import boundary
from pylon.errors import PylonError, UsageError

_OPEN = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"


def too_large(shown: str, what: str, limit: int, hint: str) -> PylonError:
    return PylonError(
        "too-large", f"{shown} is over {size_text(limit)}, too large for a {what}.", hint, details={"limit": limit}
    )


def open_error(exc: OSError, shown: str, what: str, hint: str, missing: bool = True) -> PylonError:
    """The coded error for an OSError met opening `shown`; FileNotFoundError passes on with `missing` False."""
    number = exc.errno
    if number in (errno.ENOENT, errno.ENOTDIR):
        if not missing and isinstance(exc, FileNotFoundError):
            raise exc
        return PylonError("not-found", f"{shown} does not exist.", hint)
    if number in (errno.EACCES, errno.EPERM):
        return PylonError("permission", f"{shown} cannot be accessed (permission denied).", hint)
    if number == errno.EISDIR:
        return PylonError("is-directory", f"{shown} is a folder where a {what} belongs.", hint)
    if number == errno.ENAMETOOLONG:
        return UsageError("name-too-long", f"{shown[:80]}... is longer than the file system allows for a path.", hint)
    if number == errno.ELOOP:
        return PylonError(
            "symlink-loop", f"{shown} is a symbolic link that leads back to itself (or through too many links).", hint
        )
    if number == errno.ENXIO:  # a socket, or a FIFO with no writer under O_NONBLOCK on some systems
        return not_regular(shown, what, hint)
    return PylonError("unreadable", f"{shown} cannot be read ({exc.strerror}).", hint)


def not_regular(shown: str, what: str, hint: str) -> PylonError:
    return PylonError(
        "not-regular",
        f"{shown} is not a regular file (a FIFO, socket or device) where a {what} "
        "belongs; it is not read, so nothing hangs.",
        hint,
    )


def read_file(
    path: str, limit: int, *, shown: str = "", what: str = "file", hint: str = "", missing: bool = True
) -> bytes:
    """The bytes of the regular file at `path` (links followed), never blocking, never over `limit`.

    `shown` names it in messages (default: the path); `missing` False lets FileNotFoundError pass
    (for callers to whom absence means something). Every other failure is a PylonError."""
    shown = shown or path
    hint = hint or f"ls -ld {path}"
    try:
        fd = boundary.open_file(path, _OPEN)  # a confined entry point: only beneath what it may reach
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        if isinstance(exc, ValueError):
            raise UsageError("usage", f"{shown!r} holds a NUL byte, which no file name can hold.", hint) from None
        raise open_error(exc, shown, what, hint, missing) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise PylonError("is-directory", f"{shown} is a folder where a {what} belongs.", hint)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(shown, what, hint)
        if info.st_size > limit:
            raise too_large(shown, what, limit, hint)
        return read_to_limit(fd, limit, shown, what, hint)
    except OSError as exc:
        raise PylonError("unreadable", f"{shown} cannot be read ({exc.strerror}).", hint) from None
    finally:
        os.close(fd)


def read_to_limit(fd: int, limit: int, shown: str, what: str, hint: str) -> bytes:
    """Read `fd` to its end, not to st_size (a file can grow while it is read), at most `limit` bytes."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise too_large(shown, what, limit, hint)
        chunks.append(chunk)


def read_stdin(limit: int, *, what: str, hint: str) -> bytes:
    """All of stdin, up to `limit` bytes: more (a pipe from /dev/zero) is `too-large`, read no further."""
    import sys

    stream = sys.stdin.buffer if sys.stdin is not None else None
    if stream is None:
        raise PylonError("not-found", f"stdin is closed, and the {what} was to come from it.", hint)
    try:
        data = stream.read(limit + 1)
    except OSError as exc:
        raise PylonError("unreadable", f"stdin cannot be read ({exc.strerror}).", hint) from None
    if len(data) > limit:
        raise too_large("stdin", what, limit, hint)
    return data


def read_input(name: str, limit: int, *, option: str, what: str, hint: str) -> bytes:
    """`name` as given to `option` (`--body-file`, `--ops-file`): a file, or `-` for stdin."""
    if name == "-":
        return read_stdin(limit, what=what, hint=hint)
    return read_file(name, limit, shown=f"{option} {name}", what=what, hint=hint)
