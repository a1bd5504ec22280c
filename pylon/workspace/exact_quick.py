"""Every capture's exact record (exact.py's `pylon-meta`: odd permission bits, empty folders), kept
current from what the capture's own `git status` already did, so it costs no walk of the checkout.

The private index (index.py) holds every file of the working tree with the stat data git recorded
for it, and `git status` lstat()s every one of them. A chmod changes a file's ctime, which git
sees: a file whose content changed is reported (and staged by the capture), and one whose content
did not is refreshed silently (its stat data rewritten in the private index). A file, or an empty
folder, made or removed changes its folder's mtime, which the untracked cache sees (its `UNTR`
extension is rewritten). So, from the record of the last capture (`<git-dir>/pylon/exact-cache`,
valid while the private index is the one that capture left):

- the files whose bits may have changed are those staged by this capture, those whose index entry
  status refreshed (the entries before and after status compared: equal as one `memcmp` in the
  usual case, thanks to the `EOIE` extension that says where the entries end), and those the last
  record held: each is lstat()ed;
- the empty folders are the last record's (each checked again) unless the extensions changed:
  then `git ls-files --others --directory` on the private index lists them (run beside the
  staging), each walked for the empty folders it holds, ignored ones left out.

Without a valid record (the first capture, a private index copied afresh from the real index, a
throw-away index, an index format other than 2 or 3) one `find` walks the checkout beside status
(exact.start), as named baselines always do.
"""

from __future__ import annotations

import os
import time

from pylon.workspace import exact, git
from pylon.workspace.exact import Scan
from pylon.workspace.indexfile import extensions, refreshed, untracked_dirs

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from pylon.workspace.repo import Checkout

_CACHE = "exact-cache"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


class _Before:
    """The private index as status found it, held open rather than read: git replaces the file by a
    rename, so its old bytes stay readable here, and read only when status did replace it (mostly it
    does not: nothing was refreshed, and a 40,000-entry index is not read twice for nothing)."""

    __slots__ = ("fd", "sig")

    def __init__(self, fd: int) -> None:
        st = os.fstat(fd)
        self.fd, self.sig = fd, [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]  # as index.file_sig

    @classmethod
    def open(cls, path: str) -> _Before | None:
        try:
            return cls(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            return None

    def read(self) -> bytes | None:
        try:
            with os.fdopen(os.dup(self.fd), "rb") as fh:
                fh.seek(0)
                return fh.read()
        except OSError:
            return None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Quick:
    """One capture's record: begin() before status, after_status() between status and staging,
    scan() once the capture's tree is written, save() when the private index is final."""

    def __init__(self, checkout: Checkout, index: str, persistent: bool) -> None:
        self.checkout, self.index = checkout, index
        self.cache = _load(checkout) if persistent else None
        self.persistent = persistent
        self.pre: _Before | None = None
        self.fresh: list[str] = []
        self.walk: subprocess.Popen[bytes] | None = None
        self.scanned: Scan | None = None
        self.dirs: git.GitProcess | None = None
        self.recent: list[str] = []
        self.looked: set[str] | None = set()  # folders whose stat data git recorded anew (None: unknown)
        self.started = int(time.time())

    def force(self, scanned: Scan | None) -> None:
        """A full walk whatever the record says (named baselines): `scanned`, or one started now."""
        if scanned is not None:
            self.scanned = scanned
        else:
            self.walk = exact.start(self.checkout.root, recent=self.started)

    def begin(self, reuse: bool) -> None:
        """Before status: hold the index open when the last record is valid, else walk beside it."""
        if self.scanned is not None:
            return
        self.fresh = []
        if self.dirs is not None:
            self.dirs.wait()
            self.dirs = None
        cache = self.cache
        if self.pre is not None:
            self.pre.close()
        self.pre = None
        if reuse and cache is not None and "dm" in cache:
            self.pre = _Before.open(self.index)
            if self.pre is not None and cache.get("sig") != self.pre.sig:
                self.pre.close()
                self.pre = None
        if self.pre is None and self.walk is None:
            self.walk = exact.start(self.checkout.root, recent=self.started)

    def after_status(self) -> None:
        from pylon.workspace.index import file_sig

        if self.pre is None or self.walk is not None or self.scanned is not None:
            return
        if file_sig(self.index) == self.pre.sig:
            return  # status wrote no new index: no entry was refreshed, no folder looked at anew
        pre, post = self.pre.read(), _read(self.index)
        if post == pre:
            return
        ext = extensions(post) if post is not None else None
        fresh = refreshed(pre, post) if pre is not None and post is not None and not (ext and b"link" in ext) else None
        if fresh is None or pre is None:  # not comparable (a split index, another format): walk
            self.pre.close()
            self.pre = None
            self.walk = exact.start(self.checkout.root, recent=self.started)
            return
        self.fresh = fresh
        if ext is None or ext != extensions(pre) or b"UNTR" not in ext:
            self.dirs = git.start(
                ["ls-files", "-z", "--others", "--directory", "--exclude-standard"],
                cwd=self.checkout.root,
                env={"GIT_INDEX_FILE": self.index},
            )
            # the folders git looked at again (a chmod changes a folder's ctime, which it checks)
            was, now = untracked_dirs(pre), untracked_dirs(post) if post is not None else None
            self.looked = None if was is None or now is None else {d for d, st in now.items() if was.get(d) != st}

    def close(self) -> None:
        if self.pre is not None:
            self.pre.close()
        if self.walk is not None and self.walk.poll() is None:
            self.walk.kill()
            self.walk.wait()
        if self.dirs is not None:
            self.dirs.wait()  # a short listing: reaped, never left behind
            self.dirs = None

    def meta(self, tree: str, staged: list[bytes]) -> exact.Meta:
        """The record of the state whose working tree is `tree`."""
        root = self.checkout.root
        if self.scanned is not None or self.walk is not None or self.cache is None:
            found = self.scanned or (exact.finish(self.walk) if self.walk is not None else exact.scan(root))
            self.walk = None
            self.recent = exact.in_tree(root, tree, found.recent)  # ignored files are not the state's
            meta = exact.meta_for(root, tree, found)
        else:
            cache = self.cache
            old = exact.modes_of(cache)
            recent = cache.get("recent")
            check = (
                set(old)
                | set(self.fresh)
                | {os.fsdecode(p) for p in staged}
                | set(recent if isinstance(recent, list) else [])
            )
            modes, self.recent = _bits(root, sorted(check), self.started - 1)
            dirs, new = _recheck(root, exact.dirs_of(cache))
            new += _emptied(root, staged)
            listed: list[str] = []
            if self.dirs is not None:
                code, out, _err = self.dirs.wait()
                self.dirs = None
                if code != 0:  # no listing: the folders from a walk
                    out = b"".join(os.fsencode(d) + b"/\0" for d in exact.scan(root).dirs)
                listed = [os.fsdecode(p)[:-1] for p in out.split(b"\0") if p.endswith(b"/")]
                new += _empty_below(root, listed)
            new = [d for d in dict.fromkeys(new) if d not in dirs]
            empty = sorted([*dirs, *exact.unignored(root, new)])
            # folder bits: the last record's, and every folder above what this capture staged or found
            folders = set(exact.modes_of(cache, "dm")) | set(empty) | set(listed) | _above(staged)
            folders |= set(self.looked) - {""} if self.looked is not None else set(exact.scan(root).dir_modes)
            meta = exact.grouped(
                modes,
                empty,
                exact.state_dirs(root, tree, exact.file_bits(root, sorted(folders), odd=True, folders=True), empty),
            )
        return meta

    def save(self, meta: exact.Meta) -> None:
        """The record, for the next capture, with the signature of the private index it matches."""
        if not self.persistent:
            return
        from pylon.workspace.index import file_sig, write_json

        try:
            write_json(_path(self.checkout), {"sig": file_sig(self.index), "recent": self.recent, **meta})
        except OSError:
            pass  # only a cache: the next capture walks


def _bits(root: str, paths: list[str], since: int) -> tuple[dict[str, int], list[str]]:
    """(the bits other than 644/755 of those of `paths` that are regular files, the paths whose ctime
    is `since` or later). git compares ctimes in whole seconds, so a chmod in the second a file's
    stat data was recorded in looks clean to the next status: those files are looked at again."""
    import stat

    modes: dict[str, int] = {}
    recent: list[str] = []
    for rel in paths:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        if int(st.st_ctime) >= since:
            recent.append(rel)
        bits = stat.S_IMODE(st.st_mode)
        if stat.S_ISREG(st.st_mode) and bits not in (0o644, 0o755):
            modes[rel] = bits
    return modes, recent


def _above(staged: list[bytes]) -> set[str]:
    """Every folder on the way to the staged paths."""
    found: set[str] = set()
    for raw in staged:
        rel = os.fsdecode(raw)
        cut = rel.rfind("/")
        while cut > 0 and rel[:cut] not in found:
            found.add(rel[:cut])
            cut = rel.rfind("/", 0, cut)
    return found


def _path(checkout: Checkout) -> str:
    return os.path.join(checkout.pylon_dir(), _CACHE)  # beside the private index it matches


def _load(checkout: Checkout) -> dict[str, object] | None:
    from pylon.workspace.index import read_json

    return read_json(_path(checkout))


def _empty(full: str) -> bool:
    try:
        with os.scandir(full) as it:
            return next(it, None) is None and not os.path.islink(full)
    except OSError:
        return False


def _empty_below(root: str, tops: list[str]) -> list[str]:
    """The empty folders at or below each folder (no symlink followed)."""
    found: list[str] = []
    for top in tops:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            if not dirs and not files:
                found.append(os.path.relpath(folder, root))
    return found


def _recheck(root: str, cached: list[str]) -> tuple[list[str], list[str]]:
    """The last record's empty folders: (those still empty, the empty folders found where the others
    were: below one that holds something now, or above one that is gone)."""
    kept: list[str] = []
    found: list[str] = []
    for rel in cached:
        full = os.path.join(root, rel)
        if _empty(full):
            kept.append(rel)
        elif os.path.isdir(full) and not os.path.islink(full):
            found += _empty_below(root, [rel])
        else:
            found += _empty_above(root, rel)
    return kept, found


def _empty_above(root: str, rel: str) -> list[str]:
    """The nearest existing folder above `rel`, when it is empty now."""
    parent = os.path.dirname(rel)
    while parent:
        full = os.path.join(root, parent)
        if os.path.lexists(full):
            return [parent] if _empty(full) else []
        parent = os.path.dirname(parent)
    return []


def _emptied(root: str, staged: list[bytes]) -> list[str]:
    """Folders left empty by the removals this capture staged (their files gone)."""
    found: list[str] = []
    for raw in staged:
        rel = os.fsdecode(raw)
        if os.path.lexists(os.path.join(root, rel)):
            continue
        found += [d for d in _empty_above(root, rel) if d not in found]
    return found
