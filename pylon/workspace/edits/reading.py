"""`read`: a numbered window of a file plus its revision tag; shown lines go into the ledger."""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _Result = TypeVar("_Result", bound="ReadResult")

import os

from pylon.errors import Exit, PylonError, UsageError
from pylon.workspace.edits.ledger import INDEX_MIN, SNAPSHOT_CAP, Ledger
from pylon.workspace.edits.lines import BLOCK, BOM, Doc, RangeDoc, check_text, window_span
from pylon.workspace.edits.tag import BackgroundDigest
from pylon.workspace.edits.window import MAX_LINES, Window, take
from pylon.workspace.edits.write import read_with_stat, resolve


class ReadResult:
    def __init__(
        self,
        path: str,
        tag: str,
        total_lines: int,
        start: int,
        end: int,
        eol: str,
        final_newline: bool,
        bom: bool,
        lines: list[tuple[int, str]],
        cut: list[tuple[int, int]],
        next_offset: int | None,
        limit: int | None,
        notes: list[str],
    ) -> None:
        self.path, self.tag, self.total_lines, self.start, self.end = path, tag, total_lines, start, end
        self.eol, self.final_newline, self.bom = eol, final_newline, bom
        self.lines, self.cut, self.next_offset, self.limit, self.notes = lines, cut, next_offset, limit, notes
        self.pending: tuple[Ledger, str, list[list[int]]] | None = None  # lines to mark seen once printed

    def mark_seen(self) -> None:
        """Record the window's lines as seen: after `read(..., defer_seen=True)`, once they are printed.

        An agent never saw lines whose output failed (stdout on a full device, a closed pipe), so
        those stay unseen and an edit naming them is refused.
        """
        if self.pending is not None:
            ledger, digest, seen = self.pending
            self.pending = None
            ledger.mark_seen(digest, seen)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tag": self.tag,
            "total_lines": self.total_lines,
            "start": self.start,
            "end": self.end,
            "eol": self.eol,
            "final_newline": self.final_newline,
            "bom": self.bom,
            "lines": [[n, t] for n, t in self.lines],
            "cut": [[n, h] for n, h in self.cut],
            "next_offset": self.next_offset,
        }


def not_text(path: str, reason: str) -> PylonError:
    return PylonError(
        "not-text",
        f"{path} cannot be numbered: {reason}.",
        "pylon read/edit handle UTF-8 text only; use another tool for this file.",
        exit_code=Exit.CANNOT_EDIT,
    )


def file_notes(doc: Doc) -> list[str]:
    """What an agent must know about the bytes: endings, final newline, BOM."""
    notes = []
    eol = doc.eol()
    if eol == "crlf":
        notes.append("CRLF line endings")
    elif eol == "mixed":
        crlf, lf = doc.eol_counts()
        notes.append(f"mixed line endings ({crlf} CRLF, {lf} LF)")
    if not doc.final_newline:
        notes.append("no final newline")
    if doc.bom:
        notes.append("a UTF-8 BOM")
    return notes


def check_window(path: str, offset: int, limit: int | None) -> None:
    """Usage errors of --offset/--limit, raised before the file is touched."""
    if offset < 1:
        raise UsageError("usage", f"--offset must be 1 or more, not {offset}.", f"pylon read {path} --offset 1")
    if limit is not None and limit < 1:
        raise UsageError("usage", f"--limit must be 1 or more, not {limit}.", f"pylon read {path} --limit {MAX_LINES}")


def read(path: str, offset: int = 1, limit: int | None = None, *, defer_seen: bool = False) -> ReadResult:
    """Number lines offset.. of `path` (at most 2000 lines / 50 KiB) and record them as seen.

    With `defer_seen` the revision and its tag are recorded now, the lines only when the caller
    calls `mark_seen()` on the result after printing them.
    """
    check_window(path, offset, limit)
    real, _ = resolve(path)
    ledger = Ledger(real)
    quick = _trusted_window(path, real, ledger, offset, limit, defer_seen)
    if quick is not None:
        return quick
    loaded = load(path, real, ledger)
    check_offset(path, offset, loaded.doc.nlines)
    win = take(loaded.doc, offset, loaded.doc.nlines, max_lines=min(limit or MAX_LINES, MAX_LINES))
    seen = win.seen()
    res = _window_result(path, loaded.record(ledger, [] if defer_seen else seen), loaded.doc, win, offset, limit)
    return defer(res, ledger, loaded.digest, seen) if defer_seen else res


def defer(res: _Result, ledger: Ledger, digest: str, seen: list[list[int]]) -> _Result:
    res.pending = (ledger, digest, seen)
    return res


class Loaded:
    """One revision of a file read whole: its bytes, stat, line model and digest."""

    __slots__ = ("data", "st", "doc", "digest")

    def __init__(self, data: bytes, st: os.stat_result, doc: Doc, digest: str) -> None:
        self.data, self.st, self.doc, self.digest = data, st, doc, digest

    def record(self, ledger: Ledger, seen: list[list[int]]) -> str:
        """Add the printed lines to the ledger entry of this revision; its tag."""
        big = len(self.data) >= INDEX_MIN
        doc = self.doc
        rev = ledger.record(
            self.digest,
            seen=seen,
            lines=doc.nlines,
            size=len(self.data),
            data=self.data if len(self.data) <= SNAPSHOT_CAP else None,
            st=self.st,
            index=(BLOCK, doc.index()) if big else None,
            eol=doc.eol_counts() if big else None,
        )
        return rev["tag"]


def load(path: str, real: str, ledger: Ledger) -> Loaded:
    """Read and check the whole file and compute its digest (or trust a recorded one)."""
    data, st = read_with_stat(path, real)
    doc = Doc(data)
    # A large file recorded before with the same device, inode, size, mtime and ctime: reuse its
    # line index (and text check). When the record is not racy, also its digest, as git trusts
    # its index; otherwise the hash, computed meanwhile, confirms the guess or we start over.
    guess, trusted = ledger.by_stat(st) if len(data) >= INDEX_MIN else (None, False)
    reused = guess is not None and doc.use_index(ledger.load_index(guess, BLOCK))
    if reused and trusted and guess is not None:
        digest = guess["digest"]
    else:
        hasher = BackgroundDigest(data)
        reason = None if reused else check_text(data)
        if not reason:
            doc.index()  # count lines while the hash is still running on its thread, not after it
        digest = hasher.value
        if reused and guess is not None and guess["digest"] != digest:
            doc.use_index(None)
            reason = check_text(data)
        if reason:
            raise not_text(path, reason)
    return Loaded(data, st, doc, digest)


def check_offset(path: str, offset: int, total: int) -> None:
    if total and offset > total:
        raise PylonError(
            "out-of-range",
            f"--offset {offset} is past the last line of {path} ({total}).",
            f"pylon read {path} --offset {max(1, total - MAX_LINES + 1)}",
            exit_code=Exit.USAGE,
        )


def result(
    path: str,
    tag: str,
    doc: Doc,
    lines: list[tuple[int, str]],
    cut: list[tuple[int, int]],
    offset: int,
    end: int,
    limit: int | None,
) -> ReadResult:
    """The answer covering lines offset..end; the next call starts after `end` unless it is the last line."""
    total = doc.nlines
    next_offset = end + 1 if end < total else None
    crlf_eol = doc.eol() if total else "none"
    return ReadResult(
        path,
        tag,
        total,
        offset if total else 0,
        end if total else 0,
        crlf_eol,
        doc.final_newline if total else False,
        doc.bom,
        lines,
        cut,
        next_offset,
        limit,
        file_notes(doc),
    )


def _window_result(path: str, tag: str, doc: Doc, win: Window, offset: int, limit: int | None) -> ReadResult:
    return result(path, tag, doc, win.lines, win.cut, offset, win.last if win.lines else offset - 1, limit)


def _trusted_window(
    path: str, real: str, ledger: Ledger, offset: int, limit: int | None, defer_seen: bool
) -> ReadResult | None:
    """A window of a large file pylon has recorded unchanged (device, inode, size, mtime, ctime,
    outside the racy interval): read only the blocks it spans, with the kept index and line-ending
    counts. None when anything is missing or the file changed meanwhile; then the caller reads
    and hashes everything.
    """
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_size < INDEX_MIN:
            return None
        rev, trusted = ledger.by_stat(st)
        if rev is None or not trusted or "eol" not in rev:
            return None
        cum = ledger.load_index(rev, BLOCK)
        if cum is None:
            return None
        base = 3 if os.pread(fd, 3, 0) == BOM else 0
        if len(cum) != -(-(st.st_size - base) // BLOCK) + 1:
            return None
        ends_nl = os.pread(fd, 1, st.st_size - 1) == b"\n"
        total = cum[-1] + (0 if ends_nl or st.st_size == base else 1)
        if total and offset > total:
            return None  # the full path reports it
        last = min(total, offset + min(limit or MAX_LINES, MAX_LINES) - 1)
        start, end = window_span(base, st.st_size, cum, offset, last, total)
        data = os.pread(fd, end - start, start)
        if len(data) != end - start or _changed(st, os.fstat(fd)):
            return None
    finally:
        os.close(fd)
    doc = RangeDoc(data, start, st.st_size, base, ends_nl, cum, tuple(rev["eol"]))
    win = take(doc, offset, total, max_lines=min(limit or MAX_LINES, MAX_LINES))
    seen = win.seen()
    kept = ledger.record(rev["digest"], seen=[] if defer_seen else seen, lines=total, size=st.st_size, st=st)
    res = _window_result(path, kept["tag"], doc, win, offset, limit)
    return defer(res, ledger, rev["digest"], seen) if defer_seen else res


def _changed(before: os.stat_result, after: os.stat_result) -> bool:
    keys = ("st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
    return any(getattr(before, k) != getattr(after, k) for k in keys)
