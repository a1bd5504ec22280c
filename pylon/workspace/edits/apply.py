"""Apply validated operations to a revision: new bytes, the old->new line map, changed regions.

Untouched lines keep their exact bytes (copied as slices of the original buffer). A new line takes
the terminator of the line it replaces (for an insertion, of its anchor), or the file's dominant
style when that line has none. The final-newline state and the BOM are kept unless a
`final-newline` operation sets it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.ops import Op

PARENT_CAP = 256  # segments/ranges kept per edit for "line 50 is now 53" notes


class Region:
    """One operation's footprint: removed old lines and written new lines (end = start - 1 if none)."""

    __slots__ = ("index", "header", "old", "new")

    def __init__(self, index: int, header: str, old: tuple[int, int], new: tuple[int, int]) -> None:
        self.index, self.header, self.old, self.new = index, header, old, new


class Applied:
    """The new content as pieces (slices of the old buffer and new bytes, never joined unless asked).

    `sources[i]` is the offset in the old data a piece was sliced from, or -1 for new bytes.
    `segments` are [old_start, old_end, new_start] for every run of untouched lines.
    """

    __slots__ = ("pieces", "sources", "size", "nlines", "segments", "regions", "authored", "_data")

    def __init__(
        self,
        pieces: list[bytes | memoryview],
        sources: list[int],
        nlines: int,
        segments: list[list[int]],
        regions: list[Region],
        authored: list[list[int]],
    ) -> None:
        self.pieces, self.sources, self.nlines = pieces, sources, nlines
        self.size = sum(len(p) for p in pieces)
        self.segments, self.regions, self.authored = segments, regions, authored
        self._data: bytes | None = None

    @property
    def data(self) -> bytes:
        """The new content as one buffer (copies it: only for small files, diffs and --show)."""
        if self._data is None:
            self._data = b"".join(self.pieces)
        return self._data

    def same_as(self, old: bytes) -> bool:
        """Whether the new content equals `old`, comparing only the pieces that moved or are new."""
        if self.size != len(old):
            return False
        offset = 0
        for piece, source in zip(self.pieces, self.sources):
            size = len(piece)
            if source != offset and old[offset : offset + size] != bytes(piece):
                return False
            offset += size
        return True

    def moved(self) -> list[list[int]]:
        return [s for s in self.segments if s[0] != s[2]]

    def touched_old(self) -> list[list[int]]:
        return rg.normalize([r.old for r in self.regions if r.old[0] <= r.old[1]])

    def carry_seen(self, seen: list[list[int]], stale: list[list[int]]) -> tuple[list[list[int]], list[list[int]]]:
        """The new revision's seen set and its stale numbers.

        Seen: old seen lines whose number and content are unchanged, plus the authored lines.
        Stale numbers are line numbers the agent was shown that now mean another line (seen lines
        that moved, accumulated over its edits until it reads them again). An authored line at a
        stale number is held back: a request naming that number may mean either line (the classic
        stale-number mistake), so it is refused as unseen and told where the old line went.
        """
        kept: list[list[int]] = []
        moved: list[list[int]] = []
        for os_, oe, ns in self.segments:
            (kept if os_ == ns else moved).extend(rg.intersect(seen, os_, oe))
        new_stale = rg.union(stale, moved)
        authored = rg.subtract(self.authored, new_stale)
        return rg.union(kept, authored), new_stale

    def parent_record(self, tag: str, digest: str) -> dict[str, Any]:
        """What the next refusal needs to say where lines went (capped: it is only for messages)."""
        cap = PARENT_CAP
        return {
            "tag": tag,
            "digest": digest,
            "map": self.segments[:cap],
            "touched": self.touched_old()[:cap],
            "authored": self.authored[:cap],
        }


def _position(op: Op) -> int:
    """The old line before which the operation's new lines go."""
    if op.kind == "insert_after":
        return op.start + 1
    return op.start


def apply(doc: Doc, ops: list[Op]) -> Applied:
    data = doc.data
    view = memoryview(data)
    last = doc.nlines
    edits = sorted(
        (op for op in ops if op.kind != "final_newline"), key=lambda o: (_position(o), 0 if o.is_insert else 1)
    )
    finals = [op.value for op in ops if op.kind == "final_newline"]
    want_final = bool(finals[0]) if finals else doc.final_newline

    out: list[bytes | memoryview] = [view[: doc.base]] if doc.base else []
    src: list[int] = [0] if doc.base else []
    segments: list[list[int]] = []
    regions: list[Region] = []
    authored: list[list[int]] = []
    prev, delta = 1, 0
    ends_nl = True  # whether the output so far ends with a terminator (or is empty)
    tail_term = 0  # length of the terminator pylon gave the last new line, when new text ends the file
    dominant: bytes | None = None

    def fallback() -> bytes:
        nonlocal dominant
        if dominant is None:
            dominant = doc.dominant()
        return dominant

    for op in edits:
        pos = _position(op)
        if pos > prev:
            lo, hi = doc.line_start(prev), doc.line_start(pos)
            out.append(view[lo:hi])
            src.append(lo)
            segments.append([prev, pos - 1, prev + delta])
            ends_nl = data[hi - 1] == 10 if hi > lo else ends_nl
        removed = op.end - op.start + 1 if op.is_range else 0
        if op.is_range:
            terms = [t for _, _, t in doc.iter_raw(op.start, op.end)]
        else:
            terms = [doc.raw(op.start)[1]] if op.start >= 1 and op.start <= last else [b""]
        if op.lines:
            if not ends_nl:  # lines appended after an unterminated last line: it gains one
                out.append(fallback())
                src.append(-1)
            chunk = bytearray()
            top = len(terms) - 1
            for i, line in enumerate(op.lines):
                term = terms[min(i, top)] or fallback()
                chunk += line.encode("utf-8")
                chunk += term
            out.append(bytes(chunk))
            src.append(-1)
            tail_term = len(term)
            ends_nl = True
        new_start = pos + delta
        regions.append(
            Region(
                op.index,
                op.header,
                (op.start if op.is_range else pos, pos + removed - 1),
                (new_start, new_start + len(op.lines) - 1),
            )
        )
        if op.lines:
            authored.append([new_start, new_start + len(op.lines) - 1])
        delta += len(op.lines) - removed
        prev = pos + removed
    if prev <= last:
        lo = doc.line_start(prev)
        out.append(view[lo:])
        src.append(lo)
        segments.append([prev, last, prev + delta])
        tail_term = 0
    _fix_final(out, src, want_final, fallback, tail_term)
    return Applied(out, src, last + delta, segments, regions, rg.normalize(authored))


def _fix_final(out: list[bytes | memoryview], src: list[int], want_final: bool, fallback: Any, tail_term: int) -> None:
    """Give the last line a terminator, or take it away, as the final-newline state says.

    When new text ends the file, exactly the terminator pylon appended is taken away (`tail_term`
    bytes), so a line ending in a lone `\\r` keeps it; an untouched last line loses its own.
    """
    i = len(out) - 1
    while i >= 0 and len(out[i]) == 0:
        i -= 1
    if i < 0 or (i == 0 and bytes(out[0]) == b"\xef\xbb\xbf"):
        return  # no lines at all
    piece = out[i]
    has = piece[-1] == 10
    if want_final and not has:
        out.insert(i + 1, fallback())
        src.insert(i + 1, -1)
    elif not want_final and has:
        cut = tail_term if src[i] == -1 and tail_term else 2 if len(piece) >= 2 and piece[-2] == 13 else 1
        out[i] = piece[: len(piece) - cut]


__all__ = ["Applied", "Region", "apply"]
