"""What changed since a stale tag, and `--rebase`: carry operations across that change.

Uses the snapshot the ledger keeps of the tagged revision (files up to the snapshot cap). An
operation can be rebased only when every line it names and its neighbours on both sides (or the
start/end of the file) are unchanged and still adjacent in the current file.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.ops import Op


class Comparison:
    """mapping[i]: the current number of old line i (0 and old_n+1 are the file ends), -1 if changed."""

    __slots__ = ("old_n", "new_n", "mapping", "changes")

    def __init__(self, old_n: int, new_n: int, mapping: list[int], changes: list[str]) -> None:
        self.old_n, self.new_n, self.mapping, self.changes = old_n, new_n, mapping, changes


def compare(old: Doc, new: Doc) -> Comparison:
    a, b = old.lines(), new.lines()
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    mapping = [-1] * (len(a) + 2)
    mapping[0], mapping[len(a) + 1] = 0, len(b) + 1
    for i in range(lo):
        mapping[i + 1] = i + 1
    for k in range(hi):
        mapping[len(a) - k] = len(b) - k
    matcher = SequenceMatcher(None, a[lo : len(a) - hi], b[lo : len(b) - hi], autojunk=len(a) > 2000)
    changes: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + lo, i2 + lo, j1 + lo, j2 + lo
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[i1 + k + 1] = j1 + k + 1
        elif tag == "replace":
            now = f"{j1 + 1}" if j2 - j1 == 1 else f"{j1 + 1}-{j2}"
            was = f"line {i1 + 1}" if i2 - i1 == 1 else f"lines {i1 + 1}-{i2}"
            changes.append(f"{was} changed" + ("" if (i1, i2) == (j1, j2) else f" (now {now})"))
        elif tag == "delete":
            changes.append(f"line {i1 + 1} removed" if i2 - i1 == 1 else f"lines {i1 + 1}-{i2} removed")
        else:
            count = j2 - j1
            where = "at the top" if i1 == 0 else f"after line {i1}"
            changes.append(f"{count} line{'s' if count != 1 else ''} inserted {where}")
    return Comparison(len(a), len(b), mapping, changes)


def describe(cmp: Comparison, limit: int = 5) -> str:
    if not cmp.changes:
        return "only line endings or bytes outside the lines changed"
    text = ", ".join(cmp.changes[:limit])
    if len(cmp.changes) > limit:
        text += f" and {len(cmp.changes) - limit} more changes"
    return text + ("" if cmp.old_n == cmp.new_n else f" ({cmp.old_n} -> {cmp.new_n} lines)")


def _adjacent(cmp: Comparison, first: int, last: int) -> bool:
    """Old lines first..last (0 and old_n+1 mean the file ends) are unchanged and still adjacent."""
    first, last = max(first, 0), min(last, cmp.old_n + 1)
    prev = None
    for n in range(first, last + 1):
        now = cmp.mapping[n]
        if now < 0 or (prev is not None and now != prev + 1):
            return False
        prev = now
    return True


def rebase_op(cmp: Comparison, op: Op) -> tuple[Op | None, str]:
    """The operation renumbered for the current file, or None and the reason it cannot move."""
    if op.kind == "final_newline":
        return op, "applies as is"
    if op.is_range:
        lo, hi = op.start - 1, op.end + 1
    elif op.kind == "insert_after":
        lo, hi = op.start, op.start + 1
    else:
        lo, hi = op.start - 1, op.start
    if op.start > cmp.old_n + (1 if op.kind == "insert_after" else 0) or not _adjacent(cmp, lo, hi):
        what = "its lines or the lines next to them changed" if op.is_range else "the lines around its anchor changed"
        return None, what
    shift = cmp.mapping[max(op.start, 0)] - op.start if op.start >= 1 else 0
    moved = op.moved(shift)
    return moved, "unchanged" if shift == 0 else f"now `{moved.header}`"


def rebase_all(cmp: Comparison, ops: list[Op], invalid: set[int]) -> tuple[list[Op], list[dict[str, object]]]:
    """Every operation renumbered for the current file, and a per-operation report."""
    rebased: list[Op] = []
    report: list[dict[str, object]] = []
    for op in ops:
        if op.index in invalid:
            moved, why = None, "the request itself has a problem there (fix it first)"
        else:
            moved, why = rebase_op(cmp, op)
        report.append(
            {
                "index": op.index,
                "header": op.header,
                "applies": moved is not None,
                "rebased": moved.header if moved is not None else None,
                "reason": why,
            }
        )
        if moved is not None:
            rebased.append(moved)
    return rebased, report
