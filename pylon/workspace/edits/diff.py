"""A unified diff built from the applied regions (no re-diffing of the whole file)."""

from __future__ import annotations

from pylon.workspace.edits.apply import Region
from pylon.workspace.edits.lines import Doc
from pylon.workspace.edits.window import MAX_BYTES, clip

CONTEXT = 3


def _span(start: int, count: int) -> str:
    if count == 0:
        return f"{start - 1},0"
    return str(start) if count == 1 else f"{start},{count}"


def unified(path: str, old: Doc, new: Doc, regions: list[Region], context: int = CONTEXT) -> str:
    regions = sorted(regions, key=lambda r: (r.old[0], r.new[0]))
    groups: list[list[Region]] = []
    for region in regions:
        if groups and region.old[0] - max(groups[-1][-1].old[1], groups[-1][-1].old[0] - 1) <= 2 * context + 1:
            groups[-1].append(region)
        else:
            groups.append([region])
    out = [f"--- a/{path}", f"+++ b/{path}"]
    for group in groups:
        first, last = group[0], group[-1]
        oa = max(1, first.old[0] - context)
        na = first.new[0] - (first.old[0] - oa)
        ob = min(old.nlines, max(last.old[1], last.old[0] - 1) + context)
        body: list[str] = []
        cur = oa
        for region in group:
            body += [" " + clip(old.text(n)) for n in range(cur, region.old[0])]
            body += ["-" + clip(old.text(n)) for n in range(region.old[0], region.old[1] + 1)]
            body += ["+" + clip(new.text(n)) for n in range(region.new[0], region.new[1] + 1)]
            cur = region.old[1] + 1 if region.old[1] >= region.old[0] else region.old[0]
        body += [" " + clip(old.text(n)) for n in range(cur, ob + 1)]
        olen = sum(1 for line in body if line[0] in " -")
        nlen = sum(1 for line in body if line[0] in " +")
        out.append(f"@@ -{_span(oa, olen)} +{_span(na, nlen)} @@")
        out += body
    return _bounded(out)


def _bounded(lines: list[str]) -> str:
    """The diff, stopped after MAX_BYTES of output with a line saying how much was left out."""
    used = 0
    for i, line in enumerate(lines):
        used += len(line.encode("utf-8", "surrogateescape")) + 1
        if used > MAX_BYTES:
            return "\n".join(lines[:i]) + f"\n[diff cut at {MAX_BYTES // 1024} KiB: {len(lines) - i} more lines]\n"
    return "\n".join(lines) + "\n"
