"""Sets of line numbers stored as sorted, disjoint, non-adjacent [start, end] ranges.

The ledger never stores one entry per line: reading a 1,000,000-line file window by window
collapses into a single range.
"""

from __future__ import annotations

from bisect import bisect_right

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterable

Range = list[int]  # [start, end], inclusive


def normalize(ranges: Iterable[Iterable[int]]) -> list[Range]:
    """Sort and merge overlapping or adjacent ranges; drop empty ones."""
    items = sorted((int(a), int(b)) for a, b in ranges if int(a) <= int(b))
    out: list[Range] = []
    for a, b in items:
        if out and a <= out[-1][1] + 1:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def union(left: list[Range], right: Iterable[Iterable[int]]) -> list[Range]:
    return normalize([*left, *right])


def missing(ranges: list[Range], a: int, b: int) -> list[Range]:
    """The parts of a..b that `ranges` does not cover."""
    out: list[Range] = []
    pos = a
    i = max(bisect_right(ranges, [a, float("inf")]) - 1, 0)
    while pos <= b and i < len(ranges):
        start, end = ranges[i]
        if end < pos:
            i += 1
            continue
        if start > b:
            break
        if start > pos:
            out.append([pos, min(start - 1, b)])
        pos = max(pos, end + 1)
        i += 1
    if pos <= b:
        out.append([pos, b])
    return out


def covers(ranges: list[Range], a: int, b: int) -> bool:
    return not missing(ranges, a, b)


def intersect(ranges: list[Range], a: int, b: int) -> list[Range]:
    """The parts of `ranges` inside a..b."""
    out: list[Range] = []
    i = max(bisect_right(ranges, [a, float("inf")]) - 1, 0)
    while i < len(ranges) and ranges[i][0] <= b:
        start, end = ranges[i]
        lo, hi = max(start, a), min(end, b)
        if lo <= hi:
            out.append([lo, hi])
        i += 1
    return out


def subtract(ranges: list[Range], other: list[Range]) -> list[Range]:
    """`ranges` without the lines in `other`."""
    out: list[Range] = []
    for a, b in ranges:
        out.extend(missing(other, a, b))
    return out


def count(ranges: list[Range]) -> int:
    return sum(b - a + 1 for a, b in ranges)


def describe(ranges: list[Range], limit: int = 6) -> str:
    """`3, 7-9, 12` (at most `limit` items, then `and N more`)."""
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in ranges[:limit]]
    text = ", ".join(parts)
    if len(ranges) > limit:
        text += f" and {len(ranges) - limit} more ranges"
    return text
