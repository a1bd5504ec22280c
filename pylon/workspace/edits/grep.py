"""`read --grep`: the lines of a revision that match a pattern, with context, bounded like a read.

Only `pylon read --grep` imports this module (and `re`); a plain read never does. The lines it
prints go into the ledger like any read, so an agent can find a line and edit it with one call
in between, under the same tag.
"""

from __future__ import annotations

import re
from itertools import compress, count

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

from pylon.errors import UsageError
from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.ledger import Ledger
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.reading import ReadResult, check_offset, check_window, defer, load, result
from pylon.workspace.edits.window import MAX_BYTES, MAX_LINES, SEPARATOR, Window, take
from pylon.workspace.edits.write import resolve

MAX_CONTEXT = 50
# An agent's pattern (pylon mcp) may backtrack for ages (`(a+)+$`); a confined call stops it after
# this many seconds (`grep-timeout`) so the server answers again. A person has Ctrl-C.
GREP_SECONDS = 10.0
_CHUNK = 1 << 20  # bytes decoded and split at a time: bounded memory on a 40 MB file


class GrepResult(ReadResult):
    """A read whose lines are the matching groups; `start`..`end` is the span the answer covers."""

    def __init__(
        self, res: ReadResult, pattern: str, context: int, matches: int, matched: list[int], groups: list[list[int]]
    ) -> None:
        super().__init__(
            res.path,
            res.tag,
            res.total_lines,
            res.start,
            res.end,
            res.eol,
            res.final_newline,
            res.bom,
            res.lines,
            res.cut,
            res.next_offset,
            res.limit,
            res.notes,
        )
        self.pattern, self.context = pattern, context
        self.matches = matches  # matching lines in the whole file
        self.matched = matched  # the matching lines printed
        self.groups = groups  # printed [first, last] spans, in order

    def to_json(self) -> dict[str, Any]:
        return {
            **super().to_json(),
            "pattern": self.pattern,
            "context": self.context,
            "matches": self.matches,
            "matched": self.matched,
            "groups": self.groups,
        }


def compile_pattern(path: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise UsageError(
            "usage",
            f"--grep {pattern!r} is not a valid Python regular expression: {exc.msg}{where}.",
            "Put a backslash before . ^ $ * + ? { } [ ] \\ | ( ) to match them literally, e.g. "
            f"pylon read {path} --grep 'load\\(path\\)'.",
        ) from None


def matching_lines(doc: Doc, rx: re.Pattern[str]) -> list[int]:
    """Numbers of the lines whose text (without its terminator) `rx` finds a match in."""
    data, search = doc.data, rx.search
    crlf, lf = doc.eol_counts()
    # One split per chunk yields the lines without terminators when every terminator is the
    # same; only a mixed file needs a `\r` stripped line by line. A lone `\r` stays content.
    sep = "\r\n" if crlf and not lf else "\n"
    mixed = bool(crlf and lf)
    found: list[int] = []
    pos, end, before = doc.base, len(data), 0
    while pos < end:
        stop = data.find(b"\n", min(pos + _CHUNK, end) - 1)  # whole lines only: UTF-8 splits cleanly at \n
        stop = end if stop < 0 else stop + 1
        text = data[pos:stop].decode("utf-8", "replace")
        rows = text.split(sep)
        if text.endswith(sep):
            rows.pop()  # the text after the last terminator is not a line
            terminated = len(rows)
        else:
            terminated = len(rows) - 1  # the file's unterminated last line: a `\r` there is content
        if mixed:
            rows[:terminated] = [r[:-1] if r.endswith("\r") else r for r in rows[:terminated]]
        found += compress(count(before + 1), map(search, rows))  # C-level loop over the lines
        before += len(rows)
        pos = stop
    return found


def _groups(hits: list[int], context: int, offset: int, total: int) -> list[list[int]]:
    """Matches with their context, merged when they touch, clipped to start at `offset`.

    A match just above `offset` still brings its context below it, so that `--offset N` prints
    exactly the rest of what the same command without it prints from line N on.
    """
    out: list[list[int]] = []
    for m in hits:
        a, b = max(offset, m - context), min(total, m + context)
        if b < a:
            continue
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _print(doc: Doc, groups: list[list[int]], max_lines: int) -> tuple[list[Window], bool]:
    """Windows of the groups within one line and byte budget; whether the budget cut the output."""
    wins: list[Window] = []
    lines, budget = max_lines, MAX_BYTES
    for a, b in groups:
        sep = len(SEPARATOR) + 1 if wins else 0
        win = take(doc, a, b, max_lines=lines, budget=budget - sep, first_free=not wins)
        if not win.lines:
            return wins, True
        wins.append(win)
        lines -= len(win.lines)
        budget -= win.used + sep
        if win.last < b:
            return wins, True
    return wins, False


def grep(
    path: str, pattern: str, context: int = 0, offset: int = 1, limit: int | None = None, *, defer_seen: bool = False
) -> GrepResult:
    """The lines of `path` matching `pattern` (Python regex) with `context` lines around them.

    `defer_seen` as for `read`: the printed lines are recorded by `mark_seen()` once printed."""
    check_window(path, offset, limit)
    if not 0 <= context <= MAX_CONTEXT:
        raise UsageError(
            "usage",
            f"--context takes 0..{MAX_CONTEXT} lines, not {context}.",
            f"pylon read {path} --grep PATTERN --context 3",
        )
    rx = compile_pattern(path, pattern)  # before touching the file: a bad pattern records nothing
    real, _ = resolve(path)
    ledger = Ledger(real)
    loaded = load(path, real, ledger)
    doc = loaded.doc
    total = doc.nlines
    check_offset(path, offset, total)
    hits = _bounded(lambda: matching_lines(doc, rx), path, pattern)
    wins, stopped = _print(doc, _groups(hits, context, offset, total), min(limit or MAX_LINES, MAX_LINES))
    seen = rg.normalize(r for w in wins for r in w.seen())
    tag = loaded.record(ledger, [] if defer_seen else seen)
    printed = [line for w in wins for line in w.lines]
    shown = {n for n, _ in printed}
    res = result(
        path, tag, doc, printed, [c for w in wins for c in w.cut], offset, wins[-1].last if stopped else total, limit
    )
    found = GrepResult(
        res, pattern, context, len(hits), [m for m in hits if m in shown], [[w.first, w.last] for w in wins]
    )
    return defer(found, ledger, loaded.digest, seen) if defer_seen else found


class _Expired(Exception):
    pass


def _bounded(search: Callable[[], list[int]], path: str, pattern: str) -> list[int]:
    """`search()`, stopped after GREP_SECONDS where an entry point is confined and this is the main
    thread (a timer signal; `re` checks for signals while it backtracks); as it is elsewhere."""
    import signal
    import threading

    from pylon import boundary

    if (
        boundary.current() is None
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
    ):
        return search()

    def expired(number: int, frame: object) -> None:
        raise _Expired

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, GREP_SECONDS)
    try:
        return search()
    except _Expired:
        from pylon.errors import PylonError

        raise PylonError(
            "grep-timeout",
            f"--grep {pattern[:200]!r} ran over {GREP_SECONDS:g} s on {path} and was "
            "stopped (a pattern with nested repetition, like (a+)+$, can backtrack for ages).",
            f"Simplify the pattern, or search fewer lines: pylon read {path} --grep PATTERN --offset N --limit M",
        ) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
