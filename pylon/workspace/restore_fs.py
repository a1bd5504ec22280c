"""File-system steps of restore(): what blocks a write, and deletions confined beneath the root.

Every deletion opens the folders on the way relative to the one opened before (`O_NOFOLLOW`), so
a folder swapped for a symlink between a check and the unlink can never send the unlink outside
the checkout; it is refused instead (the same rule as beneath.py for reads).
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_parent(root_fd: int, parts: list[str]) -> int | None:
    """A descriptor of the folder holding parts[-1], or None when a component is missing."""
    fd = os.dup(root_fd)
    for name in parts[:-1]:
        try:
            nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            os.close(fd)
            return None
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                return None  # a symlink or a file on the way: nothing of ours lies beneath it
            raise
        os.close(fd)
        fd = nxt
    return fd


def parent_fd(root: str, parts: list[str]) -> int | None:
    """A descriptor of the folder holding parts[-1] beneath `root` (no symlink followed), or None."""
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return _open_parent(root_fd, parts)
    finally:
        os.close(root_fd)


def delete_paths(root: str, paths: list[str], pruned: dict[str, int] | None = None) -> int:
    """Unlink each root-relative path (files and symlinks only), then prune folders left empty
    (their bits go into `pruned`, for the mode memory).

    Returns how many entries were removed. A path already gone counts as done (a restore that was
    killed half-way runs again from wherever it stopped).
    """
    removed = 0
    parents: set[str] = set()
    for (fd, name), rel in zip(_each_beneath(root, paths, keep_missing=True), paths):
        if fd < 0:
            continue
        try:
            if stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode):
                continue  # a gitlink's folder, or a folder where a file was: left alone
            os.unlink(name, dir_fd=fd)
            removed += 1
        except FileNotFoundError:
            pass
        parts = rel.split("/")
        for i in range(len(parts) - 1, 0, -1):
            parents.add("/".join(parts[:i]))
    # deepest first, so a chain of folders emptied by this restore goes as git checkout does it
    order = sorted(parents, key=lambda p: p.count("/"), reverse=True)
    for (fd, name), rel in zip(_each_beneath(root, order, keep_missing=True), order):
        if fd >= 0:
            _rmdir(fd, name, rel, pruned)
    return removed


def _rmdir(fd: int, name: str, rel: str, pruned: dict[str, int] | None) -> bool:
    """rmdir one folder if it is empty (a folder with anything in it is kept); its bits into `pruned`."""
    try:
        st = os.lstat(name, dir_fd=fd)
        if not stat.S_ISDIR(st.st_mode):
            return False
        os.rmdir(name, dir_fd=fd)
    except OSError:
        return False  # not empty (ignored files, other files): kept
    if pruned is not None:
        pruned[rel] = stat.S_IMODE(st.st_mode)
    return True


def blocked(root: str, writes: list[str], deletes: set[str], known: set[str]) -> list[str]:
    """Paths whose write would clobber something the state does not hold (an ignored file, a file
    made after the capture, a folder with such files in it): restore refuses before any change.

    `known` holds every path of the current state that this restore will replace or delete.
    """
    found: list[str] = []
    dirs_ok: set[str] = set()
    for rel in writes:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            lead = "/".join(parts[:i])
            if lead in dirs_ok:
                continue
            try:
                st = os.lstat(os.path.join(root, lead))
            except FileNotFoundError:
                break
            if stat.S_ISDIR(st.st_mode):
                dirs_ok.add(lead)
                continue
            if lead not in deletes:
                found.append(lead)
            break
        full = os.path.join(root, rel)
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISDIR(st.st_mode):
            prefix = rel + "/"
            for dirpath, dirnames, filenames in os.walk(full):
                for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                    inner = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                    if inner.startswith(prefix) and inner not in deletes:
                        found.append(inner)
        elif rel not in known:
            found.append(rel)
    return sorted(set(found))


def _each_beneath(root: str, paths: list[str], keep_missing: bool = False) -> Iterator[tuple[int, str]]:
    """(descriptor of the parent folder, last name) for each path whose folders are all there
    (with `keep_missing`, (-1, name) for the others, so the results stay in step with `paths`)."""
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for rel in paths:
            parts = rel.split("/")
            fd = _open_parent(root_fd, parts)
            if fd is None:
                if keep_missing:
                    yield -1, parts[-1]
                continue
            try:
                yield fd, parts[-1]
            finally:
                os.close(fd)
    finally:
        os.close(root_fd)


def set_modes(root: str, wanted: dict[str, int]) -> int:
    """chmod each regular file to its bits (-1: 644 or 755 by its executable bit), beneath the root
    and never through a symlink; returns how many changed."""
    changed = 0
    order = sorted(wanted)
    for (fd, name), rel in zip(_each_beneath(root, order, keep_missing=True), order):
        if fd < 0:
            continue
        try:
            st = os.lstat(name, dir_fd=fd)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        bits = wanted[rel]
        if bits < 0:
            bits = 0o755 if st.st_mode & 0o100 else 0o644
        if stat.S_IMODE(st.st_mode) != bits:
            os.chmod(name, bits, dir_fd=fd)
            changed += 1
    return changed


def make_dirs(root: str, paths: list[str]) -> int:
    """Make each folder (and the folders leading to it) beneath the root; a file in the way is left."""
    made = 0
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for rel in paths:
            fd = os.dup(root_fd)
            try:
                for name in rel.split("/"):
                    try:
                        os.mkdir(name, 0o777, dir_fd=fd)
                        made += 1
                    except FileExistsError:
                        pass
                    try:
                        nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                    except OSError:
                        break  # a file or a symlink in the way: left alone
                    os.close(fd)
                    fd = nxt
            finally:
                os.close(fd)
    finally:
        os.close(root_fd)
    return made


def remove_empty_dirs(root: str, paths: list[str], keep: set[str], pruned: dict[str, int] | None = None) -> int:
    """rmdir each folder that is empty (deepest first), then the folders above it that this
    leaves empty, except those in `keep`; anything with content stays. Their bits go into `pruned`."""
    todo = set(paths)
    for rel in paths:
        parts = rel.split("/")
        todo.update("/".join(parts[:i]) for i in range(1, len(parts)))
    removed = 0
    order = sorted(todo - keep, key=lambda p: p.count("/"), reverse=True)
    for (fd, name), rel in zip(_each_beneath(root, order, keep_missing=True), order):
        if fd >= 0 and _rmdir(fd, name, rel, pruned):
            removed += 1
    return removed


def missing_dirs(root: str, paths: list[str]) -> set[str]:
    """The folders leading to each path (and the path itself when it ends in `/`) that do not exist
    as folders now: the ones a restore writing those paths will make."""
    seen: dict[str, bool] = {}
    found: set[str] = set()
    for rel in paths:
        parts = rel.rstrip("/").split("/")
        upto = len(parts) if rel.endswith("/") else len(parts) - 1
        for i in range(1, upto + 1):
            lead = "/".join(parts[:i])
            there = seen.get(lead)
            if there is None:
                try:
                    there = stat.S_ISDIR(os.lstat(os.path.join(root, lead)).st_mode)
                except OSError:
                    there = False
                seen[lead] = there
            if not there:
                found.add(lead)
    return found


def set_dir_modes(root: str, wanted: dict[str, int]) -> int:
    """chmod each folder to its bits, beneath the root, never through a symlink; how many changed."""
    changed = 0
    order = sorted(wanted)
    for (fd, name), rel in zip(_each_beneath(root, order, keep_missing=True), order):
        if fd < 0:
            continue
        try:
            inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError:
            continue  # gone, or a symlink or a file there now: left alone
        try:
            if stat.S_IMODE(os.fstat(inner).st_mode) != wanted[rel]:
                os.fchmod(inner, wanted[rel])
                changed += 1
        finally:
            os.close(inner)
    return changed
