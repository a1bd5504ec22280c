"""The repository's `.git` as it was before the latest command, kept in the store (`git/`), so that
`rm -rf .git` is undone by copying it back.

Brought up to date after each state is kept and before the command runs, doing only what changed:

- objects (loose and packs) are hard links of the repository's (copies across file systems), added
  and never removed: a kept state may need an object the repository has since pruned. A fan-out
  folder whose time and inode are those of the last sync is not read again;
- every other file (refs, packed-refs, HEAD, config, the index, logs, info, hooks, worktrees/*, the
  few of pylon's own files that are state: its id, the owned-worktree registry, remembered modes)
  is copied when its stat data changed, the index and packed-refs linked (git only ever replaces
  them by rename, so a link keeps the old bytes); files gone from `.git` go from the copy.

Not copied: `lfs/` (large content) and `modules/` (submodules' repositories); pylon's caches and
private indexes; lock files.
"""

from __future__ import annotations

import errno
import os
import shutil

_SKIP_TOP = frozenset({"objects", "lfs", "modules"})
_LINKED = frozenset({"index", "packed-refs"})
_PYLON_KEPT = ("keep-id", "modes", "owned", "hook-snapshots")
_CACHE = "mirror.json"


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        tmp = f"{dst}.tmp-{os.getpid()}"
        shutil.copy2(src, tmp, follow_symlinks=False)
        os.replace(tmp, dst)


def _copy(src: str, dst: str, link: bool) -> None:
    tmp = f"{dst}.tmp-{os.getpid()}"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    if link:
        try:
            os.link(src, tmp)
            os.replace(tmp, dst)
            return
        except OSError:
            pass
    if os.path.islink(src):
        os.symlink(os.readlink(src), tmp)
    else:
        shutil.copy2(src, tmp)
    os.replace(tmp, dst)


def _kept_here(rel: str) -> bool:
    """Is a path below `.git` part of what the mirror holds?"""
    parts = rel.split("/")
    if parts[0] in _SKIP_TOP or parts[-1].endswith(".lock") or ".tmp-" in parts[-1]:
        return False
    if "pylon" in parts:
        tail = parts[parts.index("pylon") + 1:]
        return bool(tail) and tail[0] in _PYLON_KEPT
    return True


def _objects(src: str, dst: str, seen: dict[str, list[int]]) -> None:
    try:
        names = os.listdir(src)
    except OSError:
        return
    for name in names:
        folder = os.path.join(src, name)
        try:
            st = os.stat(folder)
        except OSError:
            continue
        if not os.path.isdir(folder):
            continue
        sig = [st.st_ino, st.st_mtime_ns]
        if seen.get(name) == sig:
            continue
        target = os.path.join(dst, name)
        os.makedirs(target, exist_ok=True)
        have = set(os.listdir(target))
        for entry in os.listdir(folder):
            if entry.startswith("tmp_") or entry.startswith("."):
                continue
            if name == "info":
                _copy(os.path.join(folder, entry), os.path.join(target, entry), link=False)
            elif entry not in have:
                _link_or_copy(os.path.join(folder, entry), os.path.join(target, entry))
        seen[name] = sig


def _files(src: str, dst: str, seen: dict[str, list[int]]) -> None:
    found: set[str] = set()
    for folder, dirs, names in os.walk(src):
        rel_folder = os.path.relpath(folder, src).replace(os.sep, "/")
        rel_folder = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = [d for d in dirs if _kept_here(rel_folder + d) or (d == "pylon")]
        for name in names:
            rel = rel_folder + name
            if not _kept_here(rel):
                continue
            full = os.path.join(folder, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            found.add(rel)
            sig = [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
            target = os.path.join(dst, rel)
            if seen.get(rel) == sig and os.path.lexists(target):
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            try:
                _copy(full, target, link=name in _LINKED)
            except OSError:
                continue  # gone or unreadable this moment: the next sync tries again
            seen[rel] = sig
    for rel in [r for r in seen if r not in found]:
        try:
            os.unlink(os.path.join(dst, rel))
        except OSError:
            pass
        del seen[rel]


def sync(common_dir: str, mirror: str, cache_dir: str) -> None:
    """Bring the mirror up to date with the repository's `.git` (call under the store's lock)."""
    from pylon.workspace.index import read_json, write_json

    path = os.path.join(cache_dir, _CACHE)
    cache = read_json(path) or {}
    objects = cache.get("objects") if isinstance(cache.get("objects"), dict) else {}
    files = cache.get("files") if isinstance(cache.get("files"), dict) else {}
    assert isinstance(objects, dict) and isinstance(files, dict)
    os.makedirs(os.path.join(mirror, "objects"), exist_ok=True)
    _objects(os.path.join(common_dir, "objects"), os.path.join(mirror, "objects"), objects)
    _files(common_dir, mirror, files)
    write_json(path, {"objects": objects, "files": files})


def recover(mirror: str, common_dir: str) -> int:
    """Put the mirror back as the repository's `.git` (which must be gone): objects linked, the rest
    copied. Returns the number of files written."""
    count = 0
    for folder, _dirs, names in os.walk(mirror):
        rel_folder = os.path.relpath(folder, mirror)
        target_folder = os.path.normpath(os.path.join(common_dir, rel_folder))
        os.makedirs(target_folder, exist_ok=True)
        for name in names:
            if ".tmp-" in name:
                continue
            src, dst = os.path.join(folder, name), os.path.join(target_folder, name)
            if rel_folder.split(os.sep)[0] == "objects" and rel_folder != os.path.join("objects", "info"):
                _link_or_copy(src, dst)
            else:
                _copy(src, dst, link=False)
            count += 1
    return count
