"""The ignored files a kept state holds, within a budget (docs/explanation/guard.md, "What is kept").

git keeps no ignored file, so a command that removes `build/` or rewrites `.env` would destroy them
for good. Before every command the keep holds, byte for byte with their bits, every ignored regular
file and symlink up to `ignored_file_max` bytes, up to `ignored_max` bytes in all, and the ignored
empty folders; what is over (a large file, a folder that would pass the total, a repository of its
own inside an ignored folder, a FIFO or device) is named as not kept, with its size.

The ignored entries are listed by `git ls-files --others --ignored --directory` (an ignored
folder as one entry) and walked by pylon; each file is hashed and written into the store (loose.py)
only when its stat data differs from the last keep (`ignored.json` in the checkout's keep folder),
and the tree of them is written only when the set changed.
"""

from __future__ import annotations

import os
import stat

from pylon.workspace import git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.keep.store import KeepCheckout

Record = dict[str, object]
_CACHE = "ignored.json"


def listing(kc: KeepCheckout, index: str) -> git.GitProcess:
    """Start the listing of ignored entries (folders collapsed) against the keep's private index."""
    return git.start(
        ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
        cwd=kc.root,
        env={"GIT_INDEX_FILE": index},
    )


class _Walk:
    """One pass over the ignored entries: what is kept, what is not, within the budget."""

    def __init__(self, root: str, file_max: int, total_max: int, cache: dict[str, list[object]]) -> None:
        self.root, self.file_max, self.total_max, self.cache = root, file_max, total_max, cache
        self.files: dict[str, tuple[int, os.stat_result]] = {}  # path -> (bits, stat)
        self.dirs: list[str] = []
        self.not_kept: list[list[object]] = []
        self.total = 0

    def entry(self, rel: str) -> None:
        full = os.path.join(self.root, rel)
        try:
            st = os.lstat(full)
        except OSError:
            return
        if stat.S_ISDIR(st.st_mode):
            self.folder(rel)
        else:
            self.file(rel, st)

    def folder(self, top: str) -> None:
        found: dict[str, tuple[int, os.stat_result]] = {}
        dirs: list[str] = []
        size = 0
        skipped: list[list[object]] = []
        for folder, subdirs, names in os.walk(os.path.join(self.root, top)):
            rel_folder = os.path.relpath(folder, self.root)
            if ".git" in subdirs or ".git" in names:
                skipped.append([rel_folder, _du(folder), "a repository of its own"])
                subdirs[:] = []
                continue
            if not subdirs and not names:
                dirs.append(rel_folder)
            for name in names + [d for d in subdirs if os.path.islink(os.path.join(folder, d))]:
                rel = os.path.join(rel_folder, name)
                try:
                    st = os.lstat(os.path.join(folder, name))
                except OSError:
                    continue
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                    skipped.append([rel, 0, "not a file (a FIFO, socket or device)"])
                elif st.st_size > self.file_max:
                    skipped.append([rel, st.st_size, f"over {self.file_max} bytes"])
                else:
                    found[rel] = (stat.S_IMODE(st.st_mode), st)
                    size += st.st_size
                if self.total + size > self.total_max:
                    self.not_kept.append(
                        [
                            top,
                            _du(os.path.join(self.root, top)),
                            f"over the {self.total_max} bytes kept of ignored files",
                        ]
                    )
                    return
        self.files.update(found)
        self.dirs += dirs
        self.total += size
        self.not_kept += skipped

    def file(self, rel: str, st: os.stat_result) -> None:
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            self.not_kept.append([rel, 0, "not a file (a FIFO, socket or device)"])
        elif st.st_size > self.file_max:
            self.not_kept.append([rel, st.st_size, f"over {self.file_max} bytes"])
        elif self.total + st.st_size > self.total_max:
            self.not_kept.append([rel, st.st_size, f"over the {self.total_max} bytes kept of ignored files"])
        else:
            self.files[rel] = (stat.S_IMODE(st.st_mode), st)
            self.total += st.st_size


def _du(path: str) -> int:
    total = 0
    for folder, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def _sig(st: os.stat_result) -> list[int]:
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode]


def _tops(proc: git.GitProcess | None, cache: dict[str, object]) -> list[str] | None:
    """The ignored entries: listed now, or those of the last keep (None: neither)."""
    if proc is None:
        tops = cache.get("tops")
        return [str(t) for t in tops] if isinstance(tops, list) else None
    code, out, _err = proc.wait()
    return [os.fsdecode(p) for p in out.split(b"\0") if p] if code == 0 else []


def keep(kc: KeepCheckout, proc: git.GitProcess | None, budget: tuple[int, int]) -> Record:
    """The record of the ignored files kept now: the entries `proc` (started by `listing`) lists, or
    without it (nothing came or went outside ignored folders) the last keep's entries again."""
    from pylon.workspace.index import read_json, write_json

    cache_path = os.path.join(kc.keep_dir, _CACHE)
    cache = read_json(cache_path) or {}
    entries = _tops(proc, cache)
    if entries is None:
        entries = _tops(listing(kc, kc.index_path), cache) or []
    seen = cache.get("files") if isinstance(cache.get("files"), dict) else {}
    assert isinstance(seen, dict)
    walk = _Walk(kc.root, budget[0], budget[1], seen)
    for raw in sorted(entries):
        rel = raw.rstrip("/")
        if rel and rel != ".git" and not rel.startswith(".git/"):
            walk.entry(rel)
    files: dict[bytes, tuple[str, str]] = {}
    fresh: dict[str, list[object]] = {}
    odd: dict[str, list[str]] = {}
    for rel, (bits, st) in sorted(walk.files.items()):
        sig = _sig(st)
        old = seen.get(rel)
        oid = old[5] if isinstance(old, list) and len(old) == 6 and old[:5] == sig else None
        if oid is None:
            oid = _store(kc, rel, st)
            if oid is None:
                continue
        fresh[rel] = [*sig, oid]
        mode = "120000" if stat.S_ISLNK(st.st_mode) else ("100755" if bits & 0o100 else "100644")
        files[os.fsencode(rel)] = (mode, str(oid))
        if mode != "120000" and bits not in (0o644, 0o755):
            odd.setdefault(format(bits, "o"), []).append(rel)
    digest = _digest(files)
    tree = cache.get("tree") if cache.get("digest") == digest else None
    if files and not tree:
        from pylon.workspace.loose import tree as write_tree

        tree = write_tree(kc.store.objects, files)
    record: Record = {
        "tree": tree or None,
        "count": len(files),
        "bytes": walk.total,
        "modes": odd,
        "dirs": sorted(walk.dirs),
        "not_kept": walk.not_kept,
    }
    try:
        write_json(cache_path, {"files": fresh, "digest": digest, "tree": tree, "tops": entries})
    except OSError:
        pass  # only a cache: the next keep hashes again
    return record


def _store(kc: KeepCheckout, rel: str, st: os.stat_result) -> str | None:
    from pylon.workspace.loose import blob

    full = os.path.join(kc.root, rel)
    try:
        if stat.S_ISLNK(st.st_mode):
            data = os.fsencode(os.readlink(full))
        else:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                chunks = []
                while True:
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        break
                    chunks.append(chunk)
            finally:
                os.close(fd)
            data = b"".join(chunks)
    except OSError:
        return None
    return blob(kc.store.objects, data)


def _digest(files: dict[bytes, tuple[str, str]]) -> str:
    from pylon.digest import sha256_hex

    return sha256_hex(b"".join(p + b"\0" + m.encode() + o.encode() for p, (m, o) in sorted(files.items())))
