"""Copying ignored files (`.env`, local config) into a new owned worktree, copy-on-write when possible.

A file is copied only when git ignores it *and* it matches a `--copy` glob or a line of
`.worktreeinclude` (gitignore-style lines: `#` comments, `!` negation, a leading or inner `/`
anchors to the root, a trailing `/` names a folder and everything under it, `*`/`?`/`[...]` do not
cross `/`, `**` does). Each file is cloned with the FICLONE ioctl (btrfs, XFS, overlayfs on them:
no data is copied), else `os.copy_file_range` (the kernel copies, and can reflink too), else a
plain read/write loop. Modes are kept; symlinks are recreated, never followed.
"""

from __future__ import annotations

import os

from pylon.workspace import git

FICLONE = 0x40049409  # _IOW(0x94, 9, int) from linux/fs.h
INCLUDE_FILE = ".worktreeinclude"

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable


def include_patterns(source_root: str, extra: list[str]) -> list[str]:
    """`.worktreeinclude` lines of the source checkout, then the `--copy` globs (later wins)."""
    patterns: list[str] = []
    try:
        with open(os.path.join(source_root, INCLUDE_FILE), encoding="utf-8", errors="surrogateescape") as fh:
            for line in fh:
                line = line.rstrip("\n").rstrip("\r")
                if line.strip() and not line.startswith("#"):
                    patterns.append(line.rstrip())
    except OSError:
        pass
    return patterns + list(extra)


def _compile(pattern: str) -> tuple[bool, re.Pattern[str]]:
    """A gitignore-style line as (negated, regex over root-relative paths)."""
    import re

    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    folder = body.endswith("/")
    body = body.strip("/") if folder else body
    anchored = body.startswith("/") or "/" in body
    body = body.lstrip("/")
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if body.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = body.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                inner = body[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    lead = "" if anchored else "(?:.*/)?"
    # a name matches the path itself or, being a folder, everything under it
    tail = "/.*" if folder else "(?:/.*)?"
    return negated, re.compile(lead + "".join(out) + tail + r"\Z", re.S)


def select(paths: list[str], patterns: list[str]) -> list[str]:
    compiled = [_compile(p) for p in patterns if p.strip("!/")]
    chosen = []
    for path in paths:
        keep = False
        for negated, regex in compiled:
            if regex.match(path):
                keep = not negated
        if keep:
            chosen.append(path)
    return chosen


def ignored_files(source_root: str) -> list[str]:
    """Every ignored file of the checkout (inside ignored folders too), root-relative."""
    out = git.run(
        ["ls-files", "-z", "--others", "--ignored", "--exclude-standard"], cwd=source_root, what="git ls-files"
    )
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


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
    chosen = select(ignored_files(source_root), patterns)
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
