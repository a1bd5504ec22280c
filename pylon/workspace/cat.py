"""`pylon ws cat`: a confined read of one file of the checkout, or of its baseline version.

Refused (code `path-refused`, exit 1): absolute paths, any `..` component, anything under a `.git`
folder or a `.git` file (any case), symlinks that resolve outside the checkout or into a `.git`,
and anything that is not a regular file (folders, devices, FIFOs, sockets). Binary files (a NUL in
the first 8000 bytes, git's test) are reported, not printed. Reads stop at `max_bytes`.
"""

from __future__ import annotations

import os
import stat

from pylon.workspace import git
from pylon.workspace.changes import LITERAL
from pylon.workspace.repo import Checkout
from pylon.workspace.since import resolve

MAX_BYTES = 1024 * 1024
SNIFF = 8000


def _refuse(path: str, reason: str, why: str) -> None:
    from pylon.errors import PylonError

    raise PylonError(
        "path-refused",
        f"pylon ws cat refuses {path!r}: {why}.",
        "Pass a path of a regular file inside the checkout, relative to the current folder, without '..'.",
        details={"reason": reason, "path": path},
    )


def confine(checkout: Checkout, path: str) -> str:
    """Lexical checks; returns the root-relative path (with the cwd prefix applied)."""
    if not path or not path.strip():
        _refuse(path, "empty", "the path is empty")
    if path.startswith("/") or os.path.isabs(path):
        _refuse(path, "absolute", "absolute paths are not read; give a path relative to the current folder")
    parts = [p for p in path.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        _refuse(path, "dotdot", "'..' components are not allowed")
    if any(p.lower() == ".git" for p in parts):
        _refuse(path, "git-dir", "files under .git (or a .git file) are git's, not the checkout's")
    if not parts:
        _refuse(path, "directory", "it names a folder, not a file")
    prefix = [p for p in checkout.prefix.split("/") if p]
    return "/".join(prefix + parts)


def _sniff(data: bytes) -> bool:
    return b"\0" in data[:SNIFF]


def _result(rel: str, source: str, size: int, data: bytes, max_bytes: int, **extra: object) -> dict[str, object]:
    truncated = len(data) > max_bytes
    data = data[:max_bytes]
    binary = _sniff(data)
    return {
        "path": rel,
        "source": source,
        "size": size,
        "bytes_read": 0 if binary else len(data),
        "truncated": truncated and not binary,
        "binary": binary,
        "data": b"" if binary else data,
        "max_bytes": max_bytes,
        **extra,
    }


def cat(checkout: Checkout, path: str, *, base: bool = False, since: str | None = None, max_bytes: int = MAX_BYTES) -> dict[str, object]:
    rel = confine(checkout, path)
    if base:
        return _cat_base(checkout, path, rel, since, max_bytes)
    root_real = os.path.realpath(checkout.root)
    full = os.path.join(checkout.root, rel)
    real = os.path.realpath(full)
    inside = os.path.relpath(real, root_real)
    if inside == ".." or inside.startswith(".." + os.sep) or os.path.isabs(inside):
        _refuse(path, "symlink-outside", f"it resolves to {real}, outside the checkout")
    if any(p.lower() == ".git" for p in inside.split(os.sep)):
        _refuse(path, "git-dir", f"it resolves into {real}, which is git's")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        from pylon.errors import NotFoundError

        raise NotFoundError(
            "file-not-found", f"{path!r} does not exist in the checkout.", "List changed files with `pylon ws changes`."
        ) from None
    if stat.S_ISDIR(st.st_mode):
        _refuse(path, "directory", "it is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        _refuse(path, "special-file", "it is a device, FIFO or socket, not a regular file")
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        again = os.fstat(fd)
        if not stat.S_ISREG(again.st_mode) or (again.st_ino, again.st_dev) != (st.st_ino, st.st_dev):
            _refuse(path, "special-file", "it changed into something other than a regular file while opening")
        chunks = []
        want = max_bytes + 1
        while want > 0:
            data = os.read(fd, min(want, 1 << 20))
            if not data:
                break
            chunks.append(data)
            want -= len(data)
    finally:
        os.close(fd)
    return _result(rel, "worktree", again.st_size, b"".join(chunks), max_bytes)


def _cat_base(checkout: Checkout, path: str, rel: str, since: str | None, max_bytes: int) -> dict[str, object]:
    base = resolve(checkout, since)
    out = git.run(["ls-tree", "-z", "--full-tree", base.tree, "--", rel], cwd=checkout.root, env=LITERAL)
    entry = None
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") == rel:
            entry = meta.decode().split(" ")
    if entry is None:
        from pylon.errors import NotFoundError

        raise NotFoundError(
            "file-not-found",
            f"{path!r} does not exist in {base.label}.",
            f"List what changed since it with `pylon ws changes --since {base.label}`.",
        )
    mode, kind, oid = entry[0], entry[1], entry[2]
    if kind == "tree":
        _refuse(path, "directory", f"it is a folder in {base.label}, not a file")
    if kind == "commit":
        _refuse(path, "special-file", f"it is a submodule (commit {oid[:12]}) in {base.label}")
    proc = git.GitProcess(["cat-file", "blob", oid], cwd=checkout.root)
    chunks = []
    got = 0
    while got <= max_bytes:
        data = proc.read_stdout()
        if not data:
            break
        chunks.append(data)
        got += len(data)
    if got > max_bytes:
        proc.kill()
    proc.finish()
    size = int(git.run(["cat-file", "-s", oid], cwd=checkout.root).decode().strip() or 0) if got > max_bytes else got
    data = b"".join(chunks)
    extra: dict[str, object] = {"since": base.label, "mode": mode}
    if mode == "120000":
        extra["symlink"] = data.decode("utf-8", "surrogateescape")
    return _result(rel, "base", size, data, max_bytes, **extra)
