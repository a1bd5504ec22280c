"""Validate a whole request against the tagged revision; report every problem together.

Rules: one snapshot (every number refers to the tagged revision), bounds, disjoint ranges, no
insertion anchored on a replaced line, one insertion per boundary, and every named line seen.
"""

from __future__ import annotations

import re
from heapq import heappop, heappush

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.ops import Op
from pylon.workspace.edits.problems import Problem

_PREFIX_RE = re.compile(r"^(\d+):")


class Plan:
    __slots__ = ("problems", "unseen", "moved")

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.unseen: list[int] = []  # every unseen line the request names
        # (old, new): an unseen number that, before the agent's last edit, meant the line now at
        # `new`. The refusal shows both lines, so the retry succeeds whichever one was meant.
        self.moved: list[tuple[int, int]] = []


MOVED_SHOWN = 40


def validate(ops: list[Op], doc: Doc, seen: list[list[int]], parent: dict[str, Any] | None = None) -> Plan:
    plan = Plan()
    last = doc.nlines
    good: list[Op] = []
    for op in ops:
        before = len(plan.problems)
        _bounds(op, last, plan.problems)
        if len(plan.problems) == before:
            good.append(op)
    _disjoint(good, plan.problems)
    finals = [op for op in ops if op.kind == "final_newline"]
    for op in finals[1:]:
        plan.problems.append(
            Problem("overlap", f"final-newline is already set by operation {finals[0].index}.", op.index, op.header)
        )
    unseen: set[int] = set()
    for op in good:
        needed = (op.start, op.end) if op.is_range else (op.start, op.start) if op.start >= 1 else None
        if needed is None:
            continue
        gaps = rg.missing(seen, *needed)
        if gaps:
            for a, b in gaps:
                unseen.update(range(a, b + 1))
            plan.problems.append(
                Problem(
                    "unseen-lines",
                    f"{_lines(gaps)} not shown under this tag{_moved(gaps, parent, plan.moved)}.",
                    op.index,
                    op.header,
                    {"lines": gaps},
                )
            )
        _numbered_text(op, doc, plan.problems)
    plan.unseen = sorted(unseen)
    return plan


def _bounds(op: Op, last: int, problems: list[Problem]) -> None:
    def bad(message: str) -> None:
        problems.append(Problem("out-of-range", message, op.index, op.header))

    if op.kind == "final_newline":
        return
    empty = " (the file is empty; add lines with `insert after 0`)" if last == 0 else ""
    if op.is_range:
        if op.start < 1:
            bad("line numbers start at 1.")
        elif op.start > op.end:
            bad(f"the range starts after it ends; write `{op.kind} {op.end}-{op.start}`.")
        elif op.end > last:
            bad(f"line {op.end} is past the last line ({last}){empty}.")
    elif op.kind == "insert_after":
        if not 0 <= op.start <= last:
            bad(f"`insert after` takes 0..{last} (0 inserts before line 1){empty}.")
    elif not 1 <= op.start <= last:
        hint = f"; to add lines at the end write `insert after {last}`" if op.start == last + 1 and last else ""
        bad(f"`insert before` takes 1..{last}{hint}{empty}.")


def _disjoint(ops: list[Op], problems: list[Problem]) -> None:
    spans = [op for op in ops if op.is_range]
    inserts = [op for op in ops if op.is_insert]
    pairs, anchored = _sweep(spans, inserts)
    for a, b in pairs:
        first, second = (a, b) if a.index < b.index else (b, a)  # the later operation gets the problem
        lo, hi = max(a.start, b.start), min(a.end, b.end)
        both = f"line {lo} is" if lo == hi else f"lines {lo}-{hi} are"
        problems.append(
            Problem(
                "overlap",
                f"{both} also changed by operation {first.index} (`{first.header}`); merge them into one operation.",
                second.index,
                second.header,
            )
        )
    for op, owner in anchored:
        problems.append(
            Problem(
                "overlap",
                f"its anchor line {op.start} is changed by operation {owner.index} (`{owner.header}`); "
                "put the new lines into that operation instead.",
                op.index,
                op.header,
            )
        )
    refused = {op.index for op, _ in anchored}
    boundaries: dict[int, Op] = {}
    for op in sorted(inserts, key=lambda o: o.index):
        if op.index in refused:
            continue
        boundary = op.start if op.kind == "insert_after" else op.start - 1
        if boundary in boundaries:
            first = boundaries[boundary]
            problems.append(
                Problem(
                    "same-boundary",
                    f"operation {first.index} (`{first.header}`) inserts at the same place (between lines "
                    f"{boundary} and {boundary + 1}); merge both into one insertion in the order you want.",
                    op.index,
                    op.header,
                )
            )
        else:
            boundaries[boundary] = op


def _sweep(spans: list[Op], inserts: list[Op]) -> tuple[list[tuple[Op, Op]], list[tuple[Op, Op]]]:
    """Every overlapping pair of ranges, and every (insertion, range holding its anchor line).

    A sweep in line order: a range enters a heap keyed by its end at its first line and leaves
    once the sweep has passed its end, so everything still in the heap holds the current line.
    A range asks just before entering, so it meets each range that entered before it exactly
    once (nested and identical ranges included, not only neighbours); an insertion asks after
    every range starting on its line has entered. The cost is O((n + pairs) log n): a
    1000-operation request without overlaps stays cheap, and a request with overlaps costs in
    proportion to the problems it reports.
    """
    # Sort keys stop at the index (unique), so Op objects are never compared.
    events = sorted(
        [(op.start, 0, op.index, op) for op in spans] + [(op.start, 1, op.index, op) for op in inserts],
        key=lambda e: e[:3],
    )
    active: list[tuple[int, int, Op]] = []  # (end, index, range)
    pairs: list[tuple[Op, Op]] = []
    anchored: list[tuple[Op, Op]] = []
    for line, kind, index, op in events:
        while active and active[0][0] < line:
            heappop(active)
        holders = [held for _, _, held in sorted(active, key=lambda a: a[1])]
        if kind == 0:
            pairs += [(op, held) for held in holders]
            heappush(active, (op.end, index, op))
        else:
            anchored += [(op, held) for held in holders]
    return pairs, anchored


def _lines(gaps: list[list[int]]) -> str:
    if len(gaps) == 1 and gaps[0][0] == gaps[0][1]:
        return f"line {gaps[0][0]} was"
    return f"lines {rg.describe(gaps)} were"


def _moved(gaps: list[list[int]], parent: dict[str, Any] | None, moved: list[tuple[int, int]]) -> str:
    """`; before your last edit line 50 was ... it is now 53` when the numbers look pre-edit.

    Every such (old, new) pair of the gaps (at most MOVED_SHOWN) is added to `moved`.
    """
    if not parent:
        return ""
    segments = parent.get("map", [])
    for a, b in gaps:
        for line in range(a, min(b, a + MOVED_SHOWN) + 1):
            for os_, oe, ns in segments:
                if os_ <= line <= oe and ns + line - os_ != line and len(moved) < MOVED_SHOWN:
                    moved.append((line, ns + line - os_))
    notes: list[str] = []
    for a, b in gaps:
        for line in (a,) if a == b else (a, b):
            for os_, oe, ns in segments:
                if os_ <= line <= oe:
                    now = ns + line - os_
                    if now != line:
                        notes.append(f"line {line} of #{parent['tag']} is now line {now}")
                        if parent.get("authored") and rg.covers(parent["authored"], line, line):
                            notes[-1] += f" (line {line} now holds a line you wrote)"
                    break
            else:
                if parent.get("touched") and rg.covers(parent["touched"], line, line):
                    notes.append(f"line {line} of #{parent['tag']} was rewritten by your last edit")
        if len(notes) >= 4:
            break
    if not notes:
        return ""
    return "; your last edit moved lines: " + ", ".join(notes) + " (re-read before using old numbers)"


def _numbered_text(op: Op, doc: Doc, problems: list[Problem]) -> None:
    """New lines that all start with consecutive `N:` look pasted from `pylon read` output."""
    if not op.lines:
        return
    numbers = []
    for line in op.lines:
        m = _PREFIX_RE.match(line)
        if not m:
            return
        numbers.append(int(m.group(1)))
    if any(b != a + 1 for a, b in zip(numbers, numbers[1:])):
        return
    if len(numbers) == 1 and abs(numbers[0] - op.start) > 2:
        return
    lo, hi = max(op.start - 1, 1), min(op.end + 1, doc.nlines)
    if lo <= hi and any(_PREFIX_RE.match(c.decode("utf-8", "replace")) for _, c, _ in doc.iter_raw(lo, hi)):
        return  # the file itself holds such lines
    problems.append(
        Problem(
            "line-number-prefix",
            f"its new lines start with `{numbers[0]}:`... as in `pylon read` output; write only "
            "the content after the `N:` prefix.",
            op.index,
            op.header,
        )
    )
