"""The write path: a per-file lock, compare-and-swap, atomic replace, read-back.

The lock is an exclusive `flock` on the file's own inode, so every pylon process serialises on it
whatever its state directory. Because an atomic replace puts a new inode at the path, a process
that wakes up holding the lock of an inode that is no longer the file's retries on the new one,
and the writer locks its temp file before renaming it into place.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

from pylon.atomic import fsync_dir
from pylon.errors import Exit, PylonError
from pylon.locks import wait_flock

TYPE_CHECKING = False  # contextlib and typing cost start-up time on `pylon read`, which imports us
if TYPE_CHECKING:
    from types import TracebackType


def _lock_timeout() -> float:
    try:
        return max(float(os.environ.get("PYLON_EDIT_LOCK_TIMEOUT", "10")), 0.0)
    except ValueError:
        return 10.0


def cannot_edit(code: str, message: str, hint: str) -> PylonError:
    return PylonError(code, message, hint, exit_code=Exit.CANNOT_EDIT)


def resolve(path: str, write: bool = False) -> tuple[str, os.stat_result]:
    """The real path (symlinks followed) and its stat, or the matching cannot-edit error. Where the
    entry point is confined (pylon/boundary.py), the path is resolved beneath what it may reach and
    `real` names the file through its folder's descriptor (`boundary.key_of` gives its real path);
    `write`: the caller edits it, so a configuration file is refused there too."""
    from pylon import boundary

    try:
        real = boundary.edit_path(path, write=write) or os.path.realpath(path)
        st = os.stat(real)
    except FileNotFoundError:
        from shlex import quote

        raise cannot_edit(
            "not-found",
            f"{path} does not exist.",
            f"To make it: pylon edit {quote(path)} --create --insert-after 0 'first line' (or check the path: "
            "it is relative to the current folder).",
        ) from None
    except PermissionError:
        raise cannot_edit("permission", f"{path} cannot be accessed: permission denied.", f"ls -l {path}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise cannot_edit(
                "symlink-loop",
                f"{path} is a symbolic link that leads back to itself.",
                f"ls -l {path}   # then point the link at a file",
            ) from None
        if exc.errno == errno.ENOTDIR:
            raise cannot_edit(
                "not-found",
                f"{path} does not exist (a part of it is not a folder).",
                "Check the path (it is relative to the current folder).",
            ) from None
        raise
    if stat.S_ISDIR(st.st_mode):
        raise cannot_edit("is-directory", f"{path} is a directory; pylon reads and edits files.", f"ls {path}")
    if not stat.S_ISREG(st.st_mode):
        raise cannot_edit(
            "not-text", f"{path} is not a regular file.", "pylon reads and edits regular text files only."
        )
    return real, st


def open_real(path: str, real: str) -> int:
    """Open the resolved file for reading without following a link at its name: `real` had none
    when it was resolved, so one there now was put there meanwhile (`changed-during-edit`)."""
    try:
        return os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        from pylon.workspace.edits.guard import changed_during_edit

        raise changed_during_edit(path) from None  # a symbolic link now stands at its name


def read_bytes(fd: int, size_hint: int) -> bytes:
    chunks = []
    want = max(size_hint, 0) + 1
    while True:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        want = 1 << 20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_path(path: str, real: str) -> bytes:
    return read_with_stat(path, real)[0]


def read_with_stat(path: str, real: str) -> tuple[bytes, os.stat_result]:
    """The file's bytes and the stat of the inode they came from, taken after reading them."""
    try:
        fd = open_real(path, real)
    except PermissionError:
        raise cannot_edit("permission", f"{path} is not readable: permission denied.", f"ls -l {path}") from None
    try:
        data = read_bytes(fd, os.fstat(fd).st_size)
        return data, os.fstat(fd)
    finally:
        os.close(fd)


class Locked:
    __slots__ = ("fd", "st", "data")

    def __init__(self, fd: int, st: os.stat_result, data: bytes) -> None:
        self.fd, self.st, self.data = fd, st, data


class locked:  # used like a function: `with locked(path, real) as lk: ...`
    """Hold the file's lock and yield its current bytes, read under the lock."""

    def __init__(self, path: str, real: str, timeout: float | None = None) -> None:
        # read when used, not at import: a process that imported pylon earlier still obeys its environment
        self.path, self.real = path, real
        self.timeout = _lock_timeout() if timeout is None else timeout
        self.fd = -1

    def __enter__(self) -> Locked:
        path, real, timeout = self.path, self.real, self.timeout
        deadline = time.monotonic() + timeout
        while True:
            try:
                fd = open_real(path, real)
            except FileNotFoundError:
                raise cannot_edit(
                    "not-found", f"{path} no longer exists.", "Check the path, then read it again."
                ) from None
            except PermissionError:
                raise cannot_edit(
                    "permission", f"{path} is not readable: permission denied.", f"ls -l {path}"
                ) from None
            try:
                acquired = wait_flock(fd, deadline)
            except BaseException:
                os.close(fd)
                raise
            if not acquired:
                os.close(fd)
                raise cannot_edit(
                    "lock-timeout",
                    f"Another pylon process has been editing {path} for over {timeout:g}s.",
                    "Wait for it to finish, then run the same command again.",
                )
            st = os.fstat(fd)
            try:
                now = os.stat(real)
            except FileNotFoundError:
                now = None
            if now is None or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
                os.close(fd)  # replaced while we waited: lock the file that is there now
                continue
            try:
                data, st = _stable_read(fd, st)
            except BaseException:
                os.close(fd)
                raise
            self.fd = fd
            return Locked(fd, st, data)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        fd, self.fd = self.fd, -1
        os.close(fd)


def _stable_read(fd: int, st: os.stat_result) -> tuple[bytes, os.stat_result]:
    """The bytes and a stat taken before and after reading them that agree (another program may
    be writing meanwhile: then read again, a few times), so the stat describes exactly these bytes."""
    from pylon.workspace.edits.guard import identity

    for _ in range(5):
        os.lseek(fd, 0, os.SEEK_SET)
        data = read_bytes(fd, st.st_size)
        after = os.fstat(fd)
        if identity(after) == identity(st) and len(data) == after.st_size:
            break
        st = after
    return data, st


def check_writable(path: str, real: str, st: os.stat_result, force: bool = False) -> None:
    if not os.access(real, os.W_OK):
        raise cannot_edit(
            "permission",
            f"{path} is read-only for you (mode {stat.filemode(st.st_mode)}).",
            f"chmod u+w {path}   # then run the same edit again",
        )
    # root passes every access check; a mode without any write bit still says "do not write".
    if not force and not st.st_mode & 0o222:
        raise cannot_edit(
            "permission",
            f"{path} is read-only (mode {stat.filemode(st.st_mode)}); root could write it, "
            "but pylon refuses as other tools do.",
            f"chmod u+w {path}   # or run the same edit with --force",
        )
    if not os.access(os.path.dirname(real) or ".", os.W_OK | os.X_OK):
        raise cannot_edit(
            "permission",
            f"The folder of {path} is not writable, so it cannot be replaced atomically.",
            f"ls -ld {os.path.dirname(real) or '.'}",
        )


def replace(path: str, real: str, lk: Locked, pieces: list[bytes | memoryview]) -> tuple[int, list[str]]:
    """Write the pieces over the file; the fd now holding its content (to close later) and notes.

    Always atomic: a locked temp file with the same mode (and owner, where allowed) is fsynced and
    renamed over the file, so readers see the old bytes or the new bytes, never a mix. A file with
    several hard links is replaced too (an in-place rewrite could be torn by a crash): the other
    names keep the old content, and a note says so. Just before the rename the file must still be
    what was hashed (else `changed-during-edit`, nothing written); a write that reached the old
    inode during the rename is saved beside the file and reported.
    """
    from pylon.workspace.edits import guard

    st = lk.st
    notes: list[str] = []
    if guard.remove_stale_temps(real):
        notes.append(f"removed temp files a killed pylon left beside {path}.")
    folder, name = os.path.split(real)
    tmp = os.path.join(folder, f".{name}.pylon-tmp-{os.getpid()}-{os.urandom(3).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # newcomers that open the path after the rename wait on it
        _write_all(fd, pieces)
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.fchown(fd, st.st_uid, st.st_gid)
            except OSError:
                pass
        os.fsync(fd)
        leased = guard.take_lease(lk.fd)
        keep: str | None = None
        try:
            delay = os.environ.get("PYLON_TEST_WRITE_DELAY")
            if delay:
                time.sleep(float(delay))  # test seam: widens the gap between the hash and the rename
            guard.check_unchanged(path, real, lk.fd, lk.st, lk.data)
            keep = _keep_old(real, tmp) if leased else None  # after the check: a link changes ctime
            if keep is not None and guard.writer_waiting(lk.fd):
                raise guard.changed_during_edit(path)  # opened for writing since the lease: theirs wins
            os.rename(tmp, real)
            if keep is not None and guard.writer_waiting(lk.fd):
                # Another program opened the old inode just now and will write it once the lease
                # is dropped: put that inode back at the path, so its write is not lost.
                os.rename(keep, real)
                keep = None
                raise guard.changed_during_edit(path)
        finally:
            if keep is not None:
                os.unlink(keep)
            if leased:
                guard.drop_lease(lk.fd)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(folder or ".")
    if guard.written_meanwhile(lk.fd, st):
        saved = guard.save_old_inode(path, real, lk.fd)
        notes.append(
            f"another program wrote to {path} while pylon replaced it (an outside write); its version is "
            f"saved as {saved}: compare and merge it."
        )
    if st.st_nlink > 1:
        notes.append(
            f"{path} had {st.st_nlink} hard links; it was replaced atomically, so its other names keep the old content."
        )
    return fd, notes


def _keep_old(real: str, tmp: str) -> str | None:
    """A hard link to the file's current inode, named like the temp file (so the stale-temp sweep
    removes it after a crash); None where links are not possible."""
    keep = tmp + "-old"
    try:
        os.link(real, keep)
    except OSError:
        return None
    return keep


def _write_all(fd: int, pieces: list[bytes | memoryview]) -> int:
    """Write the pieces in order with as few system calls as possible (writev, 512 at a time)."""
    views = [memoryview(p) for p in pieces if len(p)]
    total = sum(len(v) for v in views)
    i = 0
    while i < len(views):
        batch = views[i : i + 512]
        done = os.writev(fd, batch)
        for view in batch:  # a short write: skip what was written, retry with the rest
            if done >= len(view):
                done -= len(view)
                i += 1
            else:
                views[i] = view[done:]
                break
    return total


FULL_READBACK_MAX = 4 * 1024 * 1024


def changed_since_write(path: str, real: str, fd: int, pieces: list[bytes | memoryview], size: int) -> bytes | None:
    """The file's bytes when another process changed it after our write, else None.

    Any other writer changes the inode (a replace), or the size, mtime or ctime (an in-place
    write), so the identity check catches it at any size; files up to FULL_READBACK_MAX bytes are
    also compared byte for byte.
    """
    mine = os.fstat(fd)
    try:
        now = os.stat(real)
    except FileNotFoundError:
        return b""
    same = (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (
        mine.st_dev,
        mine.st_ino,
        size,
        mine.st_mtime_ns,
        mine.st_ctime_ns,
    )
    if same and size > FULL_READBACK_MAX:
        return None
    back = read_path(path, real)
    if same and back == b"".join(pieces):
        return None
    return back
