"""The last look before restore() replaces or deletes files: do they still hold what was captured?

An op captures the checkout, then works out what to write (a merge, a move), then writes. A file
edited in that gap (an agent saving while `ws apply` runs) would be overwritten with content that
never saw the edit. So, just before the first write, every file the restore is about to replace or
delete is compared with the captured state: regular files by hashing them the way the capture did
(`git hash-object --stdin-paths`, the same clean filters and line-ending rules; a file whose raw
bytes are the captured blob passes too), symlinks by their target. Files that changed make the
restore refuse (`changed-meanwhile`) before anything is written. A file already gone loses nothing
and is not counted. What is left is the moment between this look and each write, microseconds
instead of the length of the op.
"""

from __future__ import annotations

import os
import stat

from pylon.workspace import git

_REGULAR = ("100644", "100755")
_HASH_CONFIG = ["-c", "core.safecrlf=false"]  # a warning must not turn into a failure here


def _blob_id(data: bytes, oid_len: int) -> str:
    import hashlib

    algo = hashlib.sha256 if oid_len == 64 else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()


def changed(root: str, entries: list[tuple[str, str, str]]) -> list[str]:
    """Paths among `entries` (mode, oid, path as captured) whose file on disk now differs."""
    found: list[str] = []
    to_hash: list[tuple[str, str]] = []
    for mode, oid, path in entries:
        full = os.path.join(root, path)
        try:
            info = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if mode == "160000":
            continue  # a submodule's folder: its content is not part of the state
        if mode == "120000":
            if not stat.S_ISLNK(info.st_mode) or _blob_id(os.fsencode(os.readlink(full)), len(oid)) != oid:
                found.append(path)
        elif mode in _REGULAR and stat.S_ISREG(info.st_mode):
            to_hash.append((oid, path))
        else:
            found.append(path)  # now a folder, a symlink or something else
    if to_hash:
        ids = _hashes(root, [path for _oid, path in to_hash], raw=False)
        differ = [(oid, path) for (oid, path), now in zip(to_hash, ids) if now != oid]
        if differ:  # the same bytes as the blob lose nothing either, whatever the filters say
            raw = _hashes(root, [path for _oid, path in differ], raw=True)
            found += [path for (oid, path), now in zip(differ, raw) if now != oid]
    return sorted(found)


def _hashes(root: str, paths: list[str], *, raw: bool) -> list[str]:
    """Blob ids of the files at `paths`, cleaned as `git add` would (raw: their bytes as they are)."""
    args = [*_HASH_CONFIG, "hash-object", *(["--no-filters"] if raw else [])]
    if any("\n" in path for path in paths):  # --stdin-paths reads lines: such names one call each
        return [git.run([*args, "--", path], cwd=root).decode().strip() for path in paths]
    names = "".join(f"{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    out = git.run([*args, "--stdin-paths"], cwd=root, input=names, what="git hash-object (last look)")
    return out.decode().split()


def changed_error(paths: list[str]) -> Exception:
    from pylon.errors import PylonError

    shown = ", ".join(paths[:20]) + (f" (and {len(paths) - 20} more)" if len(paths) > 20 else "")
    return PylonError(
        "changed-meanwhile",
        f"{len(paths)} file(s) changed while pylon was working out what to write over them: {shown}. "
        "Nothing was written.",
        "Let whatever is editing them finish, then run the same command again.",
        details={"paths": paths[:20], "paths_total": len(paths), "written": False},
    )
