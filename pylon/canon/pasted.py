"""A front-matter block pasted at the top of a body (agents paste whole files): found here,
stripped by `canon write` and `canon lint --fix`."""

from __future__ import annotations

from pylon.canon.frontmatter import _LazyPattern

# ---- a front-matter block pasted into a body (agents paste whole files) --------------------------

_PASTED_KEY = _LazyPattern(r"^[A-Za-z_][A-Za-z0-9_ .-]*:(?:[ \t].*)?$")


class Pasted:
    """A front-matter block pasted at the top of a body (only blank lines before it).
    The fix keeps `body[end:]`."""

    __slots__ = ("start", "end", "lines", "line")

    def __init__(self, start: int, end: int, lines: list[str], line: int) -> None:
        self.start = start  # offset of the opening fence
        self.end = end  # past the closing fence and the blank lines after it
        self.lines = lines  # the `key: value` lines inside (blank lines dropped), terminators stripped
        self.line = line  # 0-based line of the opening fence within the body


def find_pasted(body: str) -> Pasted | None:
    """The fenced block of only `key: value`/blank lines that opens the body, if there is one."""
    if "---" not in body[:4096]:
        return None
    lines = body.splitlines(keepends=True)
    i = 0
    pos = 0
    while i < len(lines) and not lines[i].strip():
        pos += len(lines[i])
        i += 1
    if i >= len(lines) or lines[i].rstrip() != "---":
        return None
    open_line, start = i, pos
    pos += len(lines[i])
    i += 1
    keys: list[str] = []
    while i < len(lines):
        raw = lines[i].rstrip("\r\n")
        pos += len(lines[i])
        i += 1
        if raw.rstrip() == "---" or raw == "...":
            break
        if not raw.strip():
            continue
        if not _PASTED_KEY.match(raw):
            return None
        keys.append(raw)
    else:
        return None
    if not keys:
        return None
    while i < len(lines) and not lines[i].strip():
        pos += len(lines[i])
        i += 1
    return Pasted(start, pos, keys, open_line)
