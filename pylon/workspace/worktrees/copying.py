"""Copying ignored files (`.env`, local config) into a new owned worktree, copy-on-write when possible.

A file is copied only when git ignores it *and* it matches a `--copy` glob or a line of
`.worktreeinclude`. Those lines are gitignore lines and git itself matches them (`ls-files
--exclude-from`; the checkout's own rules by `ls-files --exclude-standard`), so they mean exactly
what they mean in a `.gitignore`: anchoring, escapes, negation, `**`, and no re-inclusion beneath
an excluded folder. Each file is cloned with the FICLONE ioctl (btrfs, XFS, overlayfs on them:
no data is copied), else `os.copy_file_range` (the kernel copies, and can reflink too), else a
plain read/write loop. Modes are kept; symlinks are recreated, never followed.
"""

from __future__ import annotations

import os

from pylon.workspace import git

FICLONE = 0x40049409  # _IOW(0x94, 9, int) from linux/fs.h
INCLUDE_FILE = ".worktreeinclude"

INCLUDE_LIMIT = 1 << 20  # bytes of `.worktreeinclude` read at most

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def include_patterns(source_root: str, extra: list[str]) -> list[str]:
    """`.worktreeinclude` lines of the source checkout, then the `--copy` globs (later wins).

    The lines are kept as written (git trims, unescapes and skips comments when it reads them);
    the file is read without blocking and within a bound (a FIFO or device there is refused)."""
    from pylon.inputs import read_file

    for glob in extra:
        if "\n" in glob or "\r" in glob:
            from pylon.errors import UsageError

            raise UsageError(
                "usage",
                f"--copy {glob!r} holds a line break; a gitignore line cannot.",
                "Give each pattern its own --copy.",
            )
    name = os.path.join(source_root, INCLUDE_FILE)
    try:
        data = read_file(name, INCLUDE_LIMIT, shown=INCLUDE_FILE, what="pattern file", missing=False)
    except FileNotFoundError:
        data = b""
    lines = os.fsdecode(data).split("\n") if data else []
    return [line for line in lines if line.strip()] + list(extra)


def select(root: str, patterns: list[str]) -> list[str]:
    """The files of `root` that git ignores *and* that `patterns` (gitignore lines) match, by git's
    own matching: the untracked files the patterns exclude (`ls-files --others --ignored
    --exclude-from`) less the untracked files the checkout's rules do not ignore (`ls-files --others
    --exclude-standard`, which skips ignored folders: cheap). Both walks run at once."""
    import tempfile

    if not any(p.strip() and not p.startswith("#") for p in patterns):
        return []
    fd, listed = tempfile.mkstemp(prefix="pylon-copy-", suffix=".patterns")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"".join(os.fsencode(p) + b"\n" for p in patterns))
        matching = git.start(["ls-files", "-z", "--others", "--ignored", f"--exclude-from={listed}"], cwd=root)
        kept = git.start(["ls-files", "-z", "--others", "--exclude-standard"], cwd=root)
        try:
            not_ignored = set(git.finish_run(kept, what="git ls-files").split(b"\0"))
        except BaseException:
            matching.kill()
            matching.wait()
            raise
        matched = git.finish_run(matching, what="git ls-files")
    finally:
        os.unlink(listed)
    return [os.fsdecode(p) for p in matched.split(b"\0") if p and p not in not_ignored]


def clone_file(src: str, dst: str) -> str:
    """Copy one regular file; returns how: "reflink", "copy_file_range" or "copy"."""
    st = os.lstat(src)
    fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fout = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, st.st_mode & 0o7777)
        try:
            how = _clone_fd(fin, fout, st.st_size)
            os.fchmod(fout, st.st_mode & 0o7777)
        finally:
            os.close(fout)
    finally:
        os.close(fin)
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
    return how


def _clone_fd(fin: int, fout: int, size: int) -> str:
    try:
        import fcntl

        fcntl.ioctl(fout, FICLONE, fin)
        return "reflink"
    except (OSError, ImportError):
        pass
    try:
        left = size
        while left > 0:
            n = os.copy_file_range(fin, fout, left)
            if n == 0:
                break
            left -= n
        if left <= 0:
            return "copy_file_range"
    except (OSError, AttributeError):
        os.lseek(fin, 0, os.SEEK_SET)
        os.lseek(fout, 0, os.SEEK_SET)
        os.ftruncate(fout, 0)
    while True:
        chunk = os.read(fin, 1 << 20)
        if not chunk:
            return "copy"
        os.write(fout, chunk)


def copy_ignored(
    source_root: str,
    target_root: str,
    patterns: list[str],
    progress: Callable[[int, int, int], None] | None = None,
) -> dict[str, object]:
    """Copy the ignored files matching `patterns`; returns {files, bytes, reflinked, paths}."""
    if not patterns:
        return {"files": 0, "bytes": 0, "reflinked": 0, "paths": []}
    chosen = select(source_root, patterns)
    total_bytes = 0
    sizes = []
    for rel in chosen:
        try:
            size = os.lstat(os.path.join(source_root, rel)).st_size
        except OSError:
            size = 0
        sizes.append(size)
        total_bytes += size
    done_bytes = reflinked = 0
    copied = []
    for n, (rel, size) in enumerate(zip(chosen, sizes), 1):
        src = os.path.join(source_root, rel)
        dst = os.path.join(target_root, rel)
        if os.path.lexists(dst) or not os.path.lexists(src):
            continue  # never overwrite what the checkout wrote; a file removed meanwhile is skipped
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        elif os.path.isfile(src):
            if clone_file(src, dst) == "reflink":
                reflinked += 1
        else:
            continue
        copied.append(rel)
        done_bytes += size
        if progress is not None:
            progress(n, len(chosen), done_bytes)
    return {"files": len(copied), "bytes": done_bytes, "reflinked": reflinked, "paths": copied}
