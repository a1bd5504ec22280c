"""Heuristics for edits that are probably mistakes (exit 3 unless overridden).

- Echo: the first new line repeats the line just above the range, or the last new line repeats
  the line just below it (the classic duplicated boundary line). Blank lines never count. Some
  repeats are the shape of the file rather than a slip, so they only warn: lines made only of
  brackets (`(`, `}`, `);`) or of one block keyword (`try:`, `else:`, `end;`, `fi`...), a lone
  list item (`None,`, `NextLine,`), and a line that already occurs elsewhere among the lines
  around the change (a list of repeated entries). Tuned on replayed public histories; see
  docs/explanation/edits.md.
- Indent mix: a new line indents with tabs where the surrounding lines indent only with spaces,
  or with spaces where they indent only with tabs. Lines holding only whitespace, and the lines
  the request itself replaces, do not count as the surrounding style (a re-indent is judged by
  the lines it leaves).
"""

from __future__ import annotations

import re

from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.ops import Op
from pylon.workspace.edits.problems import Problem

# Structural lines repeat legitimately (closing two blocks, nested `try:`): they only warn.
_STRUCTURAL = re.compile(r"^\s*(?:[()\[\]{}]+[;,]?|(?:try|else|finally|do|then|end|fi|done|esac|begin)[:;]?)\s*$")
# One word, number or empty literal and a comma: an item of a list, where values repeat.
_LIST_ITEM = re.compile(r"^\s*(?:[\w.+-]+|\"\"|'')\s*,\s*$")
# A line start that indents with a tab or two spaces and holds more than whitespace.
_INDENTED = re.compile(rb"^(\t|  )[ \t]*\S", re.M)
_INDENTED_HERE = re.compile(rb"(\t|  )[ \t]*\S")  # the first line after a BOM, where `^` does not match
NEIGHBOURHOOD = 4096  # bytes on each side that decide the local indentation style and repeats
REINDENT_SCAN = 5000  # replaced lines compared with the new ones (a bound on the work, not a rule)


def check(doc: Doc, ops: list[Op], *, allow_echo: bool, allow_indent_mix: bool) -> tuple[list[Problem], list[str]]:
    problems: list[Problem] = []
    warnings: list[str] = []
    last = doc.nlines
    changed = rg.normalize([(op.start, op.end) for op in ops if op.is_range])

    def outside(n: int) -> str | None:
        if n < 1 or n > last or rg.intersect(changed, n, n):
            return None
        return doc.text(n)

    for op in ops:
        if not op.lines:
            continue
        if op.is_range:
            above, below = outside(op.start - 1), outside(op.end + 1)
        elif op.kind == "insert_after":
            above, below = outside(op.start), outside(op.start + 1)
        else:
            above, below = outside(op.start - 1), outside(op.start)
        if not allow_echo:
            for new, old, where in ((op.lines[0], above, "above"), (op.lines[-1], below, "below")):
                if old is None or not new.strip() or new.strip() != old.strip():
                    continue
                line_no = _neighbour_number(op, where)
                # the list-item pattern backtracks over the whole line: try it only on lines ending in a comma
                listed = new.rstrip().endswith(",") and _LIST_ITEM.match(new)
                if _STRUCTURAL.match(new) or listed or _repeated_nearby(doc, changed, line_no, new):
                    warnings.append(
                        f"operation {op.index} (`{op.header}`): its {'first' if where == 'above' else 'last'} "
                        f"new line `{new.strip()[:60]}` repeats line {line_no} {where} it."
                    )
                    continue
                problems.append(
                    Problem(
                        "suspicious-edit",
                        f"its {'first' if where == 'above' else 'last'} new line repeats line {line_no} "
                        f"just {where} the "
                        f"change (`{new.strip()[:60]}`), which would duplicate it. Drop that line from the new text, "
                        "or add --allow-echo if the repeat is intended.",
                        op.index,
                        op.header,
                    )
                )
        if not allow_indent_mix:
            _indent(doc, op, changed, problems)
    return problems, warnings


def _neighbour_number(op: Op, where: str) -> int:
    if op.is_range:
        return op.start - 1 if where == "above" else op.end + 1
    if op.kind == "insert_after":
        return op.start if where == "above" else op.start + 1
    return op.start - 1 if where == "above" else op.start


def _window(doc: Doc, first: int, last: int) -> tuple[int, int]:
    """Byte bounds of the whole lines within NEIGHBOURHOOD bytes of lines first..last."""
    data = doc.data
    lo = max(doc.base, doc.line_start(max(first, 1)) - NEIGHBOURHOOD)
    if lo > doc.base:
        lo = max(doc.base, data.rfind(b"\n", doc.base, lo) + 1)  # back to the start of that line
    hi = min(len(data), doc.line_start(max(last, first) + 1) + NEIGHBOURHOOD)
    nl = data.find(b"\n", hi)
    return lo, len(data) if nl < 0 else nl + 1


def _spans(doc: Doc, changed: list[list[int]], first: int, last: int) -> list[tuple[int, int]]:
    """The window of lines first..last less the lines the request replaces or deletes. Each span
    starts at a line start, so `^` patterns see whole lines."""
    lo, hi = _window(doc, first, last)
    spans, pos = [], lo
    # Only the changed ranges near these lines (a line holds at least one byte): a request of
    # 1,000 operations must not compare every operation with every other.
    for a, b in rg.intersect(changed, max(first, 1) - NEIGHBOURHOOD - 1, max(last, first) + NEIGHBOURHOOD + 1):
        cut_lo, cut_hi = doc.line_start(a), doc.line_start(b + 1)
        if cut_hi <= pos or cut_lo >= hi:
            continue
        if cut_lo > pos:
            spans.append((pos, cut_lo))
        pos = max(pos, cut_hi)
    if pos < hi:
        spans.append((pos, hi))
    return spans


def _repeated_nearby(doc: Doc, changed: list[list[int]], line_no: int, text: str) -> bool:
    """Whether the repeated line occurs at least twice among the lines around (itself and one more).
    A line counts when it is the text with only spaces or tabs around it (and a CR before its end).
    Plain byte searches, not a regex built from the text: compiling a 10 MB line took seconds."""
    target = text.strip().encode("utf-8", "surrogateescape")
    data, found = doc.data, 0
    for start, end in _spans(doc, changed, line_no, line_no):
        at = data.find(target, start, end)
        while at >= 0:
            head = data.rfind(b"\n", start, at) + 1 or start
            stop = data.find(b"\n", at, end)
            stop = end if stop < 0 else stop
            if not data[max(head, start) : at].strip(b" \t") and _blank_tail(data[at + len(target) : stop]):
                found += 1
                if found >= 2:
                    return True
            at = data.find(target, at + 1, end)
    return False


def _blank_tail(rest: bytes) -> bool:
    """Spaces or tabs, then at most one CR: what may follow the text on its line."""
    return not (rest[:-1] if rest.endswith(b"\r") else rest).strip(b" \t")


def _style(line: str) -> str | None:
    if not line.strip():
        return None  # whitespace only: no content to indent
    if line.startswith("\t"):
        return "tabs"
    if line.startswith("  "):
        return "spaces"
    return None


def _quick_counts(doc: Doc, spans: list[tuple[int, int]]) -> tuple[int, int]:
    """Line starts with a tab, and with two spaces, whitespace-only lines included."""
    data, tabs, spaces = doc.data, 0, 0
    for start, end in spans:
        tabs += data.count(b"\n\t", max(start - 1, 0), end)
        spaces += data.count(b"\n  ", max(start - 1, 0), end)
        if start == doc.base:
            tabs += data.startswith(b"\t", start)
            spaces += data.startswith(b"  ", start)
    return tabs, spaces


def _indent_counts(doc: Doc, spans: list[tuple[int, int]]) -> tuple[int, int]:
    """Lines indented with a tab, and with two spaces, in the byte spans (whitespace-only lines
    left out): one regex pass over the bytes, no per-line Python work."""
    tabs = spaces = 0
    for start, end in spans:
        for m in _INDENTED.finditer(doc.data, start, end):
            if m.group(1) == b"\t":
                tabs += 1
            else:
                spaces += 1
        if start == doc.base and doc.base:  # `^` does not match after a BOM
            here = _INDENTED_HERE.match(doc.data, start, end)
            if here:
                tabs, spaces = (tabs + 1, spaces) if here.group(1) == b"\t" else (tabs, spaces + 1)
    return tabs, spaces


def _indent(doc: Doc, op: Op, changed: list[list[int]], problems: list[Problem]) -> None:
    styles = [s for s in map(_style, op.lines) if s]
    if not styles:
        return
    # The style of the lines around the change (about a hundred each side), those the request
    # replaces left out: a re-indent is judged by the lines it leaves. When it leaves no indented
    # line (psf/requests 927294fbd4 re-indents a whole README section), there is no style to break.
    # Counting line starts over the whole window is fast (bytes.count, no per-line work) and never
    # undercounts; the exact pass (replaced and whitespace-only lines left out) runs only when the
    # other style occurs there at all, so a 1,000-operation request stays cheap.
    tabs, spaces = _quick_counts(doc, [_window(doc, op.start, op.end)])
    if all((spaces if s == "tabs" else tabs) == 0 for s in styles):
        return
    tabs, spaces = _indent_counts(doc, _spans(doc, changed, op.start, op.end))
    local = "tabs" if tabs and not spaces else "spaces" if spaces and not tabs else None
    if local is None or set(styles) == {local}:
        return
    other = "tabs" if local == "spaces" else "spaces"
    # Deliberate re-indentation is not a slip: a new line whose text (indentation aside) is that
    # of a line it replaces changes only its indentation. And new text that mostly follows the
    # local style holds its other lines on purpose (a code sample inside XML, aligned text).
    if op.is_range and op.end - op.start < REINDENT_SCAN:
        replaced = {doc.text(n).strip() for n in range(op.start, op.end + 1)}
        styles = [s for s, line in zip(map(_style, op.lines), op.lines) if s and line.strip() not in replaced]
    if styles.count(other) <= styles.count(local):
        return
    problems.append(
        Problem(
            "suspicious-edit",
            f"its new lines indent with {other}, but the lines around it indent only with {local}. Re-send them "
            f"indented with {local}, or add --allow-indent-mix if {other} are intended.",
            op.index,
            op.header,
        )
    )
