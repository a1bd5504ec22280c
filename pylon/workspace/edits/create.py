"""`edit PATH --create`: a new file from the request's lines, refused when PATH exists.

The request is the ordinary one, applied to the empty file (`insert after 0` and `+` lines, or
`--insert-after 0 TEXT`); an empty request makes an empty file. The file is made beneath the
checkout (or, outside any checkout, beneath the current folder) without a window for a race: the
folders on the way are opened one by one with `O_NOFOLLOW` (beneath.folder_beneath, which also
creates the missing ones), the content goes to a temp file made there with `O_CREAT|O_EXCL`, is
fsynced, and is hard-linked to the name (`linkat` fails when anything is there, so nothing that
appeared meanwhile is overwritten and no reader ever sees a half-written file). The new revision
is recorded with every line seen: the agent wrote them.
"""

from __future__ import annotations

import errno
import os

from pylon.errors import Exit, PylonError, UsageError
from pylon.workspace.edits.ops import Op, parse

WHO = "pylon edit --create"


class CreateResult:
    def __init__(self, path: str, tag: str, nlines: int, size: int, folders: list[str]) -> None:
        self.path, self.tag, self.nlines, self.size, self.folders = path, tag, nlines, size, folders

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "created": True,
            "new_tag": self.tag,
            "total_lines": self.nlines,
            "size": self.size,
            "folders_created": self.folders,
        }


def content(request: bytes | list[Op]) -> bytes:
    """The new file's bytes: the request applied to the empty file (every problem in one error)."""
    from pylon.workspace.edits.apply import apply
    from pylon.workspace.edits.lines import Doc
    from pylon.workspace.edits.plan import validate
    from pylon.workspace.edits.problems import Problem, request_error

    problems: list[Problem]
    if isinstance(request, list):
        ops, problems = request, []
    elif not request:
        return b""
    else:
        ops, problems = parse(request)
    empty = Doc(b"")
    problems = problems + validate(ops, empty, []).problems
    if problems:
        raise request_error(
            problems,
            "A new file takes `insert after 0` followed by its `+` lines; "
            "fix the request and send it again (nothing was created).",
        )
    return apply(empty, ops).data


def checkout_relative(path: str) -> tuple[str, str]:
    """(root, path relative to it): the checkout holding the current folder, else the folder itself."""
    from pylon import boundary
    from pylon.beneath import refuse
    from pylon.workspace.ops.guard_snapshot import find_root

    cwd = os.path.realpath(".")
    root = find_root(cwd)[0] or cwd
    full = os.path.normpath(os.path.join(cwd, path))
    rel = os.path.relpath(full, root)
    if not path or path.endswith("/") or rel == ".":
        refuse(path, "directory", "it names a folder, not a file", WHO)
    placed = boundary.place(path, write=True)  # a confined entry point: beneath the folder it may reach, walked below
    if placed is not None:
        if os.path.basename(placed[1]) in ("", ".", ".."):
            refuse(path, "directory", "it names a folder, not a file", WHO)
        return placed
    if rel == ".." or rel.startswith("../"):
        where = "the checkout" if root != cwd else "the current folder (there is no checkout here)"
        refuse(path, "outside", f"it lies outside {where} ({root})", WHO)
    if any(part.lower() == ".git" for part in rel.split("/")):
        refuse(path, "git-dir", "it lies in .git, which is git's", WHO)
    return root, rel


def create(path: str, request: bytes | list[Op]) -> CreateResult:
    from pylon import boundary
    from pylon.beneath import close_made, folder_beneath, remove_made
    from pylon.workspace.edits.ledger import SNAPSHOT_CAP, Ledger
    from pylon.workspace.edits.lines import Doc
    from pylon.workspace.edits.tag import digest

    data = content(request)
    root, rel = checkout_relative(path)
    folder, name = os.path.split(rel)
    made: list[tuple[int, str]] = []
    dfd = folder_beneath(root, folder, path, made, WHO)
    try:
        if boundary.current() is not None:  # confined: judged by the folder the walk reached, not the spelling
            boundary.refuse_config_at(path, os.path.join(boundary.real_of(dfd, os.path.dirname(path) or "."), name))
        _link_new(dfd, name, data, path)
        os.fsync(dfd)
    except BaseException:
        remove_made(made)
        raise
    finally:
        os.close(dfd)
    folders = [_made_name(rel, n) for _, n in made]
    close_made(made)
    nlines = Doc(data).nlines
    ledger = Ledger(os.path.realpath(path))
    rev = ledger.record(
        digest(data),
        seen=[[1, nlines]] if nlines else [],
        lines=nlines,
        size=len(data),
        data=data if len(data) <= SNAPSHOT_CAP else None,
        shown=False,
    )
    return CreateResult(path, rev["tag"], nlines, len(data), folders)


def _made_name(rel: str, name: str) -> str:
    """The root-relative folder of `rel` whose last part is `name` (for the report only)."""
    parts = rel.split("/")[:-1]
    for i in range(len(parts), 0, -1):
        if parts[i - 1] == name:
            return "/".join(parts[:i])
    return name


def _link_new(dfd: int, name: str, data: bytes, path: str) -> None:
    """Write `data` to a temp file in `dfd`, then link it to `name`; refuse when `name` exists."""
    tmp = f".{name[:200]}.pylon-new-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dfd)
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        try:
            os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
        except FileExistsError:
            raise _exists(path) from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
                raise
            _create_in_place(dfd, name, data, path)  # a file system without hard links
    finally:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except FileNotFoundError:
            pass


def _create_in_place(dfd: int, name: str, data: bytes, path: str) -> None:
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dfd)
    except FileExistsError:
        raise _exists(path) from None
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        os.unlink(name, dir_fd=dfd)  # ours alone (O_EXCL): a half-written file is not left behind
        raise
    os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _exists(path: str) -> PylonError:
    return PylonError(
        "file-exists",
        f"{path} already exists; --create makes only new files (nothing was written).",
        f"pylon read {path}   # then edit it with the tag it prints",
        exit_code=Exit.CANNOT_EDIT,
    )


def check_target(target: str, tag: str | None) -> str:
    """The path of `edit PATH --create`: a tag makes no sense for a file that does not exist yet."""
    if tag is not None or "#" in target and _looks_tagged(target):
        raise UsageError(
            "usage",
            "--create makes a new file: give its path without a tag.",
            f"pylon edit {target.rsplit('#', 1)[0]} --create",
        )
    return target


def _looks_tagged(target: str) -> bool:
    from pylon.workspace.edits.tag import normalize_tag

    return normalize_tag(target.rsplit("#", 1)[1]) is not None
