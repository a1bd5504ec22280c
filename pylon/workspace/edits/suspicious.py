"""Heuristics for edits that are probably mistakes (exit 3 unless overridden).

- Echo: the first new line repeats the line just above the range, or the last new line repeats
  the line just below it (the classic duplicated boundary line). Blank lines never count; lines
  made only of closing brackets or of one block keyword (`try:`, `else:`, `end`, `fi`...) only
  warn, because closing two blocks in a row or nesting a `try:` is common.
- Indent mix: a new line indents with tabs where the surrounding lines indent only with spaces,
  or with spaces where they indent only with tabs.
"""

from __future__ import annotations

import re

from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.ops import Op
from pylon.workspace.edits.problems import Problem

# Structural lines repeat legitimately (closing two blocks, nested `try:`): they only warn.
_CLOSERS = re.compile(r"^\s*(?:[\)\]\}]+[;,]?|(?:try|else|finally|do|then|end|fi|done|esac|begin):?)\s*$")
NEIGHBOURHOOD = 4096  # bytes on each side that decide the local indentation style


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
                if _CLOSERS.match(new):
                    warnings.append(f"operation {op.index} (`{op.header}`): its {'first' if where == 'above' else 'last'} "
                                    f"new line `{new.strip()}` repeats line {line_no} {where} it.")
                    continue
                problems.append(Problem(
                    "suspicious-edit",
                    f"its {'first' if where == 'above' else 'last'} new line repeats line {line_no} just {where} the "
                    f"change (`{new.strip()[:60]}`), which would duplicate it. Drop that line from the new text, "
                    "or add --allow-echo if the repeat is intended.", op.index, op.header))
        if not allow_indent_mix:
            _indent(doc, op, problems)
    return problems, warnings


def _neighbour_number(op: Op, where: str) -> int:
    if op.is_range:
        return op.start - 1 if where == "above" else op.end + 1
    if op.kind == "insert_after":
        return op.start if where == "above" else op.start + 1
    return op.start - 1 if where == "above" else op.start


def _style(line: str) -> str | None:
    if line.startswith("\t"):
        return "tabs"
    if line.startswith("  "):
        return "spaces"
    return None


def _indent(doc: Doc, op: Op, problems: list[Problem]) -> None:
    new_styles = {s for s in map(_style, op.lines) if s}
    if not new_styles:
        return
    data = doc.data
    # The bytes around the change (about a hundred lines each side): count line starts, that is a
    # newline followed by a tab or by two spaces; no per-line work.
    start = max(doc.base, doc.line_start(max(op.start, 1)) - NEIGHBOURHOOD)
    end = min(len(data), doc.line_start(max(op.end, op.start) + 1) + NEIGHBOURHOOD)
    tabs = data.count(b"\n\t", start, end)
    spaces = data.count(b"\n  ", start, end)
    if start == doc.base:
        tabs += data.startswith(b"\t", start)
        spaces += data.startswith(b"  ", start)
    local = "tabs" if tabs and not spaces else "spaces" if spaces and not tabs else None
    if local is None or new_styles == {local}:
        return
    other = "tabs" if local == "spaces" else "spaces"
    problems.append(Problem(
        "suspicious-edit",
        f"its new lines indent with {other}, but the lines around it indent only with {local}. Re-send them "
        f"indented with {local}, or add --allow-indent-mix if {other} are intended.", op.index, op.header))
