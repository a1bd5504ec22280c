"""Numbered windows of a revision, within the per-call limits; long lines are cut, never printed whole."""

from __future__ import annotations

from pylon.workspace.edits.lines import Doc

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
MAX_LINE_CHARS = 4096
SEPARATOR = "[...]"  # printed between numbered lines that are not consecutive


class Window:
    __slots__ = ("lines", "cut", "stopped", "used")

    def __init__(self) -> None:
        self.lines: list[tuple[int, str]] = []
        self.cut: list[tuple[int, int]] = []  # (line, hidden characters)
        self.stopped = False  # the byte or line budget ended the window early
        self.used = 0  # output bytes spent

    @property
    def first(self) -> int:
        return self.lines[0][0] if self.lines else 0

    @property
    def last(self) -> int:
        return self.lines[-1][0] if self.lines else 0

    def seen(self) -> list[list[int]]:
        """Ranges of the lines shown. A cut line counts: operations replace or delete whole lines,
        and the agent has seen which line it is (its number under this tag, its start, its length);
        printing it whole would make the output unbounded."""
        out: list[list[int]] = []
        for n, _ in self.lines:
            if out and out[-1][1] == n - 1:
                out[-1][1] = n
            else:
                out.append([n, n])
        return out


def numbered(n: int, text: str, hidden: int = 0) -> str:
    if hidden:
        return f"{n}:{text}{cut_marker(hidden)}"
    return f"{n}:{text}"


def cut_marker(hidden: int) -> str:
    return f"[... {hidden} more characters cut; the line counts as seen, edit it whole]"


def clip(text: str) -> str:
    """A line's text as printed: at most MAX_LINE_CHARS characters, then the cut marker."""
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + cut_marker(len(text) - MAX_LINE_CHARS)


def take(
    doc: Doc,
    first: int,
    last: int,
    *,
    max_lines: int = MAX_LINES,
    budget: int = MAX_BYTES,
    full_lines: bool = False,
    first_free: bool = True,
) -> Window:
    """Lines first..last, stopping at `max_lines` or when the output would pass `budget` bytes.

    Lines longer than MAX_LINE_CHARS characters are cut unless `full_lines`.
    The first line is taken even past the budget (a read always shows something) unless
    `first_free` is False, as for a later group of a grep that shares one budget.
    """
    win = Window()
    last = min(last, doc.nlines, first + max_lines - 1)
    if first > last:
        return win
    for n, content, _ in doc.iter_raw(first, last):
        text = content.decode("utf-8", "replace")
        hidden = 0
        if len(text) > MAX_LINE_CHARS and not full_lines:
            hidden = len(text) - MAX_LINE_CHARS
            text = text[:MAX_LINE_CHARS]
        size = len(numbered(n, text, hidden).encode("utf-8")) + 1 if hidden else len(content) + len(str(n)) + 2
        if (win.lines or not first_free) and win.used + size > budget:
            win.stopped = True
            break
        win.used += size
        win.lines.append((n, text))
        if hidden:
            win.cut.append((n, hidden))
    if win.lines and win.last < min(doc.nlines, last) and not win.stopped:
        win.stopped = True
    return win
