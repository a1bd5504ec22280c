"""The repository's `.git` as it was before the latest command, kept in the store (`git/`), so that
`rm -rf .git` is undone by copying it back.

Brought up to date after each state is kept and before the command runs, doing only what changed:

- objects (loose and packs) are hard links of the repository's (copies across file systems), added
  and never removed: a kept state may need an object the repository has since pruned. A fan-out
  folder whose time and inode are those of the last sync is not read again;
- every other file (refs, packed-refs, HEAD, config, the index, logs, info, hooks, worktrees/*, the
  few of pylon's own files that are state: its id, the owned-worktree registry, remembered modes)
  is copied when its stat data changed (never linked: a link changes the file's ctime, and a changed
  ctime of the index makes git, and pylon's own capture, read every file again); files gone from
  `.git` go from the copy.

Not copied: `lfs/` (large content) and `modules/` (submodules' repositories); pylon's caches and
private indexes; lock files.
"""

from __future__ import annotations

import errno
import os

_SKIP_TOP = frozenset({"objects", "lfs", "modules"})
_LINKED: frozenset[str] = frozenset()  # a link changes the file's ctime, which git (and pylon's capture) read
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
        _copy_file(src, tmp)
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
        _copy_file(src, tmp)
    os.replace(tmp, dst)


def _copy_file(src: str, dst: str) -> None:
    """Bytes, bits and times (shutil.copy2's work without its import: a hook pays every import)."""
    st = os.stat(src)
    fd_in = os.open(src, os.O_RDONLY)
    try:
        fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, st.st_mode & 0o7777)
        try:
            left = st.st_size
            while left > 0:
                sent = os.sendfile(fd_out, fd_in, None, left)
                if sent <= 0:
                    break
                left -= sent
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))


def _kept_here(rel: str) -> bool:
    """Is a path below `.git` part of what the mirror holds?"""
    parts = rel.split("/")
    if parts[0] in _SKIP_TOP or parts[-1].endswith(".lock") or ".tmp-" in parts[-1]:
        return False
    if "pylon" in parts:
        tail = parts[parts.index("pylon") + 1 :]
        return bool(tail) and tail[0] in _PYLON_KEPT
    return True


def _objects(src: str, dst: str, seen: dict[str, list[int]]) -> None:
    try:
        listing = list(os.scandir(src))
    except OSError:
        return
    for folder in listing:
        try:
            if not folder.is_dir(follow_symlinks=False):
                continue
            st = folder.stat(follow_symlinks=False)
        except OSError:
            continue
        sig = [st.st_ino, st.st_mtime_ns]
        if seen.get(folder.name) == sig:
            continue  # no object came or went there since the last sync
        _folder(folder.path, os.path.join(dst, folder.name), folder.name == "info")
        seen[folder.name] = sig


def _folder(src: str, target: str, copy: bool) -> None:
    os.makedirs(target, exist_ok=True)
    have = set(os.listdir(target))
    for entry in os.listdir(src):
        if entry.startswith(("tmp_", ".")):
            continue
        if copy:
            _copy(os.path.join(src, entry), os.path.join(target, entry), link=False)
        elif entry not in have:
            _link_or_copy(os.path.join(src, entry), os.path.join(target, entry))


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
    # the signatures are replaced or deleted, never changed in place: shallow copies tell what moved
    was = (dict(objects), dict(files))
    os.makedirs(os.path.join(mirror, "objects"), exist_ok=True)
    _objects(os.path.join(common_dir, "objects"), os.path.join(mirror, "objects"), objects)
    _files(common_dir, mirror, files)
    if (objects, files) != was:  # most commands leave .git as it was: no rename of the cache then
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
