"""Reading and writing store files so that hostile or broken content cannot hurt the user.

- Reads open only regular files, never block (a FIFO named `x.md` would hang `open()`), and stop
  at a size cap (an article linked to `/dev/zero`, or a 10 GB file, must not exhaust memory).
- Writes stay inside `.canon/`: every folder from `.canon/` down to the file is opened with a
  directory descriptor and `O_NOFOLLOW`, and the file is replaced by `renameat` on that
  descriptor, so a symbolic link planted anywhere on the way (an article, `articles/`, an address
  folder, `journal/`) is refused instead of written through, with no window between a check and
  the write. Temp files are named `.<name>.pylon-tmp-*`: `.canon/.gitignore` ignores them, every
  walker skips them, the next write of that article removes them and lint reports them.

On the path of `canon read`: only os, stat and errno at module level.
"""

from __future__ import annotations

import errno
import os
import stat

from pylon.errors import PylonError, UsageError

ARTICLE_MAX = 8 * 1024 * 1024  # an article 400x the body-large threshold is not an article
SCHEMA_MAX = 1024 * 1024
TEMP_MARK = ".pylon-tmp-"
NAME_MAX = 255  # bytes per file name on every file system pylon supports
PATH_MAX = 4096  # bytes per whole path, the terminating NUL included (Linux; macOS allows 1024)
# `.<name>.pylon-tmp-<pid>-<8 hex>` around an article's file name: pids have at most 7 digits.
TEMP_OVERHEAD = 1 + len(TEMP_MARK) + 7 + 1 + 8
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW


def read_regular(path: str, limit: int = ARTICLE_MAX, what: str = "file") -> bytes:
    """The bytes of the regular file at `path` (links followed), never blocking and never more
    than `limit` bytes. Raises PylonError: `is-directory`, `not-regular`, `too-large`,
    `permission`, `unreadable`...; FileNotFoundError passes through (callers decide what absence means)."""
    from pylon.inputs import read_file

    return read_file(path, limit, what=what, hint=f"ls -l {path}", missing=False)


def check_size(data: bytes, shown: str) -> None:
    """`too-large` for an article or entry over what `canon read` reads (ARTICLE_MAX), before any write."""
    from pylon.inputs import too_large

    if len(data) > ARTICLE_MAX:
        raise too_large(
            f"{shown} would be {len(data):,} bytes, which",
            "file canon reads back",
            ARTICLE_MAX,
            "Shorten the text (split it over several articles or entries); nothing was written.",
        )


def not_regular(path: str, what: str) -> PylonError:
    return PylonError(
        "not-regular",
        f"{path} is not a regular file (a FIFO, socket or device) where a {what} belongs.",
        f"Remove it: rm {path}",
    )


def too_large(path: str, what: str, limit: int) -> PylonError:
    return PylonError(
        "too-large",
        f"{path} is over {limit // (1024 * 1024)} MiB, too large for a {what}.",
        f"Split it or move it out of .canon/: ls -l {path}",
    )


def check_name_lengths(segments: list[str], suffix: str = ".md", base: str | None = None) -> None:
    """Refuse up front, before any side effect, a name the file system would reject: a segment over
    255 bytes (the last one with room for the temp file a write makes first), or, with `base` (the
    folder the segments go in), a whole path of PATH_MAX bytes or more, which git and most tools
    cannot handle even though canon could write it through directory descriptors."""
    hint = "Use a shorter address: canon write src/short-name --body ..."
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        size = len((seg + (suffix if last else "")).encode("utf-8", "surrogatepass"))
        if size > NAME_MAX or (last and size > NAME_MAX - TEMP_OVERHEAD):
            room = NAME_MAX - TEMP_OVERHEAD if last else NAME_MAX
            raise UsageError(
                "name-too-long",
                f"The address segment {seg[:40]!r}... is {size} bytes as a file name; "
                f"the limit is {room}" + (" (the temp file of a write needs the rest)." if last else "."),
                hint,
            )
    if base is not None:
        check_path_length(os.path.join(base, *segments) + suffix, hint)


def check_path_length(path: str, hint: str) -> None:
    """`name-too-long` for a path of PATH_MAX (4096) bytes or more, the file system's limit."""
    size = len(os.fsencode(path))
    if size >= PATH_MAX:
        raise UsageError(
            "name-too-long",
            f"The path {path[:60]}... is {size} bytes; the limit for a whole path is {PATH_MAX - 1}.",
            hint,
        )


def os_error(exc: OSError, path: str) -> PylonError:
    """A coded error for what the file system refused while writing `path`."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return PylonError(
            "disk-full",
            f"The disk holding {path} is full; nothing was written.",
            f"Free some space (df -h {os.path.dirname(path)}), then run the command again.",
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return PylonError(
            "permission",
            f"{path} cannot be written ({exc.strerror}); nothing was written.",
            f"ls -ld {os.path.dirname(path)}   # fix the permissions, then run the command again",
        )
    if exc.errno == errno.ENAMETOOLONG:
        return UsageError(
            "name-too-long", f"A file name in {path} is too long for the file system.", "Use a shorter address."
        )
    if exc.errno == errno.ENOTDIR:
        return PylonError(
            "not-a-directory",
            f"A file sits where a folder of {path} belongs.",
            "Move it out of the way, then run the command again.",
        )
    return PylonError("unwritable", f"{path} cannot be written ({exc.strerror}); nothing was written.", f"ls -l {path}")


def symlink_refused(path: str) -> PylonError:
    return PylonError(
        "symlink",
        f"{path} is a symbolic link inside .canon/; canon never writes through a link (it could lead "
        "anywhere the user can write).",
        f"Replace the link with a real file or folder (ls -l {path}), then run the command again.",
    )


def open_dir(fd: int, name: str, shown: str, create: bool, made: list[str]) -> int:
    """The folder `name` in `fd`, never through a link (`symlink`); made first when missing and `create`."""
    try:
        return os.open(name, _DIR, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            try:
                is_link = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
            except OSError:
                is_link = False
            if is_link:
                raise symlink_refused(shown) from None
            raise PylonError(
                "not-a-directory",
                f"{shown} exists but is not a folder.",
                f"Move {shown} out of the way, then run the command again.",
            ) from None
        raise os_error(exc, shown) from None
    try:
        os.mkdir(name, dir_fd=fd)
        made.append(shown)
    except FileExistsError:
        pass  # another writer made it a moment ago; opening it below still refuses a link
    except OSError as exc:
        raise os_error(exc, shown) from None
    return open_dir(fd, name, shown, False, made)


def _open_canon(canon_dir: str) -> int:
    """`.canon/` itself, never through a link; for a confined entry point its folder is opened
    beneath what that entry point may reach (pylon/boundary.py), so no swapped folder on the way counts."""
    from pylon import boundary

    if boundary.current() is None:
        return os.open(canon_dir, _DIR)
    parent = boundary.open_folder(os.path.dirname(canon_dir))
    try:
        return os.open(os.path.basename(canon_dir), _DIR, dir_fd=parent)
    finally:
        os.close(parent)


CACHE_IGNORE = "# derived data, rebuilt automatically\n*\n"  # `.cache/.gitignore`


def cache_folder(canon_dir: str) -> str:
    """`.canon/.cache`. For a confined entry point, a name that reaches it through descriptors
    (`/proc/self/fd/N/.`, held until the call ends): `.canon/` walked beneath what it may reach,
    `.cache` made (with its `*` .gitignore) and opened without following a link, so a folder swapped
    for a link meanwhile cannot carry the journal index, the schema cache or the write lock out.
    The plain path for a person, without /proc, without `.canon/`, or when `.cache` is a link (the
    callers refuse or skip that)."""
    from pylon import boundary

    plain = os.path.join(canon_dir, ".cache")
    reach = boundary.current()
    if reach is None or not os.path.isdir("/proc/self/fd"):
        return plain
    if plain not in reach.pins:
        try:
            canon = _open_canon(canon_dir)
        except (OSError, PylonError):
            return plain
        try:
            fd = _cache_in(canon)
        except OSError:
            return plain
        finally:
            os.close(canon)
        reach.hold(fd)
        reach.pins[plain] = f"/proc/self/fd/{fd}/."
    return reach.pins[plain]


def _cache_in(canon: int) -> int:
    """`.cache` in the `.canon/` open as `canon`: made with its .gitignore when missing, never a link."""
    try:
        os.mkdir(".cache", dir_fd=canon)
        made = True
    except FileExistsError:
        made = False
    fd = os.open(".cache", _DIR, dir_fd=canon)
    if made:
        try:
            ignore = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=fd)
            with os.fdopen(ignore, "w", encoding="utf-8") as fh:
                fh.write(CACHE_IGNORE)
        except OSError:
            pass  # another writer made it; or it cannot be: `.canon/.gitignore` ignores `.cache/` too
    return fd


class StoreDir:
    """A folder inside `.canon/`, held open by descriptor from `.canon/` down (no link followed).
    Use as a context manager; `made` lists the folders it created (for a rollback)."""

    def __init__(self, canon_dir: str, parts: list[str], create: bool = True) -> None:
        self.path = os.path.join(canon_dir, *parts)
        self.made: list[str] = []
        try:
            fd = _open_canon(canon_dir)
        except OSError as exc:
            if exc.errno == errno.ELOOP or os.path.islink(canon_dir):
                raise symlink_refused(canon_dir) from None
            raise os_error(exc, canon_dir) from None
        shown = canon_dir
        try:
            for part in parts:
                shown = os.path.join(shown, part)
                nxt = open_dir(fd, part, shown, create, self.made)
                os.close(fd)
                fd = nxt
        except BaseException:
            os.close(fd)
            self.rollback()
            raise
        self.fd = fd

    def __enter__(self) -> StoreDir:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def rollback(self) -> None:
        """Remove the folders this object created (emptied ones only), deepest first."""
        for folder in reversed(self.made):
            try:
                os.rmdir(folder)
            except OSError:
                pass
        self.made = []

    def _temp(self, name: str, data: bytes, mode: int | None) -> str:
        tmp = f".{name}{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=self.fd)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            self._unlink(tmp)
            raise
        os.close(fd)
        return tmp

    def _unlink(self, name: str) -> None:
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass

    def remove_stale_temps(self, name: str) -> None:
        """Delete temp files a killed writer of `name` left: those whose writer's PID (the name's
        `.NAME.pylon-tmp-PID-HEX`) is not running. The caller holds the store's write lock, but a
        first write into a project without a store runs without one, so a live writer's temp file
        stays (removing it once failed that writer with `unwritable`)."""
        from pylon.atomic import pid_alive

        prefix = f".{name}{TEMP_MARK}"
        for entry in os.listdir(self.fd):
            pid = entry[len(prefix) :].split("-", 1)[0]
            if entry.startswith(prefix) and not (pid.isdigit() and pid_alive(int(pid))):
                self._unlink(entry)

    def existing(self, name: str) -> os.stat_result | None:
        """lstat of `name` here; refuses a link, a folder and anything not a regular file."""
        shown = os.path.join(self.path, name)
        try:
            info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise symlink_refused(shown)
        if stat.S_ISDIR(info.st_mode):
            raise PylonError(
                "is-directory", f"{shown} is a folder where an article file belongs.", f"Move {shown} out of the way."
            )
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(shown, "file")
        return info

    def read(self, name: str, limit: int = ARTICLE_MAX) -> bytes | None:
        """The bytes of the regular file `name` here (no link followed), None when absent."""
        self.existing(name)
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise os_error(exc, os.path.join(self.path, name)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise not_regular(os.path.join(self.path, name), "file")
            if info.st_size > limit:
                raise too_large(os.path.join(self.path, name), "file", limit)
            return _read_all(fd, limit, os.path.join(self.path, name), "file")
        finally:
            os.close(fd)

    def replace(self, name: str, data: bytes) -> None:
        """Atomically replace (or create) the regular file `name` here, keeping its mode. A
        read-only file (no write bit) is refused, as `pylon edit` refuses it, even for root."""
        shown = os.path.join(self.path, name)
        info = self.existing(name)
        if info is not None and not info.st_mode & 0o222:
            raise PylonError(
                "permission",
                f"{shown} is read-only (mode {stat.filemode(info.st_mode)}); nothing was written.",
                f"chmod u+w {shown}   # then run the same command again",
            )
        try:
            tmp = self._temp(name, data, stat.S_IMODE(info.st_mode) if info is not None else None)
        except OSError as exc:
            raise os_error(exc, shown) from None
        try:
            # renameat replaces a link planted since existing() with a file here: never follows it.
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError as exc:
            self._unlink(tmp)
            raise os_error(exc, shown) from None
        _fsync(self.fd)

    def create(self, name: str, data: bytes) -> bool:
        """Create `name` only if nothing is there (temp file, then a hard link that fails if the
        name exists); False when taken."""
        shown = os.path.join(self.path, name)
        try:
            tmp = self._temp(name, data, None)
        except OSError as exc:
            raise os_error(exc, shown) from None
        try:
            os.link(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
        except FileExistsError:
            return False
        except OSError as exc:
            raise os_error(exc, shown) from None
        finally:
            self._unlink(tmp)
        _fsync(self.fd)
        return True


def _read_all(fd: int, limit: int, shown: str, what: str) -> bytes:
    from pylon.inputs import read_to_limit

    return read_to_limit(fd, limit, shown, what, f"ls -l {shown}")


def _fsync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename itself is done


def store_parts(canon_dir: str, path: str) -> list[str]:
    """`path` (inside `canon_dir`) as the list of names below `.canon/`."""
    rel = os.path.relpath(path, canon_dir)
    return [p for p in rel.split(os.sep) if p and p != "."]
