"""`pylon ws diff`: a git-style unified diff against a baseline, bounded by default.

The cost follows what is shown, not the size of the change: the names of all changed paths come
from a tree-to-tree `git diff-tree --raw` (no file content is read), then only the first
`max_files` of them are diffed, minus oversize blobs (sizes from one `git cat-file
--batch-check`). The diff is streamed and cut at whole files while the line and byte budget
lasts; the rest of that (already bounded) stream is counted, not shown. `--output FILE` writes the
complete diff of every path to FILE instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from pylon.atomic import fsync_dir
from pylon.workspace import git
from pylon.workspace.current import current_state
from pylon.workspace.repo import Checkout
from pylon.workspace.since import resolve
from pylon.workspace.tracking.changes import Entry, raw_entries, tree_env

MAX_FILES = 200
MAX_LINES = 2000
MAX_BYTES = 64 * 1024
OVERSIZE = 1024 * 1024  # a file bigger than this (either side) is skipped in a bounded diff
NULL_OID = "0" * 40
_PATCH = ["diff-tree", "-p", "-r", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv"]


def _blob_sizes(checkout: Checkout, entries: list[Entry]) -> dict[str, int]:
    oids = set()
    for e in entries:
        for oid, mode in ((e.old_oid, e.old_mode), (e.new_oid, e.new_mode)):
            if oid != NULL_OID and not mode.startswith("160"):
                oids.add(oid)
    if not oids:
        return {}
    out = git.run(
        ["cat-file", "--batch-check=%(objectname) %(objectsize)"],
        cwd=checkout.root,
        input="\n".join(oids).encode() + b"\n",
    )
    sizes = {}
    for line in out.decode().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def _split_files(chunk_source: Callable[[], bytes]) -> Iterator[bytes]:
    """Yield each file's part of a patch stream (each starts with `diff --git `)."""
    pending = b""
    current: list[bytes] = []
    while True:
        data = chunk_source()
        if not data:
            break
        pending += data
        lines = pending.split(b"\n")
        pending = lines.pop()
        for line in lines:
            if line.startswith(b"diff --git ") and current:
                yield b"".join(current)
                current = []
            current.append(line + b"\n")
    if pending:
        current.append(pending)
    if current:
        yield b"".join(current)


def _resolve_paths(checkout: Checkout, paths: list[str]) -> list[str]:
    resolved = []
    for p in paths:
        rel = checkout.to_root_relative(p)
        resolved.append(rel)
    return resolved


def diff(
    checkout: Checkout,
    sink: Callable[[bytes], object],
    *,
    since: str | None = None,
    paths: list[str] | None = None,
    max_files: int = MAX_FILES,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
    out_path: str | None = None,
) -> dict[str, object]:
    """Write the (bounded) diff to `sink`; return what was shown and what was left out."""
    base = resolve(checkout, since)
    state, source = current_state(checkout)
    rel_paths = _resolve_paths(checkout, paths or [])
    if rel_paths and "" in rel_paths:
        rel_paths = []  # the checkout root itself means everything
    entries = raw_entries(checkout, base.tree, state.worktree, rel_paths or None)
    summary: dict[str, object] = {
        "since": base.to_dict(),
        "worktree_tree": state.worktree,
        "source": source,
        "notes": state.notes,
        "files_total": len(entries),
    }
    if out_path is not None:
        summary.update(_write_full(checkout, base.tree, state.worktree, rel_paths, out_path))
        summary["truncated"] = False
        return summary
    selected = entries[:max_files]
    sizes = _blob_sizes(checkout, selected)
    oversize = [e.path for e in selected if max(sizes.get(e.old_oid, 0), sizes.get(e.new_oid, 0)) > OVERSIZE]
    skip = set(oversize)
    diffable = [e.path for e in selected if e.path not in skip]
    shown_files = shown_lines = shown_bytes = 0
    cut_files = cut_lines = cut_bytes = 0
    binary: list[str] = []
    partial = None
    if diffable:
        proc = git.GitProcess(
            [*_PATCH, base.tree, state.worktree, "--", *diffable], cwd=checkout.root, env=tree_env(checkout)
        )
        full = True
        for part in _split_files(proc.read_stdout):
            n_lines = part.count(b"\n")
            if b"\nBinary files " in part or part.startswith(b"Binary files "):
                binary.append(_path_of(part))
            if full and shown_lines + n_lines <= max_lines and shown_bytes + len(part) <= max_bytes:
                sink(part)
                shown_files += 1
                shown_lines += n_lines
                shown_bytes += len(part)
                continue
            if full and shown_files == 0:
                # Not even the first file fits: show its head, cut at a line boundary.
                head = _head(part, max_lines, max_bytes)
                sink(head)
                partial = _path_of(part)
                shown_files = 1
                shown_lines = head.count(b"\n")
                shown_bytes = len(head)
                cut_lines += n_lines - shown_lines
                cut_bytes += len(part) - len(head)
                full = False
                continue
            full = False
            cut_files += 1
            cut_lines += n_lines
            cut_bytes += len(part)
        code, err = proc.finish()
        if code != 0:
            raise git.failure(_PATCH, code, err, "git diff-tree")
    not_diffed = len(entries) - len(selected)
    truncated = bool(not_diffed or cut_files or cut_lines or oversize or partial)
    summary.update(
        {
            "files_shown": shown_files,
            "lines_shown": shown_lines,
            "bytes_shown": shown_bytes,
            "truncated": truncated,
            "left_out": {
                "files": not_diffed + cut_files + len(oversize),
                "files_not_diffed": not_diffed,
                "files_cut": cut_files,
                "lines": cut_lines,
                "bytes": cut_bytes,
                "partial_file": partial,
                "oversize": oversize,
            },
            "binary": binary,
            "limits": {"max_files": max_files, "max_lines": max_lines, "max_bytes": max_bytes, "oversize": OVERSIZE},
            "paths": rel_paths,
        }
    )
    return summary


def _head(part: bytes, max_lines: int, max_bytes: int) -> bytes:
    lines = part.split(b"\n")
    kept: list[bytes] = []
    size = 0
    for line in lines[:max_lines]:
        if size + len(line) + 1 > max_bytes:
            break
        kept.append(line + b"\n")
        size += len(line) + 1
    return b"".join(kept)


def _path_of(part: bytes) -> str:
    """The path of one file's patch, from its `diff --git a/<p> b/<p>` line (no renames here)."""
    body = part.split(b"\n", 1)[0][len(b"diff --git ") :]
    if body.startswith(b'"'):
        end = 1
        while end < len(body) and body[end : end + 1] != b'"':
            end += 2 if body[end : end + 1] == b"\\" else 1
        return _unquote(body[1:end])[2:]
    half = (len(body) - 1) // 2
    return body[2:half].decode("utf-8", "surrogateescape")


def _unquote(quoted: bytes) -> str:
    """Undo git's C-style path quoting (octal escapes and \\n \\t \\" \\\\)."""
    out = bytearray()
    i = 0
    simple = {
        b"n": b"\n",
        b"t": b"\t",
        b'"': b'"',
        b"\\": b"\\",
        b"a": b"\a",
        b"b": b"\b",
        b"f": b"\f",
        b"r": b"\r",
        b"v": b"\v",
    }
    while i < len(quoted):
        ch = quoted[i : i + 1]
        if ch == b"\\" and i + 1 < len(quoted):
            nxt = quoted[i + 1 : i + 2]
            if nxt.isdigit() and i + 3 < len(quoted) + 1:
                out += bytes([int(quoted[i + 1 : i + 4], 8)])
                i += 4
                continue
            out += simple.get(nxt, nxt)
            i += 2
            continue
        out += ch
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _write_full(checkout: Checkout, old: str, new: str, paths: list[str], out_path: str) -> dict[str, object]:
    """The complete diff into `out_path` (binary payloads included, so `git apply` takes it),
    atomically (temp file beside it, fsync, rename)."""
    target = os.path.realpath(os.path.join(checkout.cwd, out_path))
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        from pylon.errors import UsageError

        raise UsageError(
            "bad-out-path",
            f"The folder of --output {out_path!r} does not exist.",
            "pylon ws diff --output /tmp/changes.diff",
        )
    hint = "pylon ws diff --output /tmp/changes.diff"
    if os.path.isdir(target):
        from pylon.errors import PylonError

        raise PylonError("is-directory", f"--output {out_path!r} is a folder; the diff goes into a file.", hint)
    if os.path.exists(target) and not os.path.isfile(target):
        # A device or FIFO (/dev/null, /dev/zero): the rename below would replace it with a
        # regular file, which as root destroys the device for the whole machine.
        from pylon.errors import PylonError

        raise PylonError(
            "not-regular",
            f"--output {out_path!r} is not a regular file (a device, FIFO or "
            "socket); the complete diff is written to a file, never into a device.",
            "pylon ws diff (the bounded diff on stdout) or " + hint,
        )
    tmp = os.path.join(folder, f".{os.path.basename(target)}.pylon-tmp-{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:
        from pylon.inputs import open_error

        raise open_error(exc, f"--output {out_path}", "file", hint) from None
    try:
        # --binary: a complete diff must apply, and `git apply` rejects a patch whose binary
        # files are only "Binary files ... differ" (it implies --full-index, as apply needs)
        args = [*_PATCH, "--binary", old, new]
        if paths:
            args += ["--", *paths]
        code, _, err = git.GitProcess(args, cwd=checkout.root, env=tree_env(checkout), stdout_fd=fd).wait()
        if code != 0:
            raise git.failure(args, code, err, "git diff-tree")
        os.fsync(fd)
        size = os.fstat(fd).st_size
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, target)
    fsync_dir(folder)
    return {"out": target, "bytes_written": size}
