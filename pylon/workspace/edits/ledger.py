"""The edit ledger: per (session, real path, digest), which line ranges were shown.

One small file per (session, real path) under `<state>/edits/<session>/`, named by a hash of the
real path, updated under a cross-process lock and replaced atomically. It is stored with `marshal`
(built into the interpreter: `json` would cost `pylon read` ~10 ms of imports); ledgers of the
earlier JSON format are still read, and anything unreadable counts as an empty ledger. It keeps at most
`MAX_REVISIONS` revisions per file (least recently used dropped first). For files up to
`SNAPSHOT_CAP` bytes a zlib-compressed copy of each revision is kept beside it, so a stale-tag
refusal can say what changed and `--rebase` can carry operations across the change.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import time
import zlib

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.atomic import replace_unsynced
from pylon.errors import Exit
from pylon.locks import file_lock
from pylon.state import session_name, state_home
from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.tag import make_tag

MAX_REVISIONS = 32
SNAPSHOT_CAP = 2 * 1024 * 1024  # bytes of file content; larger files keep no snapshot
INDEX_MIN = 1024 * 1024  # files this large keep their line index beside the ledger
RACY_NS = 2_000_000_000  # a stat recorded within 2 s of the file's last change is not trusted
_INDEX_MAGIC = b"PYLNIDX1"
_LEDGER_MAGIC = b"PYLNLED1"  # then marshal (version 4) of {"version", "path", "revisions"}
LOCK_TIMEOUT = 10.0

if TYPE_CHECKING:
    Revision = dict[str, Any]


class Ledger:
    """The revisions pylon issued for one real path in the current session."""

    def __init__(self, real: str) -> None:
        from pylon.boundary import key_of

        real = self.real = key_of(real)  # a confined entry point's descriptor name -> the real path
        self.session = session_name()
        key = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        self.folder = os.path.join(state_home(), "edits", self.session)
        self.file = os.path.join(self.folder, f"{key}.ledger")
        self.legacy = os.path.join(self.folder, f"{key}.json")  # the format before marshal
        self.lock = os.path.join(self.folder, f"{key}.lock")
        self.key = key
        self._cache: list[Revision] | None = None

    # -- reading (no lock: the file is always replaced whole) --------------------------------
    def revisions(self, fresh: bool = False) -> list[Revision]:
        """The revisions, oldest first; parsed once per Ledger object unless `fresh`."""
        if self._cache is not None and not fresh:
            return list(self._cache)
        self._cache = _valid_revisions(self._load(), self.real)
        return list(self._cache)

    def _load(self) -> object:
        """The decoded document, or None. A damaged or foreign file must never crash a read."""
        raw = _read_or_none(self.file)
        if raw is not None and raw[:8] == _LEDGER_MAGIC:
            try:
                return marshal.loads(raw[8:])
            except (ValueError, EOFError, TypeError):
                return None
        legacy = _read_or_none(self.legacy)
        if legacy is None:
            return None
        import json  # only when upgrading a ledger written before the marshal format

        try:
            return json.loads(legacy)
        except ValueError:  # includes UnicodeDecodeError
            return None

    def find(self, tag: str) -> Revision | None:
        """The revision issued with `tag` (or a longer prefix of its digest), else None."""
        revs = self.revisions()
        for rev in revs:
            if rev["tag"] == tag:
                return rev
        hits = [rev for rev in revs if rev["digest"].startswith(tag) and len(tag) >= len(rev["tag"])]
        return hits[0] if len(hits) == 1 else None

    def by_digest(self, digest: str) -> Revision | None:
        for rev in self.revisions():
            if rev["digest"] == digest:
                return rev
        return None

    def by_stat(self, st: os.stat_result) -> tuple[Revision | None, bool]:
        """The revision last recorded with this inode, size, mtime and ctime, and whether to trust it.

        Trusted (as git trusts its index) only when the record was made more than RACY_NS after
        the file's last change: a change within the same timestamp tick as the record could keep
        all four values. Otherwise the revision is a guess that the hash must confirm.
        """
        key = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        for rev in reversed(self.revisions()):
            if rev.get("stat") == key:
                return rev, rev.get("stat_at", 0) - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS
        return None, False

    def _index_path(self, digest: str) -> str:
        return os.path.join(self.folder, f"{self.key}.{digest[:24]}.idx")

    def load_index(self, rev: Revision | None, block: int) -> list[int] | None:
        """The line index kept for a large revision (newline counts per block), if any."""
        if rev is None or not rev.get("idx"):
            return None
        raw = _read_or_none(self._index_path(rev["digest"]))
        if raw is None or raw[:8] != _INDEX_MAGIC:
            return None
        from array import array  # imports collections.abc: only files of INDEX_MIN bytes or more pay

        values = array("q")
        values.frombytes(raw[8:])
        if not values or values[0] != block:
            return None
        return values[1:].tolist()

    def _write_index(self, digest: str, block: int, cum: list[int]) -> None:
        path = self._index_path(digest)
        if os.path.exists(path):
            return
        os.makedirs(self.folder, exist_ok=True)
        from array import array

        replace_unsynced(path, _INDEX_MAGIC + array("q", [block, *cum]).tobytes())

    def _snap_path(self, digest: str) -> str:
        return os.path.join(self.folder, f"{self.key}.{digest[:24]}.snap")

    def snapshot(self, rev: Revision) -> bytes | None:
        """The kept content of a revision, or None (file over the cap, or snapshot lost)."""
        if not rev.get("snap"):
            return None
        raw = _read_or_none(self._snap_path(rev["digest"]))
        try:
            data = zlib.decompress(raw) if raw is not None else None
        except zlib.error:
            return None
        if data is None:
            return None
        return data if hashlib.sha256(data).hexdigest() == rev["digest"] else None

    # -- writing (under the ledger lock) -----------------------------------------------------
    def _ensure_folder(self) -> None:
        """Create the session folder, or explain that the state directory cannot hold it."""
        try:
            os.makedirs(self.folder, exist_ok=True)
            usable = os.access(self.folder, os.W_OK | os.X_OK)
        except OSError as exc:
            usable, why = False, exc.strerror or str(exc)
        else:
            why = "it is not writable"
        if not usable:
            from pylon.errors import UsageError

            raise UsageError(
                "bad-state-dir",
                f"pylon cannot keep its edit ledger under {self.folder}: {why}.",
                'export PYLON_STATE_DIR="$HOME/.local/state/pylon"   # any writable folder',
            )

    def _save(self, revs: list[Revision]) -> None:
        os.makedirs(self.folder, exist_ok=True)
        doc = {"version": 2, "path": self.real, "revisions": revs}
        # No fsync: the ledger is a cache of what was shown; losing it only means reading again.
        replace_unsynced(self.file, _LEDGER_MAGIC + marshal.dumps(doc, 4))
        try:
            os.unlink(self.legacy)  # its content was carried over by revisions(fresh=True)
        except FileNotFoundError:
            pass
        self._cache = list(revs)

    def _write_snapshot(self, digest: str, data: bytes) -> bool:
        path = self._snap_path(digest)
        if os.path.exists(path):
            return True
        os.makedirs(self.folder, exist_ok=True)
        replace_unsynced(path, zlib.compress(data, 1))
        return True

    def record(
        self,
        digest: str,
        *,
        seen: list[list[int]],
        lines: int,
        size: int,
        data: bytes | None = None,
        parent: dict[str, Any] | None = None,
        stale: list[list[int]] | None = None,
        shown: bool = True,
        st: os.stat_result | None = None,
        index: tuple[int, list[int]] | None = None,
        eol: tuple[int, int] | None = None,
    ) -> Revision:
        """Add `seen` ranges to the revision with `digest` (creating it) and return it.

        `shown` says the ranges were printed now (a read, --show): printed lines are no longer
        stale numbers. `stale` (from an edit) adds the numbers whose meaning moved.
        """
        self._ensure_folder()
        snap = data is not None and len(data) <= SNAPSHOT_CAP
        if snap and data is not None:
            self._write_snapshot(digest, data)
        has_index = index is not None and size >= INDEX_MIN
        if has_index and index is not None:
            self._write_index(digest, *index)
        self._ensure_folder()
        with file_lock(self.lock, timeout=LOCK_TIMEOUT, what="the edit ledger", exit_code=Exit.CANNOT_EDIT):
            revs = self.revisions(fresh=True)
            rev = next((r for r in revs if r["digest"] == digest), None)
            if rev is None:
                tag = make_tag(digest, [r["digest"] for r in revs])
                rev = {"digest": digest, "tag": tag, "seen": [], "lines": lines, "size": size, "snap": False}
            else:
                revs.remove(rev)
            rev["seen"] = rg.union(rev["seen"], seen)
            old_stale = rev.get("stale", [])
            if stale:
                old_stale = rg.union(old_stale, stale)
            if shown and old_stale:
                old_stale = rg.subtract(old_stale, seen)
            if old_stale:
                rev["stale"] = old_stale
            else:
                rev.pop("stale", None)
            rev["snap"] = bool(rev.get("snap") or snap)
            if has_index:
                rev["idx"] = True
            if eol is not None:
                rev["eol"] = list(eol)
            if st is not None:
                rev["stat"] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
                rev["stat_at"] = time.time_ns()
            if parent is not None:
                rev["parent"] = parent
            revs.append(rev)  # most recently used last
            dropped, revs = revs[:-MAX_REVISIONS], revs[-MAX_REVISIONS:]
            self._save(revs)
        for old in dropped:
            for kept, where in (("snap", self._snap_path), ("idx", self._index_path)):
                if old.get(kept):
                    try:
                        os.unlink(where(old["digest"]))
                    except FileNotFoundError:
                        pass
        return rev

    def mark_seen(self, digest: str, seen: list[list[int]]) -> None:
        """Add ranges to an existing revision (after an unseen-lines refusal printed them)."""
        if not seen:
            return
        self._ensure_folder()
        with file_lock(self.lock, timeout=LOCK_TIMEOUT, what="the edit ledger", exit_code=Exit.CANNOT_EDIT):
            revs = self.revisions(fresh=True)
            for rev in revs:
                if rev["digest"] == digest:
                    rev["seen"] = rg.union(rev["seen"], seen)
                    if rev.get("stale"):
                        rev["stale"] = rg.subtract(rev["stale"], seen)
                    self._save(revs)
                    return


def _read_or_none(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _valid_revisions(doc: object, real: str) -> list[Revision]:
    """The revisions of a decoded ledger that have the shape this module relies on.

    A hash collision (another path), a foreign or damaged file: nothing, or only the sound
    revisions, so that a bad ledger costs a re-read, never a crash.
    """
    if not isinstance(doc, dict) or doc.get("path") != real or not isinstance(doc.get("revisions"), list):
        return []
    out = []
    for rev in doc["revisions"]:
        if (
            isinstance(rev, dict)
            and isinstance(rev.get("digest"), str)
            and isinstance(rev.get("tag"), str)
            and _is_ranges(rev.get("seen"))
            and _is_ranges(rev.get("stale", []))
            and isinstance(rev.get("lines"), int)
            and isinstance(rev.get("size"), int)
            and isinstance(rev.get("parent", {}), dict)
            and _is_ranges([rev.get("eol", [0, 0])])
        ):
            out.append(rev)
    return out


def _is_ranges(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(r, list) and len(r) == 2 and type(r[0]) is int and type(r[1]) is int for r in value
    )
