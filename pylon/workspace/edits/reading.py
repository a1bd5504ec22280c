"""`read`: a numbered window of a file plus its revision tag; shown lines go into the ledger."""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.errors import Exit, PylonError, UsageError
from pylon.workspace.edits.ledger import SNAPSHOT_CAP, Ledger
from pylon.workspace.edits.lines import Doc, check_text
from pylon.workspace.edits.tag import BackgroundDigest
from pylon.workspace.edits.window import MAX_LINES, take
from pylon.workspace.edits.write import read_path, resolve


class ReadResult:
    def __init__(self, path: str, tag: str, total_lines: int, start: int, end: int, eol: str, final_newline: bool,
                 bom: bool, lines: list[tuple[int, str]], cut: list[tuple[int, int]], next_offset: int | None,
                 limit: int | None, notes: list[str]) -> None:
        self.path, self.tag, self.total_lines, self.start, self.end = path, tag, total_lines, start, end
        self.eol, self.final_newline, self.bom = eol, final_newline, bom
        self.lines, self.cut, self.next_offset, self.limit, self.notes = lines, cut, next_offset, limit, notes

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "tag": self.tag, "total_lines": self.total_lines, "start": self.start,
            "end": self.end, "eol": self.eol, "final_newline": self.final_newline, "bom": self.bom,
            "lines": [[n, t] for n, t in self.lines], "cut": [[n, h] for n, h in self.cut],
            "next_offset": self.next_offset,
        }


def not_text(path: str, reason: str) -> PylonError:
    return PylonError("not-text", f"{path} cannot be numbered: {reason}.",
                      "pylon read/edit handle UTF-8 text only; use another tool for this file.",
                      exit_code=Exit.CANNOT_EDIT)


def file_notes(doc: Doc) -> list[str]:
    """What an agent must know about the bytes: endings, final newline, BOM."""
    notes = []
    eol = doc.eol()
    if eol == "crlf":
        notes.append("CRLF line endings")
    elif eol == "mixed":
        crlf, lf = doc.eol_counts()
        notes.append(f"mixed line endings ({crlf} CRLF, {lf} LF)")
    if not doc.empty and not doc.data.endswith(b"\n"):
        notes.append("no final newline")
    if doc.bom:
        notes.append("a UTF-8 BOM")
    return notes


def read(path: str, offset: int = 1, limit: int | None = None) -> ReadResult:
    """Number lines offset.. of `path` (at most 2000 lines / 50 KiB) and record them as seen."""
    if offset < 1:
        raise UsageError("usage", f"--offset must be 1 or more, not {offset}.", f"pylon read {path} --offset 1")
    if limit is not None and limit < 1:
        raise UsageError("usage", f"--limit must be 1 or more, not {limit}.", f"pylon read {path} --limit {MAX_LINES}")
    real, _st = resolve(path)
    data = read_path(path, real)
    hasher = BackgroundDigest(data)
    reason = check_text(data)
    if reason:
        raise not_text(path, reason)
    doc = Doc(data)
    total = doc.nlines
    if total and offset > total:
        raise PylonError("out-of-range", f"--offset {offset} is past the last line of {path} ({total}).",
                         f"pylon read {path} --offset {max(1, total - MAX_LINES + 1)}", exit_code=Exit.USAGE)
    win = take(doc, offset, total, max_lines=min(limit or MAX_LINES, MAX_LINES))
    digest = hasher.value
    rev = Ledger(real).record(digest, seen=win.seen(), lines=total, size=len(data),
                              data=data if len(data) <= SNAPSHOT_CAP else None)
    end = win.last if win.lines else offset - 1
    next_offset = end + 1 if end < total else None
    crlf_eol = doc.eol() if total else "none"
    return ReadResult(path, rev["tag"], total, offset if total else 0, end if total else 0, crlf_eol,
                      doc.final_newline if total else False, doc.bom, win.lines, win.cut, next_offset, limit,
                      file_notes(doc))
