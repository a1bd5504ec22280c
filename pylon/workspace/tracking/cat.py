"""`pylon ws cat`: a confined read of one file of the checkout, or of its baseline version.

Refused (code `path-refused`, exit 1): absolute paths, any `..` component, anything under a `.git`
folder or a `.git` file (any case), symlinks that resolve outside the checkout or into a `.git`,
and anything that is not a regular file (folders, devices, FIFOs, sockets). Binary files (a NUL in
the first 8000 bytes, git's test) are reported, not printed. Reads stop at `max_bytes`.
"""

from __future__ import annotations

import os

from pylon.beneath import open_beneath
from pylon.beneath import refuse as _refuse
from pylon.workspace import git
from pylon.workspace.repo import Checkout
from pylon.workspace.since import resolve
from pylon.workspace.tracking.changes import LITERAL

MAX_BYTES = 1024 * 1024
SNIFF = 8000


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


def cat(
    checkout: Checkout, path: str, *, base: bool = False, since: str | None = None, max_bytes: int = MAX_BYTES
) -> dict[str, object]:
    rel = confine(checkout, path)
    if base:
        return _cat_base(checkout, path, rel, since, max_bytes)
    fd = open_beneath(checkout.root, rel, path)
    try:
        size = os.fstat(fd).st_size
        head = _read_upto(fd, min(SNIFF, max_bytes + 1))
        if _sniff(head):  # binary: decided before reading more (a 2 GB sparse file costs 8 KB)
            return _result(rel, "worktree", size, head, max_bytes)
        rest = _read_upto(fd, max_bytes + 1 - len(head)) if len(head) == min(SNIFF, max_bytes + 1) else b""
    finally:
        os.close(fd)
    return _result(rel, "worktree", size, head + rest, max_bytes)


def _read_upto(fd: int, want: int) -> bytes:
    chunks = []
    while want > 0:
        data = os.read(fd, min(want, 1 << 20))
        if not data:
            break
        chunks.append(data)
        want -= len(data)
    return b"".join(chunks)


def _cat_base(checkout: Checkout, path: str, rel: str, since: str | None, max_bytes: int) -> dict[str, object]:
    base = resolve(checkout, since)
    out = git.run(["ls-tree", "-z", "-l", "--full-tree", base.tree, "--", rel], cwd=checkout.root, env=LITERAL)
    entry = None
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") == rel:
            entry = meta.decode().split()
    if entry is None:
        from pylon.errors import NotFoundError

        raise NotFoundError(
            "not-found",
            f"{path!r} does not exist in {base.label}.",
            f"List what changed since it with `pylon ws changes --since {base.label}`.",
        )
    mode, kind, oid = entry[0], entry[1], entry[2]
    if kind == "tree":
        _refuse(path, "directory", f"it is a folder in {base.label}, not a file")
    if kind == "commit":
        _refuse(path, "special-file", f"it is a submodule (commit {oid[:12]}) in {base.label}")
    size = int(entry[3]) if entry[3].isdigit() else 0  # `ls-tree -l`: the blob's size, known before reading
    proc = git.GitProcess(["cat-file", "blob", oid], cwd=checkout.root)
    chunks = []
    got = 0
    want = min(size, max_bytes + 1)
    while got < want:
        data = proc.read_stdout()
        if not data:
            break
        sniffed = got >= SNIFF
        chunks.append(data)
        got += len(data)
        if not sniffed and (got >= SNIFF or got >= want) and _sniff(b"".join(chunks)):
            break  # binary: nothing more is read
    if got < size:
        proc.kill()
    proc.finish()
    data = b"".join(chunks)
    extra: dict[str, object] = {"since": base.label, "mode": mode}
    if mode == "120000":
        extra["symlink"] = data.decode("utf-8", "surrogateescape")
    return _result(rel, "base", size, data, max_bytes, **extra)
