"""Byte-exact line model of a file: BOM, per-line terminators, a block index of line offsets.

Works on the file's bytes without making one Python object per line, so a 40 MB, 1,000,000-line
file costs one counting pass (`bytes.count` per 16 KiB block) and a few `bytes.find` calls per
line that is actually needed.

A line is its content plus its own terminator: `\\n`, `\\r\\n`, or nothing for an unterminated
last line. A lone `\\r` is content. A UTF-8 BOM is kept and is not part of line 1.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from operator import add

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterator

BOM = b"\xef\xbb\xbf"
LF = b"\n"
CRLF = b"\r\n"
NUL = b"\x00"
BLOCK = 1 << 14  # bytes per index block (newline counts for the whole file, one pass)
PIECE = 1 << 10  # locating a line counts up to 16 pieces of its block and splits one (cached)


class Doc:
    """The lines of one revision of a file (its exact bytes), indexed lazily.

    Offsets are absolute positions in the file; `data` holds the bytes from `origin` on (all of
    them here; RangeDoc holds only some blocks).
    """

    __slots__ = ("data", "base", "_cum", "_eol_counts", "_blocks", "_pieces")
    origin = 0

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.base = 3 if data.startswith(BOM) else 0
        self._cum: list[int] | None = None  # _cum[i]: newlines in the body before block i
        self._eol_counts: tuple[int, int] | None = None
        self._blocks: dict[int, list[int]] = {}  # piece offset -> offsets of its newlines, on demand
        self._pieces: dict[int, list[int]] = {}  # block offset -> newlines per piece, on demand

    # -- index -------------------------------------------------------------------------------
    def index(self) -> list[int]:
        """Count newlines per block once; every later lookup is a bisect plus a short scan."""
        if self._cum is None:
            data, count = self.data, self.data.count
            cum = [0]
            total = 0
            for pos in range(self.base, len(data), BLOCK):
                total += count(LF, pos, pos + BLOCK)
                cum.append(total)
            self._cum = cum
        return self._cum

    def use_index(self, cum: list[int] | None) -> bool:
        """Adopt a block index computed earlier for the same bytes; True if adopted.

        None (or an index that cannot belong to these bytes) drops any index adopted before.
        """
        blocks = -(-(len(self.data) - self.base) // BLOCK)
        if cum is not None and len(cum) != blocks + 1:
            cum = None
        self._cum = cum
        self._blocks.clear()
        self._pieces.clear()
        return cum is not None

    @property
    def bom(self) -> bool:
        return self.base == 3

    @property
    def newlines(self) -> int:
        return self.index()[-1]

    @property
    def size(self) -> int:
        return len(self.data)

    def _ends_with_newline(self) -> bool:
        return self.data.endswith(LF)

    @property
    def empty(self) -> bool:
        return self.size == self.base

    @property
    def final_newline(self) -> bool:
        """Whether the last line has a terminator (an empty file counts as yes, see docs)."""
        return self.empty or self._ends_with_newline()

    @property
    def nlines(self) -> int:
        if self.empty:
            return 0
        return self.newlines + (0 if self._ends_with_newline() else 1)

    def _newline_offset(self, k: int) -> int:
        """Offset of the k-th (1-based) newline of the body."""
        cum = self.index()
        block = bisect_left(cum, k) - 1  # cum[block] < k <= cum[block + 1]
        rank = k - cum[block]  # the wanted newline is the rank-th of its block
        start = self.base + block * BLOCK
        o = self.origin
        counts = self._pieces.get(start)
        if counts is None:  # newlines per 1 KiB piece of this block, counted once
            count = self.data.count
            counts = self._pieces[start] = [count(LF, p - o, p - o + PIECE) for p in range(start, start + BLOCK, PIECE)]
        piece = 0
        while rank > counts[piece]:
            rank -= counts[piece]
            piece += 1
        pos = start + piece * PIECE
        offsets = self._blocks.get(pos)
        if offsets is None:
            parts = self.data[pos - o : pos - o + PIECE].split(LF)
            # newline i of the piece sits after parts[0..i] and i earlier newlines (C-level loops only)
            offsets = list(map(add, accumulate(map(len, parts[:-1])), range(pos, pos + len(parts) - 1)))
            self._blocks[pos] = offsets
        return offsets[rank - 1]

    def line_start(self, n: int) -> int:
        """Byte offset where line n starts; n = nlines + 1 gives the end of the data."""
        if n <= 1:
            return self.base
        if n - 1 > self.newlines:
            return self.size
        return self._newline_offset(n - 1) + 1

    # -- lines -------------------------------------------------------------------------------
    def iter_raw(self, first: int, last: int) -> Iterator[tuple[int, bytes, bytes]]:
        """(number, content, terminator) for lines first..last, in order."""
        data, find = self.data, self.data.find
        pos = self.line_start(first) - self.origin
        end_data = len(data)
        for n in range(first, last + 1):
            nl = find(LF, pos)
            if nl < 0:
                if pos >= end_data:
                    return
                yield n, data[pos:], b""
                return
            if nl > pos and data[nl - 1] == 13:
                yield n, data[pos : nl - 1], CRLF
            else:
                yield n, data[pos:nl], LF
            pos = nl + 1

    def raw(self, n: int) -> tuple[bytes, bytes]:
        """(content, terminator) of line n."""
        for _, content, term in self.iter_raw(n, n):
            return content, term
        raise IndexError(n)

    def content(self, n: int) -> bytes:
        return self.raw(n)[0]

    def text(self, n: int) -> str:
        return self.raw(n)[0].decode("utf-8", "replace")

    def lines(self) -> list[bytes]:
        """Every line with its terminator (only for files small enough to hold as a list)."""
        body = self.data[self.base :]
        if not body:
            return []
        parts = body.split(LF)
        out = [p + LF for p in parts[:-1]]
        if parts[-1]:
            out.append(parts[-1])
        return out

    # -- line endings ------------------------------------------------------------------------
    def eol_counts(self) -> tuple[int, int]:
        """(CRLF terminators, bare LF terminators)."""
        if self._eol_counts is None:
            total = self.newlines
            crlf = self.data.count(CRLF, self.base) if b"\r" in self.data else 0
            self._eol_counts = (crlf, total - crlf)
        return self._eol_counts

    def eol(self) -> str:
        """`lf`, `crlf`, `mixed`, or `none` (no line has a terminator)."""
        crlf, lf = self.eol_counts()
        if crlf and lf:
            return "mixed"
        return "crlf" if crlf else "lf" if lf else "none"

    def dominant(self) -> bytes:
        """The terminator most lines use (LF on a tie or when no line has one)."""
        crlf, lf = self.eol_counts()
        return CRLF if crlf > lf else LF


class RangeDoc(Doc):
    """Whole index blocks of a large file read with pread, plus what the ledger knows of the rest.

    Enough to number a window of lines without reading the other 40 MB: `data` starts at the
    block holding the newline before the window and ends after the block holding its last one.
    """

    __slots__ = ("origin", "_size", "_ends_nl")

    def __init__(
        self, data: bytes, origin: int, size: int, base: int, ends_nl: bool, cum: list[int], eol_counts: tuple[int, int]
    ) -> None:
        super().__init__(data)
        self.origin, self._size, self._ends_nl, self.base = origin, size, ends_nl, base
        self._cum, self._eol_counts = cum, eol_counts

    @property
    def size(self) -> int:
        return self._size

    def _ends_with_newline(self) -> bool:
        return self._ends_nl

    def index(self) -> list[int]:
        assert self._cum is not None
        return self._cum


def window_span(base: int, size: int, cum: list[int], first: int, last: int, nlines: int) -> tuple[int, int]:
    """The byte range of whole blocks a RangeDoc needs to hold lines first..last."""
    lo_block = max(bisect_left(cum, first - 1) - 1, 0) if first > 1 else 0
    start = base + lo_block * BLOCK
    if last >= nlines:
        return start, size
    hi_block = bisect_left(cum, last) - 1
    return start, min(size, base + (hi_block + 1) * BLOCK)


def check_text(data: bytes) -> str | None:
    """None when `data` is editable text, else a short reason (NUL byte, invalid UTF-8)."""
    if NUL in data:
        return f"it contains a NUL byte at offset {data.index(NUL)}"
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"it is not valid UTF-8 (byte offset {exc.start})"
    return None
