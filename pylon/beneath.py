"""Opening a file beneath the checkout root without a window for a symlink swap.

A check of the resolved path followed by an open of that path can be raced: another process swaps a
folder for a symlink to `/etc` in between, and the open follows it. Here every component is opened
relative to the folder opened before it (`dir_fd`) with `O_NOFOLLOW`, so the kernel never follows a
link pylon did not look at. A symlink met on the way is read (`readlink` relative to its folder)
and its target walked the same way by pylon itself: `..` goes back to a folder pylon already holds
open, and a target that would leave the root (absolute outside it, or `..` above it) is refused.
What was finally opened is checked on its descriptor (fstat): a regular file, or it is refused.
`openat2(RESOLVE_BENEATH)` would do the same in one call, but Python's stdlib has no binding.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_LINKS = 40  # like the kernel's own limit on symlinks followed in one lookup
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def refuse(path: str, reason: str, why: str, who: str = "pylon ws cat") -> None:
    from typing import cast  # here only (a refusal): typing costs start-up time

    from pylon.errors import PylonError, UsageError
    from pylon.jsonbytes import safe

    message = f"{who} refuses {path!r}: {why}."
    hint = "Pass a path of a regular file inside the checkout, relative to the current folder, without '..'."
    details = cast("dict[str, object]", safe({"reason": reason, "path": path}))  # safe() keeps a dict a dict
    if reason in ("absolute", "dotdot", "outside", "symlink-outside"):  # one code per fault, whatever the command
        raise UsageError("path-outside", message, hint, details=details)
    if reason == "directory":
        raise PylonError("is-directory", message, hint, details=details)
    if reason == "special-file":
        raise PylonError("not-regular", message, hint, details=details)
    if reason == "symlink-loop":
        raise PylonError("symlink-loop", message, hint, details=details)
    raise PylonError("path-refused", message, hint, details=details)


def _not_found(path: str) -> None:
    from pylon.errors import NotFoundError

    raise NotFoundError(
        "not-found", f"{path!r} does not exist in the checkout.", "List changed files with `pylon ws changes`."
    )


def _target_parts(root: str, target: str, path: str, who: str) -> tuple[bool, list[str]]:
    """(from the root?, components) of a symlink target; an absolute one must name the root."""
    if not target.startswith("/"):
        return False, target.split("/")
    for base in {root.rstrip("/"), os.path.realpath(root).rstrip("/")}:
        if target == base or target.startswith(base + "/"):
            return True, target[len(base) :].split("/")
    refuse(path, "symlink-outside", f"a symlink on the way points to {target}, outside the checkout", who)
    raise AssertionError("unreachable")


def open_beneath(
    root: str, rel: str, path: str, who: str = "pylon ws cat", missing: Callable[[str], None] | None = None
) -> int:
    """A read-only descriptor of the regular file `rel` (root-relative, already checked lexically).
    `missing(path)` raises for a path that does not exist (default: `not-found`, in the checkout's words)."""
    return _walk(root, rel, path, None, who, missing or _not_found)


def folder_beneath(
    root: str,
    rel: str,
    path: str,
    made: list[tuple[int, str]] | None,
    who: str,
    missing: Callable[[str], None] | None = None,
) -> int:
    """A descriptor of the folder `rel` beneath `root`, creating the folders missing on the way.

    Each folder created is appended to `made` as (a descriptor of its parent, its name), so that a
    caller whose next step fails can remove exactly those (`remove_made`); symlinks on the way are
    walked as for a read and may not leave the root. With `made` None nothing is created: a
    missing folder is `missing(path)`.
    """
    return _walk(root, rel, path, made if made is not None else [], who, missing or _not_found, create=made is not None)


def remove_made(made: list[tuple[int, str]]) -> None:
    """Remove the folders `folder_beneath` created (newest first, only while empty) and close their parents."""
    for parent, name in reversed(made):
        try:
            os.rmdir(name, dir_fd=parent)
        except OSError:
            pass  # something was put there meanwhile: it stays
    close_made(made)


def close_made(made: list[tuple[int, str]]) -> None:
    for parent, _ in made:
        os.close(parent)
    made.clear()


def _walk(
    root: str,
    rel: str,
    path: str,
    made: list[tuple[int, str]] | None,
    who: str,
    missing: Callable[[str], None],
    create: bool = True,
) -> int:
    """Open `rel` beneath `root`: a regular file when `made` is None, else a folder (created when
    missing, with `create`)."""
    stack = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]  # the folders walked, root first
    todo = [p for p in rel.split("/") if p]
    todo.reverse()  # a stack of components still to walk: pop() gives the next one
    links = 0
    want_file = made is None
    try:
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":
                if len(stack) == 1:
                    refuse(path, "symlink-outside", "a symlink on the way leads above the checkout root", who)
                os.close(stack.pop())
                continue
            if name.lower() == ".git":
                refuse(path, "git-dir", "a symlink on the way leads into .git, which is git's", who)
            last = not todo and want_file
            try:
                if last:
                    # look before opening: a device or FIFO is refused without being opened
                    st = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
                    if not stat.S_ISLNK(st.st_mode):
                        _check_mode(st.st_mode, path, who)
                fd = os.open(name, _FILE_FLAGS if last else _DIR_FLAGS, dir_fd=stack[-1])
            except FileNotFoundError:
                if made is not None and create and _make_folder(stack[-1], name, made):
                    todo.append(name)  # made (or made by someone else meanwhile): open it now
                    continue
                missing(path)
                raise
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                fd = -1
            if fd < 0:
                # a symlink (ELOOP under O_NOFOLLOW) or, mid-path, not a folder: look at it ourselves
                try:
                    st = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
                except FileNotFoundError:
                    missing(path)
                    raise
                links += 1  # a hop, or a retry of a name being swapped: both are bounded
                if links > MAX_LINKS:
                    refuse(path, "symlink-loop", f"more than {MAX_LINKS} symlinks on the way (a loop?)", who)
                if not stat.S_ISLNK(st.st_mode):
                    if stat.S_ISDIR(st.st_mode):
                        todo.append(name)  # it became a folder meanwhile: walk it again
                        continue
                    missing(path)  # like git: a file on the way means no such path
                try:
                    target = os.readlink(name, dir_fd=stack[-1])
                except FileNotFoundError:
                    missing(path)
                    raise
                except OSError as exc:
                    if exc.errno != errno.EINVAL:
                        raise
                    todo.append(name)  # no longer a symlink: look again (bounded by MAX_LINKS)
                    continue
                from_root, parts = _target_parts(root, target, path, who)
                if from_root:
                    while len(stack) > 1:
                        os.close(stack.pop())
                todo.extend(reversed(parts))
                continue
            if last:
                return _checked_file(fd, path, who)
            stack.append(fd)
        if not want_file:
            return stack.pop()
        refuse(path, "directory", "it names a folder, not a file", who)
        raise AssertionError("unreachable")
    finally:
        for fd in stack:
            os.close(fd)


def _make_folder(parent: int, name: str, made: list[tuple[int, str]]) -> bool:
    """Create the missing folder `name`; False when its own parent has gone (nothing to walk)."""
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:
        return True  # another process made it (or a link appeared): walk what is there
    except FileNotFoundError:
        return False
    made.append((os.dup(parent), name))
    return True


def _check_mode(mode: int, path: str, who: str) -> None:
    if stat.S_ISDIR(mode):
        refuse(path, "directory", "it is a folder, not a file", who)
    if not stat.S_ISREG(mode):
        refuse(path, "special-file", "it is a device, FIFO or socket, not a regular file", who)


def _checked_file(fd: int, path: str, who: str) -> int:
    """The descriptor itself says what was opened (it may have been swapped since the look)."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        _check_mode(mode, path, who)
    return fd
