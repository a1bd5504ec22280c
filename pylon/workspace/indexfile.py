"""Reading git's index file (formats 2 and 3) where pylon needs more than git prints: where the
entries end (the `EOIE` extension), which entries two versions of one index differ in, and the
folders of the untracked cache (`UNTR`) with their stat data, so a capture sees which folders git
looked at again (a folder's chmod changes its ctime, which the untracked cache checks). The layout
is git's Documentation/gitformat-index.txt ("End of Index Entry", "Untracked cache"); anything
that does not parse gives None and the caller walks instead.
"""

from __future__ import annotations

_EOIE = 32  # "EOIE", its size (24), the offset, a 20-byte hash
_HASH = 20  # SHA-1 repositories only (a SHA-256 index does not parse: the caller walks)
_STAT = 36  # ondisk stat data: ctime, mtime (sec, nsec), dev, ino, uid, gid, size


def entries_end(data: bytes) -> int | None:
    """Where the entries end, from the EOIE extension (None without one)."""
    tail = len(data) - 20 - _EOIE
    if tail >= 12 and data[tail : tail + 8] == b"EOIE\0\0\0\x18":
        end = int.from_bytes(data[tail + 8 : tail + 12], "big")
        if 12 <= end <= tail:
            return end
    return None


def refreshed(pre: bytes, post: bytes) -> list[str] | None:
    """Paths whose index entry differs between two versions of one index holding the same entries
    (what `git status` refreshed); None when they cannot be compared that way."""
    if len(pre) < 12 or pre[:12] != post[:12] or pre[:4] != b"DIRC":
        return None
    version = int.from_bytes(pre[4:8], "big")
    if version not in (2, 3):
        return None
    end = entries_end(pre)
    if end is not None and end == entries_end(post) and pre[12:end] == post[12:end]:
        return []
    found: list[str] = []
    pos = 12
    size = min(len(pre), len(post))
    for _ in range(int.from_bytes(pre[8:12], "big")):
        if pos + 62 > size:
            return None
        flags = int.from_bytes(pre[pos + 60 : pos + 62], "big")
        head = 64 if version == 3 and flags & 0x4000 else 62
        length = flags & 0xFFF
        if length == 0xFFF:
            length = pre.index(b"\0", pos + head) - pos - head
        name = pre[pos + head : pos + head + length]
        if post[pos + head : pos + head + length] != name:
            return None  # not the same entries
        if pre[pos : pos + head] != post[pos : pos + head]:
            found.append(name.decode("utf-8", "surrogateescape"))
        pos += (head + length + 8) & ~7
    return found


def extensions(data: bytes) -> bytes | None:
    end = entries_end(data)
    return None if end is None else data[end : len(data) - 20 - _EOIE]


def _sections(ext: bytes) -> dict[bytes, bytes]:
    """The extensions by signature (each: 4-byte signature, 4-byte size, data)."""
    found: dict[bytes, bytes] = {}
    pos = 0
    while pos + 8 <= len(ext):
        size = int.from_bytes(ext[pos + 4 : pos + 8], "big")
        found[ext[pos : pos + 4]] = ext[pos + 8 : pos + 8 + size]
        pos += 8 + size
    return found


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's varint (varint.c: big-endian 7-bit groups, each continuation adding one)."""
    byte = data[pos]
    pos += 1
    value = byte & 127
    while byte & 128:
        byte = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (byte & 127)
    return value, pos


def _ewah(data: bytes, pos: int) -> tuple[list[int], int]:
    """The set bits of an EWAH bitmap (ewah/ewah_io.c), and where it ends."""
    bits = int.from_bytes(data[pos : pos + 4], "big")
    words = int.from_bytes(data[pos + 4 : pos + 8], "big")
    body = data[pos + 8 : pos + 8 + 8 * words]
    if len(body) != 8 * words:
        raise ValueError("short bitmap")
    found: list[int] = []
    at = i = 0
    while i < words:
        rlw = int.from_bytes(body[8 * i : 8 * i + 8], "big")
        i += 1
        run, literals = (rlw >> 1) & 0xFFFFFFFF, rlw >> 33
        if rlw & 1:
            found += range(at, at + 64 * run)
        at += 64 * run
        for _ in range(literals):
            word = int.from_bytes(body[8 * i : 8 * i + 8], "big")
            i += 1
            found += [at + b for b in range(64) if word >> b & 1]
            at += 64
    return [b for b in found if b < bits], pos + 8 + 8 * words + 4


def untracked_dirs(index: bytes) -> dict[str, bytes] | None:
    """Each folder the untracked cache holds valid data for (root-relative, "" for the root) -> its
    stat data as git recorded it; None when the index has no untracked cache or it does not parse."""
    ext = extensions(index)
    data = _sections(ext).get(b"UNTR") if ext is not None else None
    if data is None:
        return None
    try:
        length, pos = _varint(data, 0)
        pos += length + 2 * _STAT + 4 + 2 * _HASH  # ident, the exclude files' stat data, flags, hashes
        pos = data.index(b"\0", pos) + 1  # the per-folder exclude file's name
        count, pos = _varint(data, pos)
        names: list[str] = []
        stack: list[tuple[str, int]] = []  # (folder path, sub-folders still to come)
        for _ in range(count):
            untracked, pos = _varint(data, pos)
            subdirs, pos = _varint(data, pos)
            end = data.index(b"\0", pos)
            name = data[pos:end].decode("utf-8", "surrogateescape")
            pos = end + 1
            for _ in range(untracked):
                pos = data.index(b"\0", pos) + 1
            while stack and stack[-1][1] == 0:
                stack.pop()
            parent = stack[-1][0] if stack else None
            if stack:
                stack[-1] = (parent or "", stack[-1][1] - 1)
            path = name if not parent else f"{parent}/{name}"
            names.append("" if parent is None else path)
            stack.append(("" if parent is None else path, subdirs))
        valid, pos = _ewah(data, pos)
        _check_only, pos = _ewah(data, pos)
        _hashed, pos = _ewah(data, pos)
        found: dict[str, bytes] = {}
        for n, index_of in enumerate(valid):
            found[names[index_of]] = data[pos + n * _STAT : pos + (n + 1) * _STAT]
        if pos + len(valid) * _STAT > len(data):
            return None
        return found
    except (ValueError, IndexError):
        return None
